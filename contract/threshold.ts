/**
 * The export-diff threshold (`exportDiffNotifyThreshold`, `EXPORT_DIFF_THRESHOLD`, `export diff
 * --threshold`): an exact decimal ≥ 0, compared with |change|. One rule for synth (lib/config-rules.ts)
 * and the functions and CLI (lambda/core/exports/snapshot.ts), so a value the configuration accepts is
 * one the chunk worker accepts.
 *
 * It accepts exactly what the ledger's decimal parser (`toDecimal` in lambda/core/decimal.ts) accepts,
 * minus negative numbers, and returns the same canonical text (test/unit/threshold.test.ts checks
 * both). Written with string operations only: contract/ imports no library.
 */

/** The same limits as lambda/core/decimal.ts (DynamoDB numbers hold 38 significant digits). */
const MAX_SIGNIFICANT_DIGITS = 38;
const MAX_TEXT_LENGTH = 100;
const MAX_EXPONENT = 40;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const PARTS = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/;

export type ThresholdParse =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly empty: boolean; readonly reason: string };

const refuse = (reason: string, empty = false): ThresholdParse => ({ ok: false, empty, reason });

/** Canonical text of a threshold (`'1.50'` → `'1.5'`, `'1e2'` → `'100'`), or why it is refused. */
export function parseThresholdText(input: string): ThresholdParse {
  const text = input.trim().replace(/_/g, '');
  if (text.length === 0) return refuse('empty amount', true);
  if (text.length > MAX_TEXT_LENGTH || !DECIMAL_TEXT.test(text))
    return refuse(`not a decimal number: ${JSON.stringify(text.slice(0, 40))}`);
  const [, sign, whole, fraction, exponentText] = PARTS.exec(text) as RegExpExecArray;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (Math.abs(exponent) > MAX_EXPONENT) return refuse('exponent out of range');
  // All digits, and where the point falls among them once the exponent is applied.
  let digits = whole + fraction;
  let point = whole.length + exponent;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading);
  point -= leading;
  digits = digits.replace(/0+$/, '');
  if (digits === '') return { ok: true, value: '0' };
  if (digits.length > MAX_SIGNIFICANT_DIGITS)
    return refuse(
      `more than ${MAX_SIGNIFICANT_DIGITS} significant digits (the most DynamoDB stores exactly)`,
    );
  const fractionDigits = Math.max(0, digits.length - point);
  if (fractionDigits > MAX_SIGNIFICANT_DIGITS)
    return refuse(`more than ${MAX_SIGNIFICANT_DIGITS} fraction digits`);
  if (sign === '-') return refuse('must be 0 or more (it applies to |change|)');
  const value =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? `${digits}${'0'.repeat(point - digits.length)}`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return { ok: true, value };
}
