/**
 * FOCUS 1.x cost-and-usage row as a JSON object keyed by FOCUS column names.
 *
 * Mapping: amount = `BilledCost` (the ledger amount); accountId = `SubAccountId`, else `BillingAccountId`;
 * source = provider slug of `ProviderName` (else `ServiceProviderName` of FOCUS 1.2+, else the `source`
 * attribute); tenant = `tenant` attribute, else `default`. Empty strings are absent values.
 *
 * Deliberately left out of the event (so out of the content hash): `EffectiveCost`, `ListCost`,
 * `ContractedCost` (the ledger books BilledCost; a re-export that only re-amortizes EffectiveCost is the
 * same charge), `SubAccountName`, `BillingPeriodEnd` (derived from BillingPeriodStart), `x_ExportDateTime`
 * and every other `x_*` column (export metadata), and any other column the event has no field for.
 */
import { fail } from '../errors';
import { CHARGE_CATEGORIES, type CostEvent } from '../events';
import {
  isBlank,
  optionalDecimal,
  optionalEnum,
  optionalInstant,
  optionalString,
  optionalTags,
  own,
  requiredCurrency,
  requiredDecimal,
  requiredEnum,
  requiredInstant,
  slugify,
  type JsonObject,
} from './fields';
import { CHARGE_CLASSES, finishCostEvent, hasAnyKey } from './cost-common';
import { resolveSource, resolveTenant } from './scope';

export const FOCUS_MARKERS = [
  'BilledCost',
  'BillingAccountId',
  'SubAccountId',
  'BillingPeriodStart',
  'ChargePeriodStart',
  'ChargeCategory',
  'BillingCurrency',
  'ProviderName',
] as const;

export const looksFocusRow = (message: unknown): boolean => hasAnyKey(message, FOCUS_MARKERS);

const PROVIDERS: readonly [RegExp, string][] = [
  [/^(aws|amazon|amazon web services)( inc\.?)?$/, 'aws'],
  [/^(gcp|google|google cloud|google cloud platform)$/, 'gcp'],
  [/^(azure|microsoft|microsoft azure)$/, 'azure'],
];

/** `AWS` → `aws`, `Google Cloud`/`GCP` → `gcp`, `Microsoft`/`Azure` → `azure`, else the slugified name. */
export const providerSlug = (name: string, field: string): string => {
  const normalized = name.trim().toLowerCase().replace(/\s+/g, ' ');
  const known = PROVIDERS.find(([pattern]) => pattern.test(normalized));
  if (known) return known[1];
  const slug = slugify(normalized);
  return slug === ''
    ? fail('invalid-field', field, 'provider name has no letters or digits')
    : slug;
};

export const parseFocusRow = (row: JsonObject, attributes: Record<string, string>): CostEvent => {
  const text = (column: string): string | undefined => optionalString(own(row, column), column);
  const providerColumn = isBlank(own(row, 'ProviderName')) ? 'ServiceProviderName' : 'ProviderName';
  const provider = text(providerColumn);
  const billingAccountId = text('BillingAccountId');
  const accountId =
    text('SubAccountId') ??
    billingAccountId ??
    fail(
      'missing-field',
      'SubAccountId',
      'required (neither SubAccountId nor BillingAccountId is set)',
    );
  return finishCostEvent(
    {
      tenant: resolveTenant(attributes),
      source:
        provider !== undefined ? providerSlug(provider, providerColumn) : resolveSource(attributes),
      billingAccountId,
      accountId,
      billingPeriodStart: optionalInstant(own(row, 'BillingPeriodStart'), 'BillingPeriodStart'),
      chargePeriodStart: requiredInstant(own(row, 'ChargePeriodStart'), 'ChargePeriodStart'),
      chargePeriodEnd: optionalInstant(own(row, 'ChargePeriodEnd'), 'ChargePeriodEnd'),
      chargeCategory: requiredEnum(own(row, 'ChargeCategory'), 'ChargeCategory', CHARGE_CATEGORIES),
      chargeClass: optionalEnum(own(row, 'ChargeClass'), 'ChargeClass', CHARGE_CLASSES),
      service: text('ServiceName'),
      skuId: text('SkuId'),
      skuPriceId: text('SkuPriceId'),
      resourceId: text('ResourceId'),
      region: text('RegionId'),
      invoiceId: text('InvoiceId'),
      description: text('ChargeDescription'),
      pricingCategory: text('PricingCategory')?.toLowerCase(),
      chargeFrequency: text('ChargeFrequency')?.toLowerCase(),
      commitmentDiscountId: text('CommitmentDiscountId'),
      amount: requiredDecimal(own(row, 'BilledCost'), 'BilledCost'),
      currency: requiredCurrency(own(row, 'BillingCurrency'), 'BillingCurrency'),
      usageQuantity: optionalDecimal(own(row, 'ConsumedQuantity'), 'ConsumedQuantity'),
      usageUnit: text('ConsumedUnit'),
      tags: optionalTags(own(row, 'Tags'), 'Tags'),
    },
    'ChargePeriodEnd',
  );
};
