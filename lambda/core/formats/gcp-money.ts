/**
 * A GCP amount as Google's notifications spell it: either a `google.type.Money` object
 * (`{"currencyCode": "USD", "units": "1", "nanos": 988106832}`: whole units as an int64, usually a
 * string, plus billionths with the same sign) or a plain decimal (a JSON number read from its text, or
 * a numeric string) that carries no currency. Exact either way: `units` + `nanos` / 10^9 is string
 * arithmetic, never a float.
 */
import { addDecimals, toDecimal } from '../decimal';
import { fail } from '../errors';
import { JsonNumberText } from '../json';
import { isBlank, isObject, optionalCurrency, own, preview } from './fields';

export interface GcpAmount {
  amount: string;
  /** The Money object's currencyCode; absent for a plain number or a Money without one. */
  currency?: string;
}

const MAX_NANOS = 999_999_999n;
const INTEGER = /^-?\d+$/;

const wholeNumber = (value: unknown, field: string): bigint => {
  const text = toDecimal(value, field);
  if (!INTEGER.test(text)) return fail('invalid-field', field, `not a whole number: ${text}`);
  return BigInt(text);
};

/** `-750000000` → `-0.75`: billionths as an exact decimal. */
const nanosAsDecimal = (nanos: bigint): string => {
  const digits = (nanos < 0n ? -nanos : nanos).toString().padStart(9, '0');
  return `${nanos < 0n ? '-' : ''}0.${digits}`;
};

const moneyAmount = (money: Record<string, unknown>, field: string): GcpAmount => {
  const unitsValue = own(money, 'units');
  const nanosValue = own(money, 'nanos');
  if (isBlank(unitsValue) && isBlank(nanosValue))
    return fail('missing-field', `${field}.units`, 'a Money amount needs units or nanos');
  const units = isBlank(unitsValue) ? 0n : wholeNumber(unitsValue, `${field}.units`);
  const nanos = isBlank(nanosValue) ? 0n : wholeNumber(nanosValue, `${field}.nanos`);
  if (nanos > MAX_NANOS || nanos < -MAX_NANOS)
    return fail('invalid-field', `${field}.nanos`, `out of range ±999999999: ${nanos}`);
  if ((units > 0n && nanos < 0n) || (units < 0n && nanos > 0n))
    return fail('invalid-field', `${field}.nanos`, 'must have the sign of units');
  const currency = optionalCurrency(own(money, 'currencyCode'), `${field}.currencyCode`);
  return {
    amount: addDecimals(units.toString(), nanosAsDecimal(nanos)),
    ...(currency === undefined ? {} : { currency }),
  };
};

export const optionalGcpAmount = (value: unknown, field: string): GcpAmount | undefined => {
  if (isBlank(value)) return undefined;
  if (isObject(value) && !(value instanceof JsonNumberText)) return moneyAmount(value, field);
  if (Array.isArray(value))
    return fail('invalid-field', field, `expected an amount, got ${preview(value)}`);
  return { amount: toDecimal(value, field) };
};

export const requiredGcpAmount = (value: unknown, field: string): GcpAmount =>
  optionalGcpAmount(value, field) ?? fail('missing-field', field, 'required');
