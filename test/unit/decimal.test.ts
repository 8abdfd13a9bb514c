import Big from 'big.js';
import fc from 'fast-check';
import { addDecimals, subtractDecimals, toAmount, toDecimal } from '../../lambda/core/decimal';
import { ValidationError } from '../../lambda/core/errors';
import { JsonNumberText, parseJsonExact, stringifyJsonExact } from '../../lambda/core/json';

const rejectionOf = (run: () => unknown): ValidationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('toDecimal', () => {
  it.each([
    ['12.30', '12.3'],
    [12.3, '12.3'],
    ['12.3', '12.3'],
    ['1.23e1', '12.3'],
    [' 0012.300 ', '12.3'],
    ['-0', '0'],
    ['-0.000', '0'],
    [-0, '0'],
    ['0.1070000000', '0.107'],
    ['1e-10', '0.0000000001'],
    ['-25.00', '-25'],
    ['1500', '1500'],
    ['123456789012345678901234567.5', '123456789012345678901234567.5'],
    ['+5', '5'],
    [' +0.50 ', '0.5'],
    ['0.00000000001', '0.00000000001'],
    ['0.123456789012345', '0.123456789012345'],
    ['9'.repeat(38), '9'.repeat(38)],
    [new JsonNumberText('9007199254740993'), '9007199254740993'],
    [new JsonNumberText('0.10000000000000000001'), '0.10000000000000000001'],
    [
      new JsonNumberText('1.2345678901234567890123456789012345678E+3'),
      '1234.5678901234567890123456789012345678',
    ],
  ])('%p → %p', (input, expected) => {
    expect(toDecimal(input, 'amount')).toBe(expected);
  });

  it.each([
    ['abc'],
    [''],
    ['1e400'],
    [NaN],
    [Infinity],
    ['9'.repeat(39)],
    ['1.' + '0'.repeat(37) + '1'],
    ['1e-39'],
    ['+-5'],
    ['++5'],
    [new JsonNumberText('1e400')],
    [null],
    [{}],
    ['1,5'],
    ['0x10'],
  ])('rejects %p with a field-named validation error', (input) => {
    expect(() => toDecimal(input, 'amount')).toThrow(ValidationError);
    try {
      toDecimal(input, 'amount');
    } catch (error) {
      expect((error as ValidationError).field).toBe('amount');
    }
  });

  it('never leaks a library message: a leading + is accepted, anything else gets our reason', () => {
    for (const input of ['+5', '+.5', '+5.', '+1e2'])
      expect(() => toDecimal(input, 'amount')).not.toThrow();
    for (const input of ['+', '+-1', '5+', '+ 5', '.', '+.', 'e5']) {
      const error = rejectionOf(() => toDecimal(input, 'amount'));
      expect(error.reason).not.toMatch(/big\.js/i);
      expect(error.reason).toMatch(/not a decimal number/);
    }
  });

  it('is exact where floats are not', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(subtractDecimals('0.0749', '0.107')).toBe('-0.0321');
  });

  it('is idempotent and format-independent for any decimal with at most 18 fraction digits', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.integer({ min: 0, max: 18 }),
        (units, scale) => {
          const negative = units < 0n;
          const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
          const plain = `${negative ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale ? '.' + digits.slice(-scale) : ''}`;
          const canonical = toDecimal(plain, 'amount');
          expect(toDecimal(canonical, 'amount')).toBe(canonical);
          expect(toDecimal(`${plain}${scale ? '' : '.'}000`, 'amount')).toBe(canonical);
          expect(toDecimal(`${plain}e0`, 'amount')).toBe(canonical);
          expect(canonical).not.toMatch(/e|E|\.$|\.\d*0$|^-0$/);
        },
      ),
    );
  });
});

describe('JSON numbers are read from their source text', () => {
  const amountOf = (json: string) =>
    toDecimal((parseJsonExact(json) as { amount: unknown }).amount, 'amount');

  it.each([
    ['0.10000000000000000001', '0.10000000000000000001'],
    ['9007199254740993', '9007199254740993'],
    ['12345678901234567890123456789012345678', '12345678901234567890123456789012345678'],
    ['-0.000000000000000000000000000000000001', '-0.000000000000000000000000000000000001'],
    ['1.10', '1.1'],
    ['1e2', '100'],
  ])('{"amount": %s} → %p', (text, expected) => {
    expect(amountOf(`{"amount": ${text}}`)).toBe(expected);
  });

  it('a number a double holds exactly stays a JS number; any other keeps its text', () => {
    expect(parseJsonExact('[0.1, 12.5, -0, 9007199254740991]')).toEqual([
      0.1,
      12.5,
      -0,
      2 ** 53 - 1,
    ]);
    expect(parseJsonExact('[9007199254740993, 1e400, 1e-400]')).toEqual([
      new JsonNumberText('9007199254740993'),
      new JsonNumberText('1e400'),
      new JsonNumberText('1e-400'),
    ]);
  });

  it('is JSON: invalid text and a key repeated with another value are syntax errors', () => {
    expect(() => parseJsonExact('{"amount": 1,}')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"amount": "1", "amount": "100"}')).toThrow(SyntaxError);
    expect(parseJsonExact('{"a": 1, "a": 1}')).toEqual({ a: 1 });
    const parsed = parseJsonExact('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });
});

describe('toAmount: what a ledger total can hold', () => {
  it('accepts up to 18 fraction digits and |amount| < 10^15', () => {
    expect(toAmount('0.123456789012345678', 'BilledCost')).toBe('0.123456789012345678');
    expect(toAmount('-999999999999999.999999999999999999', 'amount')).toBe(
      '-999999999999999.999999999999999999',
    );
    expect(toAmount(new JsonNumberText('0.100000000000000001'), 'amount')).toBe(
      '0.100000000000000001',
    );
  });

  it.each([
    ['0.1234567890123456789', /more than 18 fraction digits/],
    ['1e15', /magnitude 10\^15/],
    ['-1000000000000000', /magnitude 10\^15/],
    ['9'.repeat(38), /magnitude 10\^15/],
  ])('%p is rejected with a reason naming the field', (input, reason) => {
    const error = rejectionOf(() => toAmount(input, 'BilledCost'));
    expect([error.code, error.field]).toEqual(['invalid-field', 'BilledCost']);
    expect(error.reason).toMatch(reason);
  });

  it("any sum of 100,000 maximal amounts stays within DynamoDB's 38 significant digits", () => {
    const largest = '999999999999999.999999999999999999';
    const total = new Big(largest).times(100_000);
    expect(total.c.length).toBeLessThanOrEqual(38);
  });
});

describe('stringifyJsonExact', () => {
  it('writes back every number as it was read', () => {
    const text = '{"amount":0.10000000000000000001,"n":[9007199254740993,1.5],"s":"x"}';
    expect(stringifyJsonExact(parseJsonExact(text))).toBe(text);
  });
});
