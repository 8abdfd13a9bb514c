/**
 * An exact running sum of ledger amounts without a BigInt per addition. An amount of at most 15 digits
 * (most of them) is held as an integer of 10^-scale units in a double, which is exact below 2^53; the
 * sums of each scale are doubles too, moved into one BigInt of 10^-18 units before they could pass
 * 2^53. Any other amount is added as a BigInt of 10^-18 units. The total is exact either way.
 */
import { MAX_FRACTION_DIGITS, toScaledInteger } from '../../decimal';

/** An amount as `units` × 10^-`scale`, `units` a safe integer of at most 15 digits; or 10^-18 units. */
export type ExactAmount = { units: number; scale: number } | bigint;

const MAX_SMALL_DIGITS = 15;
/** A per-scale sum is moved into the BigInt once it reaches this (|amount| < 10^15 < 2^50: no overflow). */
const FLUSH_AT = 2 ** 52;

const POWERS = Array.from(
  { length: MAX_FRACTION_DIGITS + 1 },
  (_, scale) => 10n ** BigInt(MAX_FRACTION_DIGITS - scale),
);

/**
 * A canonical ledger amount (the text `toAmount` returns: no exponent, no trailing fraction zeros)
 * as an `ExactAmount`.
 */
export const exactAmountOf = (canonical: string): ExactAmount => {
  const dot = canonical.indexOf('.');
  const scale = dot < 0 ? 0 : canonical.length - dot - 1;
  const digits = dot < 0 ? canonical : canonical.slice(0, dot) + canonical.slice(dot + 1);
  const count = digits.length - (digits.startsWith('-') ? 1 : 0);
  if (count <= MAX_SMALL_DIGITS && scale <= MAX_FRACTION_DIGITS) {
    return { units: Number(digits), scale };
  }
  return toScaledInteger(canonical);
};

/** `units` × 10^-`scale` as 10^-18 units. */
export const scaledUnits = (units: number, scale: number): bigint => BigInt(units) * POWERS[scale];

export class ExactSum {
  private readonly small = new Float64Array(MAX_FRACTION_DIGITS + 1);
  private big = 0n;

  add(amount: ExactAmount): void {
    if (typeof amount === 'bigint') {
      this.big += amount;
      return;
    }
    const { scale } = amount;
    const sum = this.small[scale] + amount.units;
    if (sum >= FLUSH_AT || sum <= -FLUSH_AT) {
      this.big += scaledUnits(sum, scale);
      this.small[scale] = 0;
    } else {
      this.small[scale] = sum;
    }
  }

  /** The exact total in 10^-18 units. */
  total(): bigint {
    let total = this.big;
    for (let scale = 0; scale <= MAX_FRACTION_DIGITS; scale += 1) {
      if (this.small[scale] !== 0) total += scaledUnits(this.small[scale], scale);
    }
    return total;
  }
}

const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const POINT = 0x2e;
/** The longest text `toDecimal` reads. */
const MAX_TEXT_LENGTH = 100;

/**
 * A plain decimal text (`-0012.3400`: optional minus, digits, optionally a point and digits, nothing
 * else) whose value has at most 15 digits and at most 15 before the point, as an `ExactAmount`;
 * undefined for any other text. Such a text is one `toAmount` accepts, with the same value.
 */
export const plainSmallAmount = (text: string): ExactAmount | undefined => {
  const length = text.length;
  if (length === 0 || length > MAX_TEXT_LENGTH) return undefined;
  let at = text.charCodeAt(0) === MINUS ? 1 : 0;
  const negative = at === 1;
  const wholeStart = at;
  while (at < length && text.charCodeAt(at) >= ZERO && text.charCodeAt(at) <= NINE) at += 1;
  const wholeEnd = at;
  if (wholeEnd === wholeStart) return undefined;
  let fractionEnd = at;
  if (at < length) {
    if (text.charCodeAt(at) !== POINT) return undefined;
    at += 1;
    const fractionStart = at;
    while (at < length && text.charCodeAt(at) >= ZERO && text.charCodeAt(at) <= NINE) at += 1;
    if (at !== length || at === fractionStart) return undefined;
    fractionEnd = at;
    while (fractionEnd > fractionStart && text.charCodeAt(fractionEnd - 1) === ZERO)
      fractionEnd -= 1;
  }
  let first = wholeStart;
  while (first < wholeEnd && text.charCodeAt(first) === ZERO) first += 1;
  const scale = fractionEnd > wholeEnd ? fractionEnd - wholeEnd - 1 : 0;
  if (wholeEnd - first + scale > MAX_SMALL_DIGITS) return undefined;
  let units = 0;
  for (let each = first; each < fractionEnd; each += 1) {
    if (each !== wholeEnd) units = units * 10 + (text.charCodeAt(each) - ZERO);
  }
  return { units: negative && units !== 0 ? -units : units, scale };
};
