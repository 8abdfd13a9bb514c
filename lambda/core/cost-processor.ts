import { runBatch, type BatchItem, type BatchOutcome } from './batch';
import { KeyedSerializer } from './concurrency';
import { decodeRecord } from './envelope';
import type { CostEvent } from './events';
import { fail } from './errors';
import { parseCostEvent } from './formats';
import {
  costClaimKey,
  costContentHash,
  costIdentity,
  chargeSortKey,
  ledgerPartitionKey,
  type CostIdentity,
} from './keys';
import {
  chargeAfter,
  decideCharge,
  type IncomingCharge,
  type StoredCharge,
} from './ledger-decision';
import type { RecordResult } from './outcomes';
import {
  refKey,
  type ChargeRef,
  type DeadLetterPort,
  type LedgerPort,
  type Rejection,
  type SqsRecordInput,
} from './ports';
import { attempt } from './rejection';

export interface CostProcessorOptions {
  stream: string;
  fifo: boolean;
  concurrency: number;
  ledger: LedgerPort;
  deadLetters: DeadLetterPort;
  /** Commit attempts per record when concurrent writers win the race (default 6). */
  maxAttempts?: number;
  /** Back-off between attempts (injected so tests need not wait). */
  pause?: (attempt: number) => Promise<void>;
}

interface ParsedCharge {
  event: CostEvent;
  contentHash: string;
  identity: CostIdentity;
  ref: ChargeRef;
  claimKey: string;
}

interface PreparedRecord extends BatchItem {
  record: SqsRecordInput;
  parsed: { ok: true; value: ParsedCharge } | { ok: false; rejection: Rejection };
}

const jitteredPause = (attemptNumber: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attemptNumber));

/** DynamoDB's verdict on the request itself (key or item too large, …): a retry gets the same answer. */
const isPermanentWriteError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ValidationException';

const identityField = (identity: CostIdentity): string =>
  identity.kind === 'event' ? 'eventId' : identity.kind === 'line-item' ? 'lineItemId' : '$';

const MAX_PARTITION_KEY_BYTES = 2048;

export const parseCharge = (stream: string, record: SqsRecordInput): ParsedCharge => {
  const { event } = parseCostEvent(decodeRecord(record));
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

/**
 * One batch of the cost stream: parse every record, pre-read every charge the batch touches in one call,
 * then decide and commit record by record. Copies of one charge in the batch run one after the other, so
 * the second sees the first's effect and is a duplicate without another round trip.
 */
export const processCostBatch = async (
  records: readonly SqsRecordInput[],
  options: CostProcessorOptions,
): Promise<BatchOutcome> => {
  const maxAttempts = options.maxAttempts ?? 6;
  const pause = options.pause ?? jitteredPause;
  const prepared: PreparedRecord[] = records.map((record) => ({
    messageId: record.messageId,
    groupId: record.attributes?.MessageGroupId,
    record,
    parsed: attempt(() => parseCharge(options.stream, record)),
  }));

  const refs = new Map<string, ChargeRef>();
  for (const item of prepared)
    if (item.parsed.ok) refs.set(refKey(item.parsed.value.ref), item.parsed.value.ref);
  let known: Map<string, StoredCharge | null>;
  try {
    known = refs.size > 0 ? await options.ledger.readCharges([...refs.values()]) : new Map();
  } catch {
    known = new Map();
  }

  const storedCharge = async (ref: ChargeRef): Promise<StoredCharge | null> => {
    const key = refKey(ref);
    if (!known.has(key)) known.set(key, await options.ledger.readCharge(ref));
    return known.get(key) ?? null;
  };

  const applyCharge = async (item: PreparedRecord, charge: ParsedCharge): Promise<RecordResult> => {
    const key = refKey(charge.ref);
    const incoming: IncomingCharge = {
      identity: charge.identity,
      contentHash: charge.contentHash,
      amount: charge.event.amount,
      currency: charge.event.currency,
    };
    const result = (outcome: RecordResult['outcome'], reason?: string): RecordResult => ({
      messageId: item.messageId,
      outcome,
      hash: charge.contentHash,
      ...(reason ? { reason } : {}),
    });
    for (let attemptNumber = 1; attemptNumber <= maxAttempts; attemptNumber++) {
      const stored = await storedCharge(charge.ref);
      const decision = decideCharge(incoming, stored ?? undefined);
      if (decision.outcome === 'duplicate' || decision.outcome === 'superseded')
        return result(decision.outcome);
      if (decision.outcome === 'conflict') {
        await options.deadLetters.send(item.record, {
          code: 'conflict',
          field: identityField(charge.identity),
          reason: decision.reason,
        });
        return result('conflict', decision.reason);
      }
      let committed;
      try {
        committed = await options.ledger.commit({
          claimKey: charge.claimKey,
          ref: charge.ref,
          event: charge.event,
          contentHash: charge.contentHash,
          identity: {
            kind: charge.identity.kind,
            id: charge.identity.id,
            version: charge.identity.version,
          },
          totals: decision.totals,
          ...(decision.outcome === 'restated' ? { previous: decision.previous } : {}),
        });
      } catch (error) {
        known.delete(key);
        if (!isPermanentWriteError(error)) throw error;
        const reason = `the ledger rejected the charge: ${(error as Error).message}`.slice(0, 500);
        await options.deadLetters.send(item.record, { code: 'invalid-field', field: '$', reason });
        return result('rejected', reason);
      }
      if (committed === 'committed') {
        known.set(key, chargeAfter(incoming));
        return result(decision.outcome);
      }
      if (committed === 'claim-without-charge') {
        const reason = 'the dedup claim is held but the ledger has no matching charge';
        await options.deadLetters.send(item.record, {
          code: 'conflict',
          field: identityField(charge.identity),
          reason,
        });
        return result('conflict', reason);
      }
      known.delete(key);
      await pause(attemptNumber);
    }
    return result('failed', 'lost the race on every attempt');
  };

  const serializer = new KeyedSerializer();
  return runBatch(prepared, {
    fifo: options.fifo,
    concurrency: options.concurrency,
    process: async (item) => {
      if (!item.parsed.ok) {
        await options.deadLetters.send(item.record, item.parsed.rejection);
        return {
          messageId: item.messageId,
          outcome: 'rejected',
          reason: item.parsed.rejection.reason,
        };
      }
      const charge = item.parsed.value;
      return serializer.run(refKey(charge.ref), () => applyCharge(item, charge));
    },
  });
};
