import Big from 'big.js';
import { fail } from './errors';
import { JsonNumberText } from './json';

/** DynamoDB numbers hold 38 significant digits: no decimal we accept carries more. */
export const MAX_SIGNIFICANT_DIGITS = 38;
/** Fraction digits of a ledger amount (FOCUS exports carry 11–15). */
export const MAX_FRACTION_DIGITS = 18;
/**
 * |amount| < 10^15. With at most 18 fraction digits a ledger total keeps 38 − 18 = 20 integer digits:
 * room for 100,000 charges of the largest amount, and for any realistic total in any currency.
 */
export const MAX_AMOUNT_INTEGER_DIGITS = 15;

const AMOUNT_LIMIT = new Big(10).pow(MAX_AMOUNT_INTEGER_DIGITS);
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_TEXT_LENGTH = 100;
const MAX_EXPONENT = 40;

Big.DP = MAX_FRACTION_DIGITS;
Big.RM = Big.roundHalfEven;
Big.NE = -1e6;
Big.PE = 1e6;

const decimalText = (value: unknown, field: string): string => {
  if (value instanceof JsonNumberText) return value.text;
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? String(value)
      : fail('invalid-field', field, 'not a finite number');
  }
  if (typeof value === 'string') return value.trim().replace(/_/g, '');
  return fail('invalid-field', field, 'expected a decimal number or numeric string');
};

const fractionDigits = (canonical: string): number => (canonical.split('.')[1] ?? '').length;

/**
 * Exact decimal from a JSON number (read from its source text, see `json.ts`) or a numeric string, as a
 * canonical string: no exponent, no leading `+`, no trailing zeros, `-0` → `0`. At most 38 significant
 * digits and 38 fraction digits; beyond is an error, never a rounding.
 */
export const toDecimal = (value: unknown, field: string): string => {
  const text = decimalText(value, field);
  if (text.length === 0) return fail('missing-field', field, 'empty amount');
  if (text.length > MAX_TEXT_LENGTH || !DECIMAL_TEXT.test(text)) {
    return fail(
      'invalid-field',
      field,
      `not a decimal number: ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  const exponent = /[eE]([+-]?\d+)$/.exec(text);
  if (exponent && Math.abs(Number(exponent[1])) > MAX_EXPONENT) {
    return fail('invalid-field', field, 'exponent out of range');
  }
  const big = new Big(text.replace(/^\+/, ''));
  if (big.c.length > MAX_SIGNIFICANT_DIGITS) {
    return fail(
      'invalid-field',
      field,
      `more than ${MAX_SIGNIFICANT_DIGITS} significant digits (the most DynamoDB stores exactly)`,
    );
  }
  const canonical = formatDecimal(big);
  if (fractionDigits(canonical) > MAX_SIGNIFICANT_DIGITS) {
    return fail('invalid-field', field, `more than ${MAX_SIGNIFICANT_DIGITS} fraction digits`);
  }
  return canonical;
};

/**
 * A ledger amount: an exact decimal with at most 18 fraction digits and |amount| < 10^15, so that no
 * total of a ledger partition can outgrow DynamoDB's 38 digits.
 */
export const toAmount = (value: unknown, field: string): string => {
  const amount = toDecimal(value, field);
  if (fractionDigits(amount) > MAX_FRACTION_DIGITS) {
    return fail(
      'invalid-field',
      field,
      `more than ${MAX_FRACTION_DIGITS} fraction digits (amounts are never rounded; send at most ${MAX_FRACTION_DIGITS})`,
    );
  }
  if (new Big(amount).abs().gte(AMOUNT_LIMIT)) {
    return fail(
      'invalid-field',
      field,
      `magnitude 10^${MAX_AMOUNT_INTEGER_DIGITS} or more: not a billable amount (ledger totals must stay within DynamoDB's 38 digits)`,
    );
  }
  return amount;
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
