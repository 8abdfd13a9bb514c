/**
 * The original Python design's BillingEvent (snake_case).
 *
 * Required: `account_id`, `sku_id`, `usage_start_time`, `cost_type`, `amount`, `currency`.
 * Optional: `project_id`, `usage_end_time`, `service`, `sku_description`, `region`, `resource_id`,
 * `invoice_id`, `usage_amount`, `usage_unit`, `labels` (tags). Other fields are ignored; `message_id` and
 * `publish_time` are transport metadata and never reach the event (so never the hash).
 *
 * - chargeCategory from cost_type: regular → usage, tax → tax, adjustment and rounding_error → adjustment;
 *   `costType` keeps the lower-cased cost_type so a rounding_error never collides with an adjustment.
 * - With `project_id` the event is scoped like a FOCUS row of GCP: accountId = project_id (the sub-account)
 *   and billingAccountId = account_id. Without it, accountId = account_id.
 * - source = `source` attribute, else `legacy`; tenant = `tenant` attribute, else `default`.
 */
import type { ChargeCategory, CostEvent } from '../events';
import { own, requiredEnum, requiredIdentifier, type JsonObject } from './fields';
import { COST_TYPES, finishCostEvent, hasAnyKey, type CostType } from './cost-common';
import { amountFields, fieldReaders, periodFields } from './cost-fields';
import { resolveSource, resolveTenant } from './scope';

export const SNAKE_CASE_MARKERS = [
  'account_id',
  'sku_id',
  'usage_start_time',
  'usage_end_time',
  'cost_type',
] as const;

export const LEGACY_SOURCE = 'legacy';

const CATEGORY_OF: Record<CostType, ChargeCategory> = {
  regular: 'usage',
  tax: 'tax',
  adjustment: 'adjustment',
  rounding_error: 'adjustment',
};

export const looksSnakeCase = (message: unknown): boolean => hasAnyKey(message, SNAKE_CASE_MARKERS);

export const parseSnakeCase = (
  message: JsonObject,
  attributes: Record<string, string>,
): CostEvent => {
  const field = (key: string): unknown => own(message, key);
  const { text, id } = fieldReaders(field);
  const account = requiredIdentifier(own(message, 'account_id'), 'account_id');
  const project = id('project_id');
  const costType = requiredEnum(own(message, 'cost_type'), 'cost_type', COST_TYPES);
  return finishCostEvent(
    {
      tenant: resolveTenant(attributes),
      source: resolveSource(attributes, undefined, LEGACY_SOURCE),
      billingAccountId: project !== undefined ? account : undefined,
      accountId: project ?? account,
      ...periodFields(field, {
        chargePeriodStart: 'usage_start_time',
        chargePeriodEnd: 'usage_end_time',
      }),
      chargeCategory: CATEGORY_OF[costType],
      costType,
      service: text('service'),
      skuId: requiredIdentifier(own(message, 'sku_id'), 'sku_id'),
      resourceId: id('resource_id'),
      region: id('region'),
      invoiceId: id('invoice_id'),
      description: text('sku_description'),
      ...amountFields(field, {
        amount: 'amount',
        currency: 'currency',
        usageQuantity: 'usage_amount',
        usageUnit: 'usage_unit',
        tags: 'labels',
      }),
    },
    'usage_end_time',
  );
};
