import type { DeliveryMode } from '../../contract/environment';
import { decodeRecord } from './envelope';
import type { CostEvent } from './events';
import { parseCostEvent } from './formats';
import { costContentHash, costIdentity, type CostIdentity } from './keys';
import type { IncomingCharge } from './ledger-decision';
import type { ChargeRef, LedgerLayout, SqsRecordInput } from './ports';
import type { TenantIngress } from './tenant-binding';

/** A cost record with everything the ledger needs: the event, its keys and where its charge lives. */
export interface ParsedCharge {
  event: CostEvent;
  contentHash: string;
  identity: CostIdentity;
  ref: ChargeRef;
}

/** `router` binds the tenant to the delivering topic (tenant bindings configured); without it the message says. */
export const parseCharge = (
  layout: LedgerLayout,
  record: SqsRecordInput,
  mode: DeliveryMode = 'raw',
  router?: TenantIngress,
): ParsedCharge => {
  const decoded = decodeRecord(record, mode);
  const ingress = router?.ingressOf(decoded);
  const parsed = parseCostEvent(decoded).event;
  const event = router && ingress ? router.bind(parsed, decoded, ingress) : parsed;
  const contentHash = costContentHash(event);
  const identity = costIdentity(event, contentHash);
  return { event, contentHash, identity, ...layout.keysOf(event, identity) };
};

export const incomingOf = (charge: ParsedCharge): IncomingCharge => ({
  identity: charge.identity,
  contentHash: charge.contentHash,
  amount: charge.event.amount,
  currency: charge.event.currency,
  source: charge.event.source,
});

export const identityField = (identity: CostIdentity): string =>
  identity.kind === 'event' ? 'eventId' : identity.kind === 'line-item' ? 'lineItemId' : '$';
