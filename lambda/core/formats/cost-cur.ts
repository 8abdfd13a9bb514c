/**
 * One AWS Cost and Usage Report row → a cost event, for CUR 2.0 (Data Exports), the legacy CUR's
 * Parquet files (the same snake_case names) and the legacy CUR's CSV (`lineItem/UnblendedCost`, …).
 * The mapping (docs/exports.md#cost-and-usage-reports):
 * - amount: what AWS's FOCUS export calls BilledCost for the row — the net unblended cost where the
 *   file has that column and the cell is not empty, else the unblended cost. E-notation cells
 *   (`-7.0E-10`) are read exactly.
 * - account: the usage account; billing account: the payer. Ids are text (leading zeros kept).
 * - period: the billing period start (UTC month); charge period: the usage start and end, else the
 *   billing period start.
 * - currency: the line item's currency code; service: the product code.
 * - charge category: from the line item type (`CHARGE_CATEGORY_OF_LINE_ITEM_TYPE`); a type not in the
 *   table is an adjustment — every row counts, so an unknown type is never a reason to drop money.
 * Split cost allocation columns (`split_line_item_*`) are never read: they re-divide costs already in
 * the rows, they are not charges.
 * A row is rejected only when it cannot be booked: its amount is not a decimal, or it has no account,
 * currency or billing period.
 */
import type { ChargeCategory, CostEvent } from '../events';
import { finishCostEvent } from './cost-common';
import {
  isBlank,
  optionalIdentifier,
  optionalInstant,
  optionalString,
  own,
  requiredAmount,
  requiredCurrency,
  requiredIdentifier,
  requiredInstant,
  type JsonObject,
} from './fields';
import { resolveTenant } from './scope';

export interface CurColumnNames {
  unblendedCost: string;
  netUnblendedCost: string;
  usageAccountId: string;
  payerAccountId: string;
  billingPeriodStart: string;
  usageStart: string;
  usageEnd: string;
  currency: string;
  lineItemType: string;
  productCode: string;
  resourceId: string;
  description: string;
  invoiceId: string;
}

/** CUR 2.0 and the legacy CUR's Parquet (Athena) files. */
export const CUR_SNAKE_CASE: CurColumnNames = {
  unblendedCost: 'line_item_unblended_cost',
  netUnblendedCost: 'line_item_net_unblended_cost',
  usageAccountId: 'line_item_usage_account_id',
  payerAccountId: 'bill_payer_account_id',
  billingPeriodStart: 'bill_billing_period_start_date',
  usageStart: 'line_item_usage_start_date',
  usageEnd: 'line_item_usage_end_date',
  currency: 'line_item_currency_code',
  lineItemType: 'line_item_line_item_type',
  productCode: 'line_item_product_code',
  resourceId: 'line_item_resource_id',
  description: 'line_item_line_item_description',
  invoiceId: 'bill_invoice_id',
};

/** The legacy CUR's CSV files. */
export const CUR_LEGACY_CSV: CurColumnNames = {
  unblendedCost: 'lineItem/UnblendedCost',
  netUnblendedCost: 'lineItem/NetUnblendedCost',
  usageAccountId: 'lineItem/UsageAccountId',
  payerAccountId: 'bill/PayerAccountId',
  billingPeriodStart: 'bill/BillingPeriodStartDate',
  usageStart: 'lineItem/UsageStartDate',
  usageEnd: 'lineItem/UsageEndDate',
  currency: 'lineItem/CurrencyCode',
  lineItemType: 'lineItem/LineItemType',
  productCode: 'lineItem/ProductCode',
  resourceId: 'lineItem/ResourceId',
  description: 'lineItem/LineItemDescription',
  invoiceId: 'bill/InvoiceId',
};

/** AWS line item types (CUR data dictionary, `line_item_line_item_type`) → the ledger's categories. */
export const CHARGE_CATEGORY_OF_LINE_ITEM_TYPE: Readonly<Record<string, ChargeCategory>> = {
  Usage: 'usage',
  DiscountedUsage: 'usage',
  SavingsPlanCoveredUsage: 'usage',
  SavingsPlanNegation: 'usage',
  Fee: 'purchase',
  RIFee: 'purchase',
  SavingsPlanUpfrontFee: 'purchase',
  SavingsPlanRecurringFee: 'purchase',
  Tax: 'tax',
  Credit: 'credit',
  Refund: 'credit',
  BundledDiscount: 'credit',
  Discount: 'credit',
  DistributorDiscount: 'credit',
  EdpDiscount: 'credit',
  PrivateRateDiscount: 'credit',
  RiVolumeDiscount: 'credit',
  SppDiscount: 'credit',
};

const chargeCategoryOf = (type: string | undefined): ChargeCategory =>
  (type !== undefined &&
  Object.prototype.hasOwnProperty.call(CHARGE_CATEGORY_OF_LINE_ITEM_TYPE, type)
    ? CHARGE_CATEGORY_OF_LINE_ITEM_TYPE[type]
    : undefined) ?? 'adjustment';

/** Text of a cell that should be a short label; anything unreadable is treated as absent. */
export const label = (value: unknown, field: string): string | undefined => {
  try {
    return optionalString(value, field, 256);
  } catch {
    return undefined;
  }
};

/** An optional id that is not needed to book the row: unreadable is absent, never a rejection. */
const optionalId = (value: unknown, field: string): string | undefined => {
  try {
    return optionalIdentifier(value, field);
  } catch {
    return undefined;
  }
};

export const parseCurRow = (
  row: JsonObject,
  attributes: Record<string, string>,
  names: CurColumnNames,
): CostEvent => {
  const cell = (name: string): unknown => own(row, name);
  const net = cell(names.netUnblendedCost);
  const [amountColumn, amountCell] = isBlank(net)
    ? [names.unblendedCost, cell(names.unblendedCost)]
    : [names.netUnblendedCost, net];
  const billingPeriodStart = requiredInstant(
    cell(names.billingPeriodStart),
    names.billingPeriodStart,
  );
  const usageStart = optionalInstant(cell(names.usageStart), names.usageStart);
  const usageEnd = optionalInstant(cell(names.usageEnd), names.usageEnd);
  return finishCostEvent(
    {
      tenant: resolveTenant(attributes),
      source: 'aws',
      billingAccountId: optionalId(cell(names.payerAccountId), names.payerAccountId),
      accountId: requiredIdentifier(cell(names.usageAccountId), names.usageAccountId),
      billingPeriodStart,
      chargePeriodStart: usageStart ?? billingPeriodStart,
      chargePeriodEnd:
        usageStart !== undefined && usageEnd !== undefined && usageEnd >= usageStart
          ? usageEnd
          : undefined,
      chargeCategory: chargeCategoryOf(label(cell(names.lineItemType), names.lineItemType)),
      service: label(cell(names.productCode), names.productCode),
      resourceId: optionalId(cell(names.resourceId), names.resourceId),
      invoiceId: optionalId(cell(names.invoiceId), names.invoiceId),
      description: label(cell(names.description), names.description),
      amount: requiredAmount(amountCell, amountColumn),
      currency: requiredCurrency(cell(names.currency), names.currency),
    },
    names.usageEnd,
  );
};
