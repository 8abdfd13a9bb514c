/**
 * The columns each export format's row mapping reads: a reader that can skip columns (Parquet) decodes
 * only these, so a 125-column CUR file costs about its 13 mapped columns, and a MAP column (`product`,
 * `resource_tags`, `cost_category`, `discount`) is never decoded unless a mapped field lives there.
 *
 * The lists are the mapping's own: CUR's are the `CurColumnNames` of `formats/cost-cur.ts`, FOCUS's the
 * columns `parseFocusRow` looks at (`test/unit/exports/columns-read.test.ts` checks, with a spy on the
 * cells, that the parsers read nothing outside them).
 */
import { CUR_LEGACY_CSV, CUR_SNAKE_CASE } from '../formats/cost-cur';
import type { ExportColumnFormat } from './column-format';

/** Every column `parseFocusRow` and `focusChargeService` may read. */
export const FOCUS_COLUMNS_READ: readonly string[] = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'CommitmentDiscountId',
  'ConsumedQuantity',
  'ConsumedUnit',
  'InvoiceId',
  'PricingCategory',
  'ProviderName',
  'RegionId',
  'ResourceId',
  'ServiceName',
  'ServiceProviderName',
  'SkuId',
  'SkuPriceId',
  'SubAccountId',
  'Tags',
  'x_ServiceCode',
];

export const COLUMNS_READ: Readonly<Record<ExportColumnFormat, readonly string[]>> = {
  focus: FOCUS_COLUMNS_READ,
  cur: Object.values(CUR_SNAKE_CASE),
  'cur-legacy-csv': Object.values(CUR_LEGACY_CSV),
};

/** The columns of `available` (a file's, in its order) that the format's mapping reads. */
export const columnsToRead = (
  format: ExportColumnFormat,
  available: readonly string[],
): string[] => {
  const read = new Set(COLUMNS_READ[format]);
  return available.filter((name) => read.has(name));
};
