/**
 * What the columnar path decides about one distinct cell value of a column: the value the row mapping
 * would take from it (a code of a total's dimension, an exact amount, an instant, …), `BLANK`, or
 * `ROW_PATH` when the mapping's own check throws on it. The checks are the row mapping's field
 * readers themselves (`formats/fields.ts`), so a value passes here exactly when it passes there; a row
 * with a `ROW_PATH` value, or any other doubt, is handed to the row mapping (`normalizeExportRow`),
 * which then decides it, rejection text and all.
 */
import { requiredAmount } from '../../formats/fields';
import { exactAmountOf, plainSmallAmount, type ExactAmount } from './exact-sum';
import type { ExportColumnFormat } from '../column-format';
import type { Dimension } from './group-totals';

/** The row mapping would throw on this value (or might): the row goes to the row path. */
export const ROW_PATH: unique symbol = Symbol('row path');
/** The cell is blank (the mapping then reads another column, or nothing). */
export const BLANK: unique symbol = Symbol('blank');

export type Check = (value: unknown) => unknown;

/** `read(value)`, or `ROW_PATH` when it throws. */
export const attempt =
  (read: (value: unknown) => unknown): Check =>
  (value) => {
    try {
      return read(value);
    } catch {
      return ROW_PATH;
    }
  };

/** A required ledger amount, exact (the common plain text read without `toAmount`, same result). */
export const amountCheck = (column: string): Check => {
  const read = attempt((value): ExactAmount => exactAmountOf(requiredAmount(value, column)));
  return (value) => (typeof value === 'string' && plainSmallAmount(value)) || read(value);
};

/** The code, in `dimension`, of what `read` makes of the value (undefined stays undefined). */
export const codeCheck =
  (dimension: Dimension, read: (value: unknown) => string | undefined, absent?: null): Check =>
  (value) => {
    let text: string | undefined;
    try {
      text = read(value);
    } catch {
      return ROW_PATH;
    }
    if (text !== undefined) return dimension.codeOf(text);
    return absent === null ? dimension.codeOf(null) : undefined;
  };

/** What a columnar mapping books from a row that needs no row path. */
export interface Booking {
  /** One code per dimension of `GROUP_DIMENSIONS`. */
  codes: number[];
  amount: ExactAmount;
}

/**
 * A format's columnar mapping over the columns `columns` (in that order, those of the file; a column
 * the file lacks is blank in every row): one check per column, and `decide`, which reads a row's
 * outcomes (`outcomes[i]` of `columns[i]`) and either fills `booking` and returns true, or returns
 * false for the row path.
 */
export interface ColumnarMapping {
  format: ExportColumnFormat;
  columns: readonly string[];
  checks: readonly Check[];
  decide(outcomes: readonly unknown[], booking: Booking): boolean;
}
