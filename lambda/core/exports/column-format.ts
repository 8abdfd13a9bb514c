/**
 * Which provider format an export file is in, recognised from its columns (a manifest's `columns`, a
 * CSV header, a Parquet schema) — there is no flag to set:
 * - `focus`: FOCUS 1.x (any provider's FOCUS export);
 * - `cur`: AWS Cost and Usage Report with snake_case names — CUR 2.0 (Data Exports) and the legacy
 *   CUR's Parquet (Athena) files, which use the same names for the columns the ledger reads;
 * - `cur-legacy-csv`: the legacy CUR's CSV, with `category/Name` columns (`lineItem/UnblendedCost`).
 * A file whose columns match none of them is refused with a reason that lists what each format needs.
 */
import { fail } from '../errors';

export type ExportColumnFormat = 'focus' | 'cur' | 'cur-legacy-csv';

/** The columns each format must have for its rows to be booked. */
export const REQUIRED_COLUMNS: Readonly<Record<ExportColumnFormat, readonly string[]>> = {
  focus: [
    'BilledCost',
    'BillingAccountId',
    'BillingCurrency',
    'BillingPeriodStart',
    'ChargeCategory',
    'ChargePeriodStart',
    'ChargePeriodEnd',
  ],
  cur: [
    'line_item_unblended_cost',
    'line_item_usage_account_id',
    'line_item_currency_code',
    'bill_billing_period_start_date',
    'line_item_line_item_type',
  ],
  'cur-legacy-csv': [
    'lineItem/UnblendedCost',
    'lineItem/UsageAccountId',
    'lineItem/CurrencyCode',
    'bill/BillingPeriodStartDate',
    'lineItem/LineItemType',
  ],
};

const FORMAT_NAMES: Readonly<Record<ExportColumnFormat, string>> = {
  focus: 'FOCUS',
  cur: 'CUR 2.0 / legacy CUR Parquet',
  'cur-legacy-csv': 'legacy CUR CSV',
};

const FORMATS = Object.keys(REQUIRED_COLUMNS) as ExportColumnFormat[];

const missingOf = (format: ExportColumnFormat, names: ReadonlySet<string>): string[] =>
  REQUIRED_COLUMNS[format].filter((name) => !names.has(name));

/** The format whose required columns are all present, else undefined. */
export const detectColumnFormat = (columns: Iterable<string>): ExportColumnFormat | undefined => {
  const names = new Set(columns);
  return FORMATS.find((format) => missingOf(format, names).length === 0);
};

/** The format most of whose required columns are present (the one the file means to be), if any. */
const closestFormat = (names: ReadonlySet<string>): ExportColumnFormat | undefined => {
  let closest: ExportColumnFormat | undefined;
  let present = 0;
  for (const format of FORMATS) {
    const count = REQUIRED_COLUMNS[format].length - missingOf(format, names).length;
    if (count > present) [closest, present] = [format, count];
  }
  return closest;
};

/**
 * The file's format; a `ValidationError` when no format's required columns are all there, naming what
 * the file lacks for the format it is closest to, or — sharing no required column with any — every
 * format's needs.
 */
export const recognizeColumnFormat = (
  columns: Iterable<string>,
  field = 'columns',
): ExportColumnFormat => {
  const names = new Set(columns);
  const found = FORMATS.find((format) => missingOf(format, names).length === 0);
  if (found !== undefined) return found;
  const meant = closestFormat(names);
  if (meant !== undefined) {
    const missing = missingOf(meant, names).join(', ');
    return fail(
      'missing-field',
      missing,
      `not a complete ${FORMAT_NAMES[meant]} export: missing ${missing} (required: ${REQUIRED_COLUMNS[meant].join(', ')})`,
    );
  }
  return fail(
    'unknown-format',
    field,
    `the columns match no export format we read: ${FORMATS.map(
      (format) => `${FORMAT_NAMES[format]} needs ${REQUIRED_COLUMNS[format].join(', ')}`,
    ).join('; ')}`,
  );
};
