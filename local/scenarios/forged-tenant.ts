/**
 * Tenant-bound publishing (docs/threat-model.md): messages published to acme's own topic. One names no
 * tenant and is booked to acme; two claim globex — in the body, or as the `tenant` attribute — and each
 * ends in the DLQ as `tenant-mismatch`, leaving globex's ledger untouched.
 */
import { COST_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import type { SampleMessage } from './sample';
import { TENANTS } from './tenants';

export const FORGED_NOTE = 'forged tenant';

export const forgedTenants = (draft: SampleDraft): void => {
  const [bound, victim] = TENANTS;
  const month = '2026-11';
  const charge = (eventId: string, accountId: string, currency: string, extra = {}) => ({
    source: 'aws',
    eventId,
    accountId,
    chargePeriodStart: `${month}-07T00:00:00Z`,
    chargeCategory: 'usage',
    service: 'AmazonEC2',
    amount: '7.25',
    currency,
    ...extra,
  });
  const onBoundTopic = (
    message: object,
    note: string,
    attributes?: Record<string, string>,
  ): SampleMessage => ({
    topic: COST_STREAM,
    tenantTopic: bound.tenant,
    message: JSON.stringify(message),
    ...(attributes ? { attributes } : {}),
    note,
  });

  const eventId = `evt-bound-${draft.rng.uuid()}`;
  const accountId = bound.awsAccounts[0];
  draft.place(
    onBoundTopic(charge(eventId, accountId, bound.currency), 'no tenant on a tenant topic'),
  );
  draft.truth.book(`event:${bound.tenant}:${accountId}:${eventId}`, {
    tenant: bound.tenant,
    accountId,
    period: month,
    currency: bound.currency,
    amount: '7.25',
    source: 'aws',
  });

  const forged: SampleMessage[] = [
    onBoundTopic(
      charge(`evt-forged-${draft.rng.uuid()}`, victim.awsAccounts[0], victim.currency, {
        tenant: victim.tenant,
      }),
      FORGED_NOTE,
    ),
    onBoundTopic(
      charge(`evt-forged-${draft.rng.uuid()}`, victim.awsAccounts[0], victim.currency),
      FORGED_NOTE,
      { tenant: victim.tenant },
    ),
  ];
  for (const message of forged) {
    draft.place(message);
    draft.truth.deadLetter(COST_STREAM);
  }
};
