/**
 * Restated line items: one to three versions of a line item, published in random order (an older
 * version after a newer one is `superseded`), sometimes replayed. The ledger holds the last version.
 */
import { COST_STREAM } from '../../contract/streams';
import { hourOf } from './calendar';
import type { SampleDraft } from './draft';
import { amountText, reorder, respell } from './spelling';
import { AWS_SKUS, type TenantSpec } from './tenants';

export const restatedLineItem = (
  draft: SampleDraft,
  spec: TenantSpec,
  accountId: string,
  month: string,
  index: number,
): void => {
  const { rng } = draft;
  const { start } = hourOf(month, index);
  const lineItemId = `li-${rng.uuid().slice(0, 13)}-${start.slice(0, 13)}`;
  const versions = rng.int(1, 3);
  const amounts = Array.from({ length: versions }, () => amountText(rng, 0.001, 60, 6));
  const render = (version: number) => {
    const event = {
      tenant: spec.tenant,
      source: 'aws',
      lineItemId,
      version,
      accountId,
      chargePeriodStart: start,
      chargeCategory: 'usage',
      service: 'AmazonEC2',
      skuId: rng.pick(AWS_SKUS),
      amount: respell(rng, amounts[version - 1]),
      currency: spec.currency,
    };
    return JSON.stringify(version === 1 ? event : reorder(rng, event));
  };
  draft.truth.book(`line:${spec.tenant}:${accountId}:${lineItemId}`, {
    tenant: spec.tenant,
    accountId,
    period: month,
    currency: spec.currency,
    amount: amounts[versions - 1],
    source: 'aws',
  });
  for (let version = 1; version <= versions; version++) {
    const text = render(version);
    draft.place({ topic: COST_STREAM, message: text, note: `restatement v${version}/${versions}` });
    if (rng.chance(0.15))
      draft.place({
        topic: COST_STREAM,
        message: text,
        deduplicationId: `replay-${rng.uuid()}`,
        note: `restatement v${version} (replay)`,
      });
  }
};
