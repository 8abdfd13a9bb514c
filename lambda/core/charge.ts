import { decodeRecord, type DeliveryMode } from './envelope';
import { fail } from './errors';
import type { CostEvent } from './events';
import { parseCostEvent } from './formats';
import {
  chargeSortKey,
  costClaimKey,
  costContentHash,
  costIdentity,
  ledgerPartitionKey,
  type CostIdentity,
} from './keys';
import type { IncomingCharge } from './ledger-decision';
import type { ChargeRef, SqsRecordInput } from './ports';

/** A cost record with everything the ledger needs: the event, its keys and where its charge lives. */
export interface ParsedCharge {
  event: CostEvent;
  contentHash: string;
  identity: CostIdentity;
  ref: ChargeRef;
  claimKey: string;
}

const MAX_PARTITION_KEY_BYTES = 2048;

export const parseCharge = (
  stream: string,
  record: SqsRecordInput,
  mode: DeliveryMode = 'raw',
): ParsedCharge => {
  const { event } = parseCostEvent(decodeRecord(record, mode));
  const contentHash = costContentHash(event);
  const identity = costIdentity(event, contentHash);
  const pk = ledgerPartitionKey(event);
  if (Buffer.byteLength(pk, 'utf8') > MAX_PARTITION_KEY_BYTES) {
    fail(
      'invalid-field',
      'accountId',
      `tenant, account and period exceed DynamoDB's ${MAX_PARTITION_KEY_BYTES}-byte key limit`,
    );
  }
  return {
    event,
    contentHash,
    identity,
    ref: { pk, sk: chargeSortKey(identity) },
    claimKey: costClaimKey(stream, identity),
  };
};

export const incomingOf = (charge: ParsedCharge): IncomingCharge => ({
  identity: charge.identity,
  contentHash: charge.contentHash,
  amount: charge.event.amount,
  currency: charge.event.currency,
});

export const identityField = (identity: CostIdentity): string =>
  identity.kind === 'event' ? 'eventId' : identity.kind === 'line-item' ? 'lineItemId' : '$';
