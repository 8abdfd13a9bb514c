/**
 * The sample's AWS Cost and Usage Report files, written as AWS writes them: CUR 2.0 (Data Exports,
 * snake_case columns, `product` and `resource_tags` as JSON text, a `split_line_item_*` column that is
 * never added) as CSV.gz, and the legacy CUR's CSV (`category/Name` columns). The format is recognised
 * by the pipeline from these columns; the sample's rows carry FOCUS service names, written here as AWS
 * product codes.
 */
import { gzipSync } from 'node:zlib';
import type { SampleExportRow } from '../scenarios/sample';

export type CurSampleFormat = 'cur2' | 'legacy-cur';

const PRODUCT_CODES: Readonly<Record<string, string>> = {
  'Amazon Elastic Compute Cloud': 'AmazonEC2',
  'Amazon Simple Storage Service': 'AmazonS3',
  'AWS Lambda': 'AWSLambda',
  'Amazon Relational Database Service': 'AmazonRDS',
};

const CUR2_COLUMNS = [
  'identity_line_item_id',
  'identity_time_interval',
  'bill_bill_type',
  'bill_billing_period_start_date',
  'bill_billing_period_end_date',
  'bill_payer_account_id',
  'line_item_usage_account_id',
  'line_item_line_item_type',
  'line_item_usage_start_date',
  'line_item_usage_end_date',
  'line_item_product_code',
  'line_item_currency_code',
  'line_item_unblended_cost',
  'line_item_net_unblended_cost',
  'product',
  'resource_tags',
  'split_line_item_split_cost',
] as const;

/** The legacy CSV name of each CUR 2.0 column it has (the maps and split columns it has not). */
const LEGACY_NAMES: Partial<Record<(typeof CUR2_COLUMNS)[number], string>> = {
  identity_line_item_id: 'identity/LineItemId',
  identity_time_interval: 'identity/TimeInterval',
  bill_bill_type: 'bill/BillType',
  bill_billing_period_start_date: 'bill/BillingPeriodStartDate',
  bill_billing_period_end_date: 'bill/BillingPeriodEndDate',
  bill_payer_account_id: 'bill/PayerAccountId',
  line_item_usage_account_id: 'lineItem/UsageAccountId',
  line_item_line_item_type: 'lineItem/LineItemType',
  line_item_usage_start_date: 'lineItem/UsageStartDate',
  line_item_usage_end_date: 'lineItem/UsageEndDate',
  line_item_product_code: 'lineItem/ProductCode',
  line_item_currency_code: 'lineItem/CurrencyCode',
  line_item_unblended_cost: 'lineItem/UnblendedCost',
};

const monthStart = (period: string, months = 0): Date => {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1 + months, 1));
};

const csvCell = (value: string): string =>
  /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

const cellsOf = (
  row: SampleExportRow,
  index: number,
  period: string,
): Record<(typeof CUR2_COLUMNS)[number], string> => {
  if (row.kind !== 'valid' || row.amount === null)
    throw new Error('the CUR samples hold valid rows only');
  const start = new Date(monthStart(period).getTime() + row.hour * 3_600_000);
  const end = new Date(start.getTime() + 3_600_000);
  const service = row.service === null ? '' : (PRODUCT_CODES[row.service] ?? row.service);
  return {
    identity_line_item_id: `line-item-${index}`,
    identity_time_interval: `${start.toISOString()}/${end.toISOString()}`,
    bill_bill_type: 'Anniversary',
    bill_billing_period_start_date: monthStart(period).toISOString(),
    bill_billing_period_end_date: monthStart(period, 1).toISOString(),
    bill_payer_account_id: '100000000001',
    line_item_usage_account_id: row.account,
    line_item_line_item_type: 'Usage',
    line_item_usage_start_date: start.toISOString(),
    line_item_usage_end_date: end.toISOString(),
    line_item_product_code: service,
    line_item_currency_code: row.currency,
    line_item_unblended_cost: row.amount,
    // Net cost set on every other row (the amount rule books it where set), equal to the unblended one.
    line_item_net_unblended_cost: index % 2 === 0 ? row.amount : '',
    product: JSON.stringify(row.service === null ? {} : { product_name: row.service }),
    resource_tags: JSON.stringify(index % 3 === 0 ? { user_team: 'payments' } : {}),
    split_line_item_split_cost: index % 4 === 0 ? '1000.5' : '',
  };
};

/** One CUR file of the sample: CUR 2.0 as CSV.gz, or the legacy CUR's CSV. */
export const curExportBytes = (
  format: CurSampleFormat,
  rows: readonly SampleExportRow[],
  period: string,
): Buffer => {
  const columns =
    format === 'cur2' ? [...CUR2_COLUMNS] : CUR2_COLUMNS.filter((name) => LEGACY_NAMES[name]);
  const header = format === 'cur2' ? columns : columns.map((name) => LEGACY_NAMES[name] ?? name);
  const lines = rows.map((row, index) => {
    const cells = cellsOf(row, index, period);
    return columns.map((name) => csvCell(cells[name])).join(',');
  });
  const csv = `${[header.join(','), ...lines].join('\n')}\n`;
  return format === 'cur2' ? gzipSync(csv) : Buffer.from(csv);
};
