/**
 * Rows of the month query (`gcp-billing-sql.ts`, the BigQuery REST API's `{"f": [{"v": …}]}` form) as
 * FOCUS rows, and a page of them as one CSV file the planner reads like any FOCUS export:
 *
 * - BilledCost = `cost` + the sum of `credits[].amount` (credits are negative), exact decimal addition
 *   of the texts the API sends. BigQuery keeps these as FLOAT64: the text is the double's shortest
 *   form; one with more than 18 fraction digits (a float residue such as `2.7755575615628914E-17`) is
 *   rounded half-even to 18 and counted (`rounded`), never silently;
 * - BillingPeriodStart = the invoice month (it can differ from the usage month); the execution's
 *   period is that month;
 * - ChargeCategory from `cost_type`: `regular` → Usage, `tax` → Tax, `adjustment` and
 *   `rounding_error` → Adjustment (tax and adjustment rows are kept: they are on the invoice);
 * - SubAccountId = the project (absent on some tax and adjustment rows: the billing account books them).
 */
import Big from 'big.js';
import { fail } from '../errors';
import { formatDecimal, MAX_FRACTION_DIGITS, toDecimal } from '../decimal';
import { MONTH_COLUMNS, periodOfInvoiceMonth } from './gcp-billing-sql';

/** A BigQuery REST cell: a scalar as text (or null), or a repeated field as a list of cells. */
export interface BigQueryCell {
  v: string | null | BigQueryCell[] | { f: BigQueryCell[] };
}
export interface BigQueryRow {
  f: BigQueryCell[];
}

export const FOCUS_FILE_COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'SubAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'BillingPeriodEnd',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ServiceName',
  'SkuId',
  'ChargeDescription',
  'RegionId',
  'ConsumedQuantity',
  'ConsumedUnit',
  'ProviderName',
] as const;

type FocusColumn = (typeof FOCUS_FILE_COLUMNS)[number];

const CATEGORIES: Readonly<Record<string, string>> = {
  regular: 'Usage',
  tax: 'Tax',
  adjustment: 'Adjustment',
  rounding_error: 'Adjustment',
};

const nextMonthStart = (period: string): string => {
  const [year, month] = period.split('-').map(Number);
  return month === 12
    ? `${year + 1}-01-01T00:00:00Z`
    : `${year}-${String(month + 1).padStart(2, '0')}-01T00:00:00Z`;
};

const scalar = (cell: BigQueryCell | undefined, column: string): string | undefined => {
  const value = cell?.v;
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return fail('invalid-field', column, 'expected a scalar cell');
  return value;
};

/** An exact decimal from the API's text, at most 18 fraction digits (more is rounded, and counted). */
const money = (text: string, field: string, counts: { rounded: number }): string => {
  const exact = toDecimal(text, field);
  const dot = exact.indexOf('.');
  if (dot < 0 || exact.length - dot - 1 <= MAX_FRACTION_DIGITS) return exact;
  counts.rounded++;
  return formatDecimal(new Big(exact).round(MAX_FRACTION_DIGITS, Big.roundHalfEven));
};

export interface PageCounts {
  rows: number;
  /** Amounts with more than 18 fraction digits, rounded half-even to 18. */
  rounded: number;
}

/** One row of the month query as FOCUS cells (`undefined`: empty cell). */
export const focusRowOf = (
  row: BigQueryRow,
  invoiceMonth: string,
  counts: PageCounts = { rows: 0, rounded: 0 },
): Record<FocusColumn, string | undefined> => {
  const cells = new Map(MONTH_COLUMNS.map((name, index) => [name, row.f[index]]));
  if (row.f.length !== MONTH_COLUMNS.length)
    fail('invalid-field', 'row', `expected ${MONTH_COLUMNS.length} cells, got ${row.f.length}`);
  const text = (name: (typeof MONTH_COLUMNS)[number]) => scalar(cells.get(name), name);
  const rawCredits = cells.get('credit_amounts')?.v;
  if (rawCredits !== null && rawCredits !== undefined && !Array.isArray(rawCredits))
    fail('invalid-field', 'credit_amounts', 'expected a repeated field');
  const credits = Array.isArray(rawCredits) ? rawCredits : [];
  let billed = new Big(
    money(text('cost') ?? fail('missing-field', 'cost', 'required'), 'cost', counts),
  );
  for (const [index, credit] of credits.entries()) {
    const amount = scalar(credit, `credits[${index}].amount`);
    if (amount !== undefined)
      billed = billed.plus(money(amount, `credits[${index}].amount`, counts));
  }
  const costType = text('cost_type') ?? 'regular';
  const category =
    CATEGORIES[costType] ??
    fail(
      'invalid-field',
      'cost_type',
      `${JSON.stringify(costType)} is not a cost type we book (regular, tax, adjustment, rounding_error)`,
    );
  const period = periodOfInvoiceMonth(invoiceMonth);
  counts.rows++;
  return {
    BilledCost: formatDecimal(billed),
    BillingAccountId: text('billing_account_id'),
    SubAccountId: text('project_id'),
    BillingCurrency: text('currency'),
    BillingPeriodStart: `${period}-01T00:00:00Z`,
    BillingPeriodEnd: nextMonthStart(period),
    ChargeCategory: category,
    ChargePeriodStart: text('usage_start_time'),
    ChargePeriodEnd: text('usage_end_time'),
    ServiceName: text('service'),
    SkuId: text('sku_id'),
    ChargeDescription: text('sku'),
    RegionId: text('region'),
    ConsumedQuantity: text('usage_amount_in_pricing_units'),
    ConsumedUnit: text('pricing_unit'),
    ProviderName: 'Google Cloud',
  };
};

const csvCell = (value: string | undefined): string =>
  value === undefined ? '' : /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

/** A page of rows as one CSV file (header first), and what it holds. */
export const pageCsv = (
  rows: readonly BigQueryRow[],
  invoiceMonth: string,
): { csv: string; counts: PageCounts; total: Map<string, string> } => {
  const counts: PageCounts = { rows: 0, rounded: 0 };
  const total = new Map<string, string>();
  const lines = [FOCUS_FILE_COLUMNS.join(',')];
  for (const row of rows) {
    const focus = focusRowOf(row, invoiceMonth, counts);
    const currency = focus.BillingCurrency ?? '';
    total.set(
      currency,
      formatDecimal(new Big(total.get(currency) ?? '0').plus(focus.BilledCost as string)),
    );
    lines.push(FOCUS_FILE_COLUMNS.map((column) => csvCell(focus[column])).join(','));
  }
  return { csv: `${lines.join('\n')}\n`, counts, total };
};
