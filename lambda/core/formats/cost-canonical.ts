/**
 * Our own canonical cost event: camelCase, the field names of `CostEvent` (see lambda/core/events.ts).
 *
 * Required: `accountId`, `chargePeriodStart`, `chargeCategory`, `amount`, `currency`, and `source`
 * (in the message or as a `source` message attribute). `tenant`: message, else `tenant` attribute, else
 * `default`. A `lineItemId` without `version` is version 1 (the first statement of that line item), so a
 * producer that starts sending versions later restates it with version 2. Unknown fields are ignored.
 */
import { CHARGE_CATEGORIES, type CostEvent } from '../events';
import {
  optionalEnum,
  optionalVersion,
  own,
  requiredEnum,
  requiredIdentifier,
  type JsonObject,
} from './fields';
import { CHARGE_CLASSES, COST_TYPES, finishCostEvent, hasAnyKey } from './cost-common';
import { amountFields, fieldReaders, periodFields } from './cost-fields';
import { resolveSource, resolveTenant } from './scope';

/** Keys only the canonical shape has (`amount`/`currency` are shared with snake_case). */
export const CANONICAL_COST_MARKERS = [
  'accountId',
  'billingAccountId',
  'chargePeriodStart',
  'chargePeriodEnd',
  'chargeCategory',
  'lineItemId',
  'eventId',
  'skuId',
  'usageQuantity',
] as const;

export const looksCanonicalCost = (message: unknown): boolean =>
  hasAnyKey(message, CANONICAL_COST_MARKERS);

export const parseCanonicalCost = (
  message: JsonObject,
  attributes: Record<string, string>,
): CostEvent => {
  const field = (key: string): unknown => own(message, key);
  const { text, id } = fieldReaders(field);
  const lineItemId = id('lineItemId');
  const version =
    optionalVersion(own(message, 'version'), 'version') ??
    (lineItemId !== undefined ? 1 : undefined);
  return finishCostEvent(
    {
      tenant: resolveTenant(attributes, own(message, 'tenant')),
      source: resolveSource(attributes, own(message, 'source')),
      eventId: id('eventId'),
      lineItemId,
      version,
      billingAccountId: id('billingAccountId'),
      accountId: requiredIdentifier(own(message, 'accountId'), 'accountId'),
      ...periodFields(field, {
        billingPeriodStart: 'billingPeriodStart',
        chargePeriodStart: 'chargePeriodStart',
        chargePeriodEnd: 'chargePeriodEnd',
      }),
      chargeCategory: requiredEnum(
        own(message, 'chargeCategory'),
        'chargeCategory',
        CHARGE_CATEGORIES,
      ),
      chargeClass: optionalEnum(own(message, 'chargeClass'), 'chargeClass', CHARGE_CLASSES),
      costType: optionalEnum(own(message, 'costType'), 'costType', COST_TYPES),
      service: text('service'),
      skuId: id('skuId'),
      skuPriceId: id('skuPriceId'),
      resourceId: id('resourceId'),
      region: id('region'),
      invoiceId: id('invoiceId'),
      pricingCategory: text('pricingCategory')?.toLowerCase(),
      chargeFrequency: text('chargeFrequency')?.toLowerCase(),
      commitmentDiscountId: id('commitmentDiscountId'),
      description: text('description'),
      ...amountFields(field, {
        amount: 'amount',
        currency: 'currency',
        usageQuantity: 'usageQuantity',
        usageUnit: 'usageUnit',
        tags: 'tags',
      }),
    },
    'chargePeriodEnd',
  );
};
