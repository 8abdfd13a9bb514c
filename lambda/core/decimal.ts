import Big from 'big.js';
import { fail } from './errors';

export const MAX_FRACTION_DIGITS = 10;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_TEXT_LENGTH = 64;

Big.DP = MAX_FRACTION_DIGITS;
Big.RM = Big.roundHalfEven;
Big.NE = -1e6;
Big.PE = 1e6;

/**
 * Exact decimal from a JSON number or numeric string, as a canonical string:
 * no exponent, no trailing zeros, `-0` → `0`. More than 10 fraction digits is an error, not a rounding.
 * JSON numbers are read from their shortest round-trip text, which is what the producer wrote.
 */
export const toDecimal = (value: unknown, field: string): string => {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail('invalid-field', field, 'not a finite number');
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim().replace(/_/g, '');
  } else {
    return fail('invalid-field', field, 'expected a decimal number or numeric string');
  }
  if (text.length === 0) return fail('missing-field', field, 'empty amount');
  if (text.length > MAX_TEXT_LENGTH || !DECIMAL_TEXT.test(text)) {
    return fail(
      'invalid-field',
      field,
      `not a decimal number: ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  const exponent = /[eE]([+-]?\d+)$/.exec(text);
  if (exponent && Math.abs(Number(exponent[1])) > 40) {
    return fail('invalid-field', field, 'exponent out of range');
  }
  const big = new Big(text);
  const canonical = formatDecimal(big);
  const fraction = canonical.split('.')[1] ?? '';
  if (fraction.length > MAX_FRACTION_DIGITS) {
    return fail('invalid-field', field, `more than ${MAX_FRACTION_DIGITS} fraction digits`);
  }
  return canonical;
};

/** Canonical text of an exact decimal: plain notation, no trailing zeros, no negative zero. */
export const formatDecimal = (value: Big): string => {
  if (value.eq(0)) return '0';
  const plain = value.toFixed();
  return plain.includes('.') ? plain.replace(/0+$/, '').replace(/\.$/, '') : plain;
};

export const addDecimals = (a: string, b: string): string => formatDecimal(new Big(a).plus(b));
export const subtractDecimals = (a: string, b: string): string =>
  formatDecimal(new Big(a).minus(b));
export const compareDecimals = (a: string, b: string): number => new Big(a).cmp(b);
