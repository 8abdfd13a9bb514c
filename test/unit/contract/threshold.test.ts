/**
 * The threshold rule shared by synth and the functions (contract/threshold.ts) accepts exactly what the
 * ledger's decimal parser accepts, minus negative numbers, with the same canonical text and reasons:
 * the rule the chunk worker and `export diff --threshold` applied before it moved to contract/.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { parseThresholdText } from '../../../contract/threshold';
import { toDecimal } from '../../../lambda/core/decimal';
import { ValidationError } from '../../../lambda/core/errors';
import { parseThreshold } from '../../../lambda/core/exports/snapshot';

/** The threshold rule as the chunk worker applied it before: toDecimal, then ≥ 0. */
const previousRule = (text: string): string => {
  try {
    const value = toDecimal(text, 'threshold');
    return new Big(value).lt(0) ? 'refused: must be 0 or more (it applies to |change|)' : value;
  } catch (error) {
    if (error instanceof ValidationError) return `refused: ${error.reason}`;
    throw error;
  }
};

const sharedRule = (text: string): string => {
  const parsed = parseThresholdText(text);
  return parsed.ok ? parsed.value : `refused: ${parsed.reason}`;
};

const decimalText = fc
  .tuple(
    fc.constantFrom('', '+', '-'),
    fc.stringMatching(/^[0-9]{0,42}$/),
    fc.option(fc.stringMatching(/^[0-9]{0,42}$/), { nil: undefined }),
    fc.option(fc.integer({ min: -60, max: 60 }), { nil: undefined }),
    fc.constantFrom('', ' ', '_'),
  )
  .map(([sign, whole, fraction, exponent, noise]) => {
    const number = `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}`;
    const withExponent = exponent === undefined ? number : `${number}e${exponent}`;
    return noise === '_' ? withExponent.replace(/^(.)/, '$1_') : `${noise}${withExponent}${noise}`;
  });

describe('contract/threshold', () => {
  it.each([
    ['1', '1'],
    ['0.01', '0.01'],
    ['1.50', '1.5'],
    ['0', '0'],
    ['-0', '0'],
    ['+2', '2'],
    ['1e2', '100'],
    ['1.5E-3', '0.0015'],
    ['.5', '0.5'],
    ['5.', '5'],
    [' 1_000 ', '1000'],
    ['000120.0300', '120.03'],
  ])('%j is %j', (text, canonical) => {
    expect(parseThresholdText(text)).toEqual({ ok: true, value: canonical });
  });

  it.each([
    ['', 'empty amount'],
    ['-1', 'must be 0 or more (it applies to |change|)'],
    ['-0.0001', 'must be 0 or more (it applies to |change|)'],
    ['abc', 'not a decimal number: "abc"'],
    ['1e41', 'exponent out of range'],
    ['1'.repeat(39), 'more than 38 significant digits (the most DynamoDB stores exactly)'],
    ['1e-39', 'more than 38 fraction digits'],
    ['1'.repeat(101), `not a decimal number: "${'1'.repeat(40)}"`],
  ])('refuses %j (%s)', (text, reason) => {
    expect(parseThresholdText(text)).toMatchObject({ ok: false, reason });
  });

  it('agrees with the ledger decimal parser on every decimal text, canonical form and reason', () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        expect(sharedRule(text)).toBe(previousRule(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('lambda parseThreshold throws the shared reason as a ValidationError (the CLI prints it)', () => {
    expect(parseThreshold('2.50')).toBe('2.5');
    expect(() => parseThreshold('-1')).toThrow(ValidationError);
    expect(() => parseThreshold('')).toThrow(
      expect.objectContaining({ code: 'missing-field', reason: 'empty amount' }),
    );
    expect(() => parseThreshold('x')).toThrow(
      expect.objectContaining({ code: 'invalid-field', field: 'threshold' }),
    );
  });
});
