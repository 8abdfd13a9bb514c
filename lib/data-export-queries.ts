/**
 * What the exports the stack creates select. Data Exports needs the columns named (no `SELECT *`);
 * these are the columns the export readers book from (test/infra/data-exports.test.ts checks that
 * every column a reader requires is here), plus the line item's identity for tracing a row back.
 * Fewer columns make smaller files: a full CUR 2.0 row has about 125.
 */
import type { DataExportConfig, DataExportGranularity } from './data-export-config';

/** Data Exports table names (Data Exports table dictionary). */
export const DATA_EXPORT_TABLE_NAMES = {
  cur2: 'COST_AND_USAGE_REPORT',
  focus: 'FOCUS_1_0_AWS',
} as const;

export const CUR2_COLUMNS = [
  'identity_line_item_id',
  'identity_time_interval',
  'bill_invoice_id',
  'bill_payer_account_id',
  'bill_billing_period_start_date',
  'bill_billing_period_end_date',
  'line_item_usage_account_id',
  'line_item_line_item_type',
  'line_item_product_code',
  'line_item_usage_type',
  'line_item_line_item_description',
  'line_item_usage_start_date',
  'line_item_usage_end_date',
  'line_item_currency_code',
  'line_item_unblended_cost',
  'line_item_net_unblended_cost',
] as const;

export const FOCUS_COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'BillingPeriodEnd',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargeFrequency',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'CommitmentDiscountId',
  'ConsumedQuantity',
  'ConsumedUnit',
  'PricingCategory',
  'ProviderName',
  'RegionId',
  'ResourceId',
  'ServiceName',
  'SkuId',
  'SkuPriceId',
  'SubAccountId',
  'Tags',
  // AWS's extension column: the product code, the service name CUR rows carry too.
  'x_ServiceCode',
] as const;

/**
 * Columns a reader can use that these exports leave out, and why: FOCUS 1.0 has no InvoiceId (FOCUS
 * 1.2) nor ServiceProviderName (1.3); CUR 2.0 is exported without per-resource rows, so without
 * line_item_resource_id.
 */
export const NOT_SELECTED = ['InvoiceId', 'ServiceProviderName', 'line_item_resource_id'] as const;

export interface DataQuery {
  readonly queryStatement: string;
  readonly tableConfigurations?: Record<string, Record<string, string>>;
}

const GRANULARITY: Record<DataExportGranularity, string> = {
  hourly: 'HOURLY',
  daily: 'DAILY',
  monthly: 'MONTHLY',
};

export function dataQueryOf(entry: DataExportConfig): DataQuery {
  if (entry.table === 'focus') {
    return {
      queryStatement: `SELECT ${FOCUS_COLUMNS.join(', ')} FROM ${DATA_EXPORT_TABLE_NAMES.focus}`,
    };
  }
  return {
    queryStatement: `SELECT ${CUR2_COLUMNS.join(', ')} FROM ${DATA_EXPORT_TABLE_NAMES.cur2}`,
    tableConfigurations: {
      [DATA_EXPORT_TABLE_NAMES.cur2]: {
        TIME_GRANULARITY: GRANULARITY[entry.granularity ?? 'daily'],
        // Per-resource rows multiply the row count; the ledger books per account, month and service.
        INCLUDE_RESOURCES: 'FALSE',
        INCLUDE_MANUAL_DISCOUNT_COMPATIBILITY: 'FALSE',
        // Split cost allocation rows are informational only and never added to totals.
        INCLUDE_SPLIT_COST_ALLOCATION_DATA: 'FALSE',
      },
    },
  };
}
