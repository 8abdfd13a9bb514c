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

const fractionDigits = (canonical: string): number => {
  const dot = canonical.indexOf('.');
  return dot < 0 ? 0 : canonical.length - dot - 1;
};

/** Digits before the point of a canonical decimal, without its sign (`-12.5` → 2, `0.5` → 1). */
const integerDigits = (canonical: string): number => {
  const dot = canonical.indexOf('.');
  return (dot < 0 ? canonical.length : dot) - (canonical.startsWith('-') ? 1 : 0);
};

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

interface Canonical {
  text: string;
  /** Digits from the first to the last non-zero one (1 for zero), as big.js counts its coefficient. */
  significantDigits: number;
}

/** `-0012.300` → `-12.3` by string operations: the common case, without a big.js object. */
const canonicalOfPlain = ([, sign, whole, fraction = '']: RegExpExecArray): Canonical => {
  const integer = whole.replace(/^0+/, '');
  const decimals = fraction.replace(/0+$/, '');
  const coefficient = (integer + decimals).replace(/^0+/, '').replace(/0+$/, '');
  if (coefficient === '') return { text: '0', significantDigits: 1 };
  return {
    text: `${sign}${integer === '' ? '0' : integer}${decimals === '' ? '' : `.${decimals}`}`,
    significantDigits: coefficient.length,
  };
};

const canonicalOfBig = (text: string): Canonical => {
  const big = new Big(text.replace(/^\+/, ''));
  return { text: formatDecimal(big), significantDigits: big.c.length };
};

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
  const plain = PLAIN_DECIMAL.exec(text);
  const exponent = plain ? null : /[eE]([+-]?\d+)$/.exec(text);
  if (exponent && Math.abs(Number(exponent[1])) > MAX_EXPONENT) {
    return fail('invalid-field', field, 'exponent out of range');
  }
  const { text: canonical, significantDigits } = plain
    ? canonicalOfPlain(plain)
    : canonicalOfBig(text);
  if (significantDigits > MAX_SIGNIFICANT_DIGITS) {
    return fail(
      'invalid-field',
      field,
      `more than ${MAX_SIGNIFICANT_DIGITS} significant digits (the most DynamoDB stores exactly)`,
    );
  }
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
  if (integerDigits(amount) > MAX_AMOUNT_INTEGER_DIGITS) {
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

/**
 * An exact decimal as an integer count of 10^-scale (`1.5`, scale 18 → 1500000000000000000n), for sums
 * that add millions of amounts without allocating a decimal object per addition. A decimal with more
 * than `scale` fraction digits cannot be held exactly: that is a programming error, never a rounding.
 */
export const toScaledInteger = (decimal: string, scale: number = MAX_FRACTION_DIGITS): bigint => {
  const plain = PLAIN_DECIMAL.exec(decimal) ?? PLAIN_DECIMAL.exec(formatDecimal(new Big(decimal)));
  const [, sign, whole, fraction = ''] = plain ?? [];
  if (whole === undefined || fraction.replace(/0+$/, '').length > scale) {
    throw new RangeError(`${decimal} has more than ${scale} fraction digits`);
  }
  const digits = BigInt(whole + fraction.slice(0, scale).padEnd(scale, '0'));
  return sign === '-' ? -digits : digits;
};

/** Canonical text of an integer count of 10^-scale (the inverse of `toScaledInteger`). */
export const fromScaledInteger = (scaled: bigint, scale: number = MAX_FRACTION_DIGITS): string => {
  if (scaled === 0n) return '0';
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
};
