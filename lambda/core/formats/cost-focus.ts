/**
 * FOCUS 1.x cost-and-usage row as a JSON object keyed by FOCUS column names.
 *
 * Mapping: amount = `BilledCost` (the ledger amount); accountId = `SubAccountId`, else `BillingAccountId`;
 * source = provider slug of `ProviderName` (else `ServiceProviderName` of FOCUS 1.2+, else the `source`
 * attribute); tenant = `tenant` attribute, else `default`. Empty strings and the `NULL`, `null` and
 * `(null)` cells that database exports write are absent values. Timestamps without a zone
 * (`2026-11-01 00:00:00`) are UTC, as FOCUS specifies.
 *
 * Deliberately left out of the event (so out of the content hash): `EffectiveCost`, `ListCost`,
 * `ContractedCost` (the ledger books BilledCost; a re-export that only re-amortizes EffectiveCost is the
 * same charge), `SubAccountName`, `BillingPeriodEnd` (derived from BillingPeriodStart), `x_ExportDateTime`
 * and every other `x_*` column (export metadata), and any other column the event has no field for.
 * `x_ServiceCode` (AWS's product code) is not in the event either: it names an export charge's service
 * (`focusChargeService`), so the event's content hash, and every charge stored by it, stay as they are.
 */
import { fail } from '../errors';
import { CHARGE_CATEGORIES, type CostEvent } from '../events';
import {
  isBlank,
  optionalEnum,
  optionalString,
  own,
  requiredEnum,
  slugify,
  type JsonObject,
} from './fields';
import { CHARGE_CLASSES, finishCostEvent, hasAnyKey } from './cost-common';
import { amountFields, fieldReaders, periodFields } from './cost-fields';
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

const NULL_CELL = /^\s*(null|\(null\))\s*$/i;

/** A cell's value; `NULL`, `null` and `(null)` (how SQL exports write a missing value) are absent. */
export const focusCell = (value: unknown): unknown =>
  typeof value === 'string' && mayBeNullText(value) && NULL_CELL.test(value) ? undefined : value;

/** False when `text` cannot match NULL_CELL: its first character is neither `n`, `(` nor a space. */
const mayBeNullText = (text: string): boolean => {
  const first = text.charCodeAt(0);
  return first === 0x6e || first === 0x4e || first === 0x28 || first <= 0x20 || first >= 0x80;
};

const cell = (row: JsonObject, column: string): unknown => focusCell(own(row, column));

/** AWS's extension column with the product code (`AmazonEC2`) that CUR names a service by. */
export const FOCUS_SERVICE_CODE = 'x_ServiceCode';

/**
 * The service an export charge is totalled under: the row's `x_ServiceCode` when it has one (AWS, so
 * named as in CUR), else the event's ServiceName (Azure, GCP, OCI). Throws on a malformed code.
 */
export const focusChargeService = (row: JsonObject, event: CostEvent): string | undefined =>
  optionalString(cell(row, FOCUS_SERVICE_CODE), FOCUS_SERVICE_CODE) ?? event.service;

export const parseFocusRow = (row: JsonObject, attributes: Record<string, string>): CostEvent => {
  const column = (name: string): unknown => cell(row, name);
  const { text, id } = fieldReaders(column);
  const providerColumn = isBlank(cell(row, 'ProviderName'))
    ? 'ServiceProviderName'
    : 'ProviderName';
  const provider = text(providerColumn);
  const billingAccountId = id('BillingAccountId');
  const accountId =
    id('SubAccountId') ??
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
      ...periodFields(column, {
        billingPeriodStart: 'BillingPeriodStart',
        chargePeriodStart: 'ChargePeriodStart',
        chargePeriodEnd: 'ChargePeriodEnd',
      }),
      chargeCategory: requiredEnum(
        cell(row, 'ChargeCategory'),
        'ChargeCategory',
        CHARGE_CATEGORIES,
      ),
      chargeClass: optionalEnum(cell(row, 'ChargeClass'), 'ChargeClass', CHARGE_CLASSES),
      service: text('ServiceName'),
      skuId: id('SkuId'),
      skuPriceId: id('SkuPriceId'),
      resourceId: id('ResourceId'),
      region: id('RegionId'),
      invoiceId: id('InvoiceId'),
      description: text('ChargeDescription'),
      pricingCategory: text('PricingCategory')?.toLowerCase(),
      chargeFrequency: text('ChargeFrequency')?.toLowerCase(),
      commitmentDiscountId: id('CommitmentDiscountId'),
      ...amountFields(column, {
        amount: 'BilledCost',
        currency: 'BillingCurrency',
        usageQuantity: 'ConsumedQuantity',
        usageUnit: 'ConsumedUnit',
        tags: 'Tags',
      }),
    },
    'ChargePeriodEnd',
  );
};
