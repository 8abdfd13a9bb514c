/**
 * snake_case GCP events of the original design. With a tenant they come with `tenant` and `source`
 * attributes and are booked to the project; without one they are booked to `default` and the
 * billing account.
 */
import { hourOf, nextMonth } from './calendar';
import type { SampleDraft } from './draft';
import type { LogicalCharge } from './logical-charge';
import { amountText, reorder, respell } from './spelling';
import { GCP_SKUS } from './tenants';

export const snakeCaseCharge = (
  draft: SampleDraft,
  tenant: string | undefined,
  billingAccount: string,
  project: string | undefined,
  month: string,
  index: number,
  currency: string,
): LogicalCharge => {
  const { rng } = draft;
  const amount = amountText(rng, 0.0001, 80, 6);
  const { start, end } = hourOf(month, index);
  const costType = rng.pick(['regular', 'regular', 'regular', 'tax', 'adjustment']);
  const base: Record<string, unknown> = {
    account_id: billingAccount,
    ...(project ? { project_id: project } : {}),
    sku_id: rng.pick(GCP_SKUS),
    usage_start_time: start,
    usage_end_time: end,
    cost_type: costType,
    resource_id: `vm-${draft.nextResource()}`,
    amount,
    currency,
    message_id: String(rng.int(1e9, 9e9)),
    publish_time: `${nextMonth(month)}-01T03:00:00.000Z`,
  };
  const attributes: Record<string, string> = tenant ? { tenant, source: 'gcp' } : {};
  return {
    identity: `snake:${String(base.resource_id)}`,
    effect: {
      tenant: tenant ?? 'default',
      accountId: project ?? billingAccount,
      period: month,
      currency,
      amount,
    },
    render: (variant) => {
      const row =
        variant === 0
          ? base
          : reorder(rng, {
              ...base,
              amount: respell(rng, amount),
              message_id: String(rng.int(1e9, 9e9)),
              publish_time: `${nextMonth(month)}-01T0${rng.int(4, 9)}:00:00.000Z`,
            });
      return { message: JSON.stringify(row), ...(tenant ? { attributes } : {}) };
    },
  };
};
