import type { DeliveryMode } from '../../contract/environment';
import { decodeRecord } from './envelope';
import type { CostEvent } from './events';
import { parseCostEvent } from './formats';
import { costContentHash, costIdentity, type CostIdentity } from './keys';
import type { IncomingCharge } from './ledger-decision';
import type { ChargeRef, LedgerLayout, SqsRecordInput } from './ports';

/** A cost record with everything the ledger needs: the event, its keys and where its charge lives. */
export interface ParsedCharge {
  event: CostEvent;
  contentHash: string;
  identity: CostIdentity;
  ref: ChargeRef;
  claimKey: string;
}

export const parseCharge = (
  layout: LedgerLayout,
  record: SqsRecordInput,
  mode: DeliveryMode = 'raw',
): ParsedCharge => {
  const { event } = parseCostEvent(decodeRecord(record, mode));
  const contentHash = costContentHash(event);
  const identity = costIdentity(event, contentHash);
  return { event, contentHash, identity, ...layout.keysOf(event, identity) };
};

export const incomingOf = (charge: ParsedCharge): IncomingCharge => ({
  identity: charge.identity,
  contentHash: charge.contentHash,
  amount: charge.event.amount,
  currency: charge.event.currency,
});

export const identityField = (identity: CostIdentity): string =>
  identity.kind === 'event' ? 'eventId' : identity.kind === 'line-item' ? 'lineItemId' : '$';
