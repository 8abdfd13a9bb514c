import type { StoredCharge, TotalChange } from './ledger-decision';
import type { AlertEvent, CostEvent } from './events';
import type { RejectionCode } from './errors';
import type { CostIdentity } from './keys';

/** The parts of an SQS record the consumers use (matches aws-lambda's SQSRecord). */
export interface SqsRecordInput {
  messageId: string;
  body: string;
  attributes?: { MessageGroupId?: string; ApproximateReceiveCount?: string };
  messageAttributes?: Record<string, { stringValue?: string; dataType?: string } | undefined>;
}

export interface Rejection {
  code: RejectionCode;
  field: string;
  reason: string;
}

/** Where poison and conflicting messages go: the stream's DLQ, body unchanged, reason attached. */
export interface DeadLetterPort {
  send(record: SqsRecordInput, rejection: Rejection): Promise<void>;
}

export interface ChargeRef {
  pk: string;
  sk: string;
}

/** One record's ledger effect, written atomically with its claim. */
export interface ChargeCommit {
  claimKey: string;
  ref: ChargeRef;
  event: CostEvent;
  contentHash: string;
  identity: { kind: string; id: string; version: number };
  totals: TotalChange[];
  /** The charge as read before deciding; the write is conditional on it being unchanged. */
  previous?: StoredCharge;
}

/**
 * `lost-race`: a concurrent writer changed the charge first (re-read and decide again).
 * `contended`: only cancelled because another transaction was writing the same items (a shared total);
 * nothing failed a condition, so the same commit can simply be tried again.
 * `claim-without-charge`: the claim is held but the ledger has no matching charge (an item was removed by
 * hand); retrying cannot help.
 */
export type CommitResult = 'committed' | 'lost-race' | 'contended' | 'claim-without-charge';

export type GroupCommitResult =
  { result: 'committed' | 'contended' } | { result: 'lost-race'; losers: number[] };

/** The ledger's key layout and its limits, owned by the adapter. */
export interface LedgerLayout {
  /** Where a charge and its claim live; throws a `ValidationError` when the tables cannot hold its keys. */
  keysOf(event: CostEvent, identity: CostIdentity): { ref: ChargeRef; claimKey: string };
  /** The most commits one `commitGroup` takes. */
  maxGroupSize: number;
}

export interface LedgerPort {
  readonly layout: LedgerLayout;
  /**
   * Reads many charges at once; refs missing from the result are unknown (read individually later).
   * `consistent: false` (the batch pre-read) may miss a write of the last second: every decision made on
   * it is guarded by the commit's conditions, and a conflict is confirmed by a consistent read.
   */
  readCharges(
    refs: ChargeRef[],
    options?: { consistent?: boolean },
  ): Promise<Map<string, StoredCharge | null>>;
  /** Strongly consistent read of one charge. */
  readCharge(ref: ChargeRef): Promise<StoredCharge | null>;
  /**
   * Claim + charge + totals in one transaction. Throws a `PermanentError` when the ledger refuses the
   * write as invalid, any other error when it is transient.
   */
  commit(commit: ChargeCommit): Promise<CommitResult>;
  /**
   * Several commits (distinct charges, at most `layout.maxGroupSize`) in one transaction, totals summed
   * per partition and currency.
   * When it loses a race, `losers` are the indexes of the commits whose claim or charge condition failed.
   */
  commitGroup(commits: ChargeCommit[]): Promise<GroupCommitResult>;
}

/** Publishes an alert at most once per key, across invocations. */
export interface NotifierPort {
  notifyOnce(key: string, alert: AlertEvent): Promise<'notified' | 'duplicate'>;
}

export const refKey = (ref: ChargeRef): string => `${ref.pk}\u0000${ref.sk}`;
