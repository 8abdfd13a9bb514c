/** FOCUS rows (AWS and Google Cloud): usage, credits, and late corrections of the previous month. */
import { hourOf, nextMonth, previousMonth } from './calendar';
import type { SampleDraft } from './draft';
import type { LogicalCharge } from './logical-charge';
import { amountText, reorder, respell } from './spelling';
import { AWS_SKUS, GCP_SKUS, type TenantSpec } from './tenants';

export type FocusProvider = 'AWS' | 'Google Cloud';
export type FocusRowKind = 'usage' | 'credit' | 'correction';

/** A correction is booked by its BillingPeriodStart (this month) though it charges the previous one. */
export const focusRow = (
  draft: SampleDraft,
  spec: TenantSpec,
  provider: FocusProvider,
  accountId: string,
  billingAccountId: string,
  month: string,
  index: number,
  kind: FocusRowKind,
): LogicalCharge => {
  const { rng } = draft;
  const amount =
    kind === 'credit'
      ? `-${amountText(rng, 1, 40, 4)}`
      : kind === 'correction'
        ? amountText(rng, 0.01, 5, 6)
        : amountText(rng, 0.001, 250, 6);
  const chargeMonth = kind === 'correction' ? previousMonth(month) : month;
  const { start, end } = hourOf(chargeMonth, index);
  const sku = rng.pick(provider === 'AWS' ? AWS_SKUS : GCP_SKUS);
  const resource = `res-${draft.nextResource()}`;
  const base: Record<string, unknown> = {
    ProviderName: provider,
    BillingAccountId: billingAccountId,
    SubAccountId: accountId,
    SubAccountName: `${spec.tenant}-${accountId.slice(-4)}`,
    InvoiceId: provider === 'AWS' ? `INV-${month}-${spec.tenant}` : '',
    BillingPeriodStart: `${month}-01T00:00:00Z`,
    BillingPeriodEnd: `${nextMonth(month)}-01T00:00:00Z`,
    ChargePeriodStart: start,
    ChargePeriodEnd: end,
    ChargeCategory: kind === 'credit' ? 'Credit' : 'Usage',
    ChargeClass: kind === 'correction' ? 'Correction' : '',
    ChargeDescription: `${sku} ${kind}`,
    BilledCost: amount,
    EffectiveCost: amount,
    ListCost: amount,
    BillingCurrency: spec.currency,
    ConsumedQuantity: kind === 'usage' ? String(rng.int(1, 24)) : '',
    ConsumedUnit: kind === 'usage' ? 'Hours' : '',
    ServiceName: provider === 'AWS' ? 'AmazonEC2' : 'Compute Engine',
    SkuId: sku,
    SkuPriceId: `SPRICE-${resource}`,
    ResourceId: `${provider === 'AWS' ? 'arn:aws:ec2:eu-west-1' : 'projects'}:${accountId}:${resource}`,
    RegionId: provider === 'AWS' ? 'eu-west-1' : 'europe-west1',
    Tags: JSON.stringify({ team: rng.pick(['payments', 'data', 'web']), env: 'prod' }),
    x_ExportDateTime: `${nextMonth(month)}-02T02:10:00Z`,
  };
  return {
    identity: `focus:${resource}`,
    effect: {
      tenant: spec.tenant,
      accountId,
      period: month,
      currency: spec.currency,
      amount,
      ...(provider === 'AWS' ? { source: 'aws' } : {}),
    },
    render: (variant) => {
      const row =
        variant === 0
          ? base
          : reorder(rng, {
              ...base,
              BilledCost: respell(rng, amount),
              EffectiveCost: respell(rng, amount),
              x_ExportDateTime: `${nextMonth(month)}-0${rng.int(3, 9)}T0${rng.int(0, 9)}:00:00Z`,
            });
      const text = JSON.stringify(row);
      const attributes = { tenant: spec.tenant };
      return variant > 0 && rng.chance(0.5)
        ? { message: JSON.stringify(row, null, 2), attributes }
        : { message: text, attributes };
    },
  };
};
