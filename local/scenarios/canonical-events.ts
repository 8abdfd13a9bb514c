/** Canonical (camelCase) cost events with an eventId; duplicates change case, spelling and precision. */
import { hourOf } from './calendar';
import type { SampleDraft } from './draft';
import type { LogicalCharge } from './logical-charge';
import { amountText, reorder, respell } from './spelling';
import { AWS_SKUS, type TenantSpec } from './tenants';

export const canonicalEvent = (
  draft: SampleDraft,
  spec: TenantSpec,
  accountId: string,
  month: string,
  index: number,
): LogicalCharge => {
  const { rng } = draft;
  const amount = amountText(rng, 0.01, 120, 4);
  const { start, end } = hourOf(month, index);
  const eventId = `evt-${rng.uuid()}`;
  const base = {
    tenant: spec.tenant,
    source: 'aws',
    eventId,
    accountId,
    chargePeriodStart: start,
    chargePeriodEnd: end,
    chargeCategory: 'usage',
    service: 'AmazonS3',
    skuId: rng.pick(AWS_SKUS),
    resourceId: `bucket-${draft.nextResource()}`,
    amount,
    currency: spec.currency,
  };
  return {
    identity: `event:${spec.tenant}:${accountId}:${eventId}`,
    effect: {
      tenant: spec.tenant,
      accountId,
      period: month,
      currency: spec.currency,
      amount,
      source: 'aws',
    },
    render: (variant) => {
      if (variant === 0) return { message: JSON.stringify(base) };
      const copy = reorder(rng, {
        ...base,
        amount: respell(rng, amount),
        currency: spec.currency.toLowerCase(),
        chargeCategory: 'Usage',
        chargePeriodStart: start.replace('Z', '.000Z'),
      });
      return { message: JSON.stringify(copy, null, rng.chance(0.5) ? 2 : undefined) };
    },
  };
};
