/**
 * The fast paths of the hot export path give exactly what the general code gives: plain decimal text
 * canonicalized without big.js, sums in integers of 10^-18, the ASCII shortcut of the text checks,
 * `compact` without `Object.fromEntries`, and instants read once per distinct text.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { fromScaledInteger, toAmount, toDecimal, toScaledInteger } from '../../lambda/core/decimal';
import { ValidationError } from '../../lambda/core/errors';
import {
  compact,
  optionalIdentifier,
  optionalInstant,
  optionalString,
} from '../../lambda/core/formats/fields';
import { toInstant } from '../../lambda/core/instant';

/** The general path, as toDecimal computed every value before the fast path. */
const bigCanonical = (text: string): string => {
  const big = new Big(text);
  if (big.eq(0)) return '0';
  const plain = big.toFixed();
  return plain.includes('.') ? plain.replace(/0+$/, '').replace(/\.$/, '') : plain;
};

const outcome = (run: () => string): string => {
  try {
    return run();
  } catch (error) {
    if (error instanceof ValidationError) return `${error.code}: ${error.message}`;
    throw error;
  }
};

const plainDecimal = fc
  .tuple(
    fc.boolean(),
    fc.stringMatching(/^[0-9]{1,25}$/),
    fc.option(fc.stringMatching(/^[0-9]{1,45}$/), { nil: undefined }),
  )
  .map(
    ([negative, whole, fraction]) =>
      `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`,
  );

describe('toDecimal and toAmount on plain decimal text', () => {
  it('give the canonical text big.js gives, and the same limits', () => {
    fc.assert(
      fc.property(plainDecimal, (text) => {
        const big = new Big(text);
        const expected =
          big.c.length > 38
            ? 'significant'
            : (bigCanonical(text).split('.')[1] ?? '').length > 38
              ? 'fraction'
              : bigCanonical(text);
        const found = outcome(() => toDecimal(text, 'x'));
        if (expected === 'significant') expect(found).toContain('significant digits');
        else if (expected === 'fraction') expect(found).toContain('fraction digits');
        else expect(found).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['999999999999999.999999999999999999', '999999999999999.999999999999999999'],
    ['-999999999999999.5', '-999999999999999.5'],
    ['1000000000000000', 'magnitude'],
    ['-1000000000000000.0', 'magnitude'],
    ['000999999999999999', '999999999999999'],
    ['0001000000000000000', 'magnitude'],
    ['00099999999999999.9', '99999999999999.9'],
    ['-0.000', '0'],
    ['-00.5000', '-0.5'],
    ['0.0000000000000000001', 'fraction digits'],
  ])('toAmount(%s) → %s', (text, expected) => {
    expect(outcome(() => toAmount(text, 'BilledCost'))).toContain(expected);
  });
});

describe('scaled integers', () => {
  it('round-trip every amount with at most 18 fraction digits, and add exactly', () => {
    const amount = plainDecimal.filter((text) => (text.split('.')[1] ?? '').length <= 18);
    fc.assert(
      fc.property(amount, amount, (a, b) => {
        expect(fromScaledInteger(toScaledInteger(a))).toBe(bigCanonical(a));
        expect(fromScaledInteger(toScaledInteger(a) + toScaledInteger(b))).toBe(
          bigCanonical(new Big(a).plus(b).toFixed()),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('read non-canonical input through big.js and refuse what they cannot hold exactly', () => {
    expect(toScaledInteger('1.5e3')).toBe(1500n * 10n ** 18n);
    expect(toScaledInteger('.10')).toBe(10n ** 17n);
    expect(toScaledInteger('1.0000000000000000000000')).toBe(10n ** 18n);
    expect(() => toScaledInteger('0.0000000000000000001')).toThrow(RangeError);
    expect(fromScaledInteger(-1n)).toBe('-0.000000000000000001');
    expect(fromScaledInteger(0n)).toBe('0');
  });
});

describe('text checks', () => {
  it('skip the Unicode checks only for text they can never refuse or change', () => {
    // Every printable ASCII character is well-formed, NFC, visible, and no space but U+0020.
    for (let code = 0x20; code <= 0x7e; code++) {
      const char = String.fromCharCode(code);
      expect(char.normalize('NFC')).toBe(char);
      expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u.test(char)).toBe(false);
      expect(/(?! )\p{Zs}/u.test(char)).toBe(false);
      expect(optionalIdentifier(`a${char}b`, 'id')).toBe(`a${char}b`);
    }
  });

  it('still refuse or normalize everything else', () => {
    expect(outcome(() => optionalIdentifier('a\u200bb', 'id') ?? '')).toContain('U+200B');
    expect(outcome(() => optionalIdentifier('tab\there', 'id') ?? '')).toContain('U+0009');
    expect(outcome(() => optionalIdentifier('a\u007fb', 'id') ?? '')).toContain('U+007F');
    expect(outcome(() => optionalIdentifier('x\u00a0y', 'id') ?? '')).toContain('U+00A0');
    expect(outcome(() => optionalString('\ud800', 'f') ?? '')).toContain('lone surrogate');
    expect(optionalString(' cafe\u0301 ', 'f')).toBe('café');
    expect(outcome(() => optionalString('a'.repeat(2049), 'f') ?? '')).toContain(
      'longer than 2048',
    );
    expect(optionalString(` ${'a'.repeat(2048)} `, 'f')).toBe('a'.repeat(2048));
  });
});

describe('compact', () => {
  it('drops undefined values, keeps order, and defines __proto__ as a plain property', () => {
    const input = JSON.parse('{"b":1,"a":null,"__proto__":{"polluted":true},"c":2}') as Record<
      string,
      unknown
    >;
    input.d = undefined;
    const result = compact(input);
    expect(Object.keys(result)).toEqual(['b', 'a', '__proto__', 'c']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((result as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('optionalInstant', () => {
  it('answers a repeated text from its cache exactly as toInstant does, and still rejects bad ones', () => {
    for (let round = 0; round < 2; round++) {
      for (const text of [
        '2026-11-01 00:00:00',
        '2026-11-01T05:00:00Z',
        '2026-11-01T05:00:00+02:00',
      ])
        expect(optionalInstant(text, 'ChargePeriodStart')).toBe(
          toInstant(text, 'ChargePeriodStart'),
        );
      expect(() => optionalInstant('yesterday', 'ChargePeriodStart')).toThrow(ValidationError);
    }
    for (let i = 0; i < 5000; i++) {
      const text = `2026-11-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(4, '0')}Z`;
      expect(optionalInstant(text, 'x')).toBe(toInstant(text, 'x'));
    }
  });
});
