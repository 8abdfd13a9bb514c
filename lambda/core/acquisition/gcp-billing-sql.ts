/**
 * The two queries the Google Cloud acquisition runs on a billing export table (standard
 * `gcp_billing_export_v1_*` or detailed `gcp_billing_export_resource_v1_*`; both have the columns read):
 *
 * - the change probe: per ingestion partition (`_PARTITIONTIME`, a day) and invoice month, the latest
 *   `export_time` over the trailing days. The export only appends (a correction is a new row), so a
 *   (partition, month) whose latest export_time moved has new rows for that month;
 * - one invoice month: every row with `invoice.month = 'YYYYMM'`, only the columns the FOCUS files need
 *   (BigQuery bills the columns a query reads). Money stays text: `cost` and each credit's `amount` as
 *   the API writes them, summed exactly later (`gcp-billing-rows.ts`).
 */
import { BIGQUERY_TABLE_PATTERN } from '../../../contract/gcp-acquisition';
import { fail } from '../errors';

const INVOICE_MONTH = /^\d{4}(0[1-9]|1[0-2])$/;

export const isBillingTable = (table: string): boolean => BIGQUERY_TABLE_PATTERN.test(table);

const quoted = (table: string): string => {
  if (!BIGQUERY_TABLE_PATTERN.test(table))
    fail(
      'invalid-field',
      'table',
      `expected <project>.<dataset>.<table>, got ${JSON.stringify(table)}`,
    );
  return `\`${table}\``;
};

/** Result columns of the change probe, in order. */
export const CHANGE_COLUMNS = ['partition_day', 'invoice_month', 'max_export_time'] as const;

export const changeProbeSql = (table: string, trailingDays: number): string => {
  if (!Number.isSafeInteger(trailingDays) || trailingDays < 1 || trailingDays > 400)
    fail('invalid-field', 'trailingDays', 'a whole number of days, 1 to 400');
  return [
    'SELECT',
    "  FORMAT_DATE('%F', DATE(_PARTITIONTIME)) AS partition_day,",
    '  invoice.month AS invoice_month,',
    "  FORMAT_TIMESTAMP('%FT%H:%M:%E6SZ', MAX(export_time)) AS max_export_time",
    `FROM ${quoted(table)}`,
    `WHERE _PARTITIONTIME >= TIMESTAMP_SUB(TIMESTAMP_TRUNC(CURRENT_TIMESTAMP(), DAY), INTERVAL ${trailingDays} DAY)`,
    'GROUP BY partition_day, invoice_month',
  ].join('\n');
};

/** Result columns of the month query, in order. */
export const MONTH_COLUMNS = [
  'billing_account_id',
  'project_id',
  'service',
  'sku_id',
  'sku',
  'region',
  'usage_start_time',
  'usage_end_time',
  'cost_type',
  'currency',
  'cost',
  'credit_amounts',
  'usage_amount_in_pricing_units',
  'pricing_unit',
] as const;

export const monthSql = (table: string, invoiceMonth: string): string => {
  if (!INVOICE_MONTH.test(invoiceMonth))
    fail('invalid-field', 'invoiceMonth', `expected YYYYMM, got ${JSON.stringify(invoiceMonth)}`);
  return [
    'SELECT',
    '  billing_account_id,',
    '  project.id AS project_id,',
    '  service.description AS service,',
    '  sku.id AS sku_id,',
    '  sku.description AS sku,',
    '  location.region AS region,',
    "  FORMAT_TIMESTAMP('%FT%H:%M:%E6SZ', usage_start_time) AS usage_start_time,",
    "  FORMAT_TIMESTAMP('%FT%H:%M:%E6SZ', usage_end_time) AS usage_end_time,",
    '  cost_type,',
    '  currency,',
    '  cost,',
    '  ARRAY(SELECT c.amount FROM UNNEST(credits) AS c) AS credit_amounts,',
    '  usage.amount_in_pricing_units AS usage_amount_in_pricing_units,',
    '  usage.pricing_unit AS pricing_unit',
    `FROM ${quoted(table)}`,
    `WHERE invoice.month = '${invoiceMonth}'`,
  ].join('\n');
};

/** `YYYY-MM` ↔ `YYYYMM`. */
export const invoiceMonthOf = (period: string): string => period.replace('-', '');
export const periodOfInvoiceMonth = (month: string): string =>
  INVOICE_MONTH.test(month)
    ? `${month.slice(0, 4)}-${month.slice(4)}`
    : fail('invalid-field', 'invoice.month', `expected YYYYMM, got ${JSON.stringify(month)}`);
