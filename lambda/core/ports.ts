import type { LateChargePolicy } from '../../contract/environment';
import type { StoredCharge, TotalChange } from './ledger-decision';
import type { AlertEvent, CostEvent } from './events';
import type { RejectionCode } from './errors';
import type { CostIdentity } from './keys';
import type { Supersession } from './ledger-total';

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

/** One record's ledger effect: its charge item and its totals, written atomically. */
export interface ChargeCommit {
  ref: ChargeRef;
  event: CostEvent;
  contentHash: string;
  identity: { kind: string; id: string; version: number };
  totals: TotalChange[];
  /** The charge as read before deciding; the write is conditional on it being unchanged. */
  previous?: StoredCharge;
  /**
   * The `yyyy-mm` period whose totals take the effect when it is not the charge's own (its own period was
   * closed and the late-charge policy rolled it forward); the charge item records it as `bookedIn`.
   */
  bookedIn?: string;
  /**
   * Kept as a late provisional charge of its own closed period (its export supersedes its source,
   * `PeriodStatePort.supersession`): the totals go to the source's provisional totals there, on condition
   * that the period is still closed; never with `bookedIn`.
   */
  provisional?: boolean;
}

/** Per commit attempt: which try this is, so a retry after contention can move to another total shard. */
export interface CommitOptions {
  /** 1 for the first try (default). */
  attempt?: number;
}

/**
 * `period-closed`: only cancelled because the period whose totals the commit adds to is closed (the
 * charge condition held); decide where the effect goes by the late-charge policy and commit again.
 * `lost-race`: a concurrent writer changed the charge first (re-read and decide again).
 * `contended`: only cancelled because another transaction was writing the same items (a shared total);
 * nothing failed a condition, so the same commit can simply be tried again.
 * `period-open`: a provisional commit (`ChargeCommit.provisional`) found its period open (reopened since
 * it was refused): decide again as an ordinary charge.
 */
export type CommitResult =
  'committed' | 'lost-race' | 'contended' | 'period-closed' | 'period-open';

/**
 * `lost-race`: `losers` are the commits whose charge condition failed. `period-closed`: nothing
 * lost a race, but `closed` are the commits whose totals go to a closed period (the others can commit).
 */
export type GroupCommitResult =
  | { result: 'committed' | 'contended' }
  | {
      result: 'lost-race';
      losers: number[];
      /** A loser's charge as its failed condition saw it (consistent), where the ledger returned it. */
      current?: ReadonlyMap<number, StoredCharge | null>;
    }
  | { result: 'period-closed'; closed: number[] };

/** The ledger's key layout and its limits, owned by the adapter. */
export interface LedgerLayout {
  /** Where a charge lives; throws a `ValidationError` when the table cannot hold its keys. */
  keysOf(event: CostEvent, identity: CostIdentity): { ref: ChargeRef };
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
   * Charge + totals in one transaction, the charge written only if absent or still as it was read. Throws a `PermanentError` when the ledger refuses the
   * write as invalid, any other error when it is transient.
   */
  commit(commit: ChargeCommit, options?: CommitOptions): Promise<CommitResult>;
  /**
   * Several commits (distinct charges, at most `layout.maxGroupSize`) in one transaction, totals summed
   * per partition and currency.
   * When it loses a race, `losers` are the indexes of the commits whose charge condition failed.
   */
  commitGroup(commits: ChargeCommit[], options?: CommitOptions): Promise<GroupCommitResult>;
}

/**
 * Short advisory leases on charges about to be committed in a grouped transaction, so that a copy
 * another invocation is committing at the same moment costs one failed single-item write instead of
 * a cancelled group. Never part of exactly-once: every money write stays conditional on the charge.
 */
export interface ChargeLeasePort {
  /**
   * Leases each key until `untilMs` for `holder` (the SQS message id: its own redelivery may take the
   * lease back). Returns the keys another holder leases now.
   */
  take(leases: { key: string; holder: string }[], untilMs: number): Promise<Set<string>>;
}

// Billing periods: one state per tenant, account and `yyyy-mm` period (docs/ledger.md).

export type PeriodState = 'open' | 'closed';

/** What happens to an effect whose own period is closed (docs/ledger.md#late-charges). */
export type { LateChargePolicy };

export interface PeriodKey {
  tenant: string;
  accountId: string;
  /** `yyyy-mm` */
  period: string;
}

export interface CurrencyTotal {
  currency: string;
  total: string;
  charges: number;
}

export interface PeriodStatus extends PeriodKey {
  state: PeriodState;
  closedAt?: string;
  closedBy?: string;
  closeReason?: string;
  /** How many times the period was closed (0 when never). */
  closeCount: number;
  reopenedAt?: string;
  reopenedBy?: string;
  reopenReason?: string;
  /** The statement taken at the last close; [] when never closed. */
  totalsAtClose: CurrencyTotal[];
  /** Corrections of THIS period booked in later periods: per booking period and currency. */
  correctionsBookedLater: { bookedIn: string; currency: string; total: string; charges: number }[];
}

export interface VoidRequest extends PeriodKey {
  /** The charge's sort key in its own period's partition (`CHARGE#<digest>`). */
  chargeSk: string;
  by: string;
  reason: string;
  policy: LateChargePolicy;
}

export interface CloseOptions {
  /** Close an account-period that holds no data (it is closed ahead of data that must be late). */
  force?: boolean;
}

/** Reads only the state of a period (the cost consumer's view: open or closed, nothing else). */
export interface PeriodStatePort {
  stateOf(key: PeriodKey): Promise<PeriodState>;
  /**
   * For an account-period found closed: the provider whose stream charges its export supersedes there,
   * and that export (core/ledger-total.ts `supersessionOf`); undefined when none does. Without it, every
   * late charge is booked by the late-charge policy.
   */
  supersession?(key: PeriodKey): Promise<Supersession | undefined>;
}

/** Closing, reopening, inspecting billing periods and voiding charges; errors are `PeriodError`s. */
export interface PeriodPort extends PeriodStatePort {
  /**
   * Closing a closed period fails with `already-closed`; one the close rule refuses
   * (`core/period-close-rule.ts`) with `not-ended` or `no-data` (`force` lifts only the latter).
   */
  close(key: PeriodKey, by: string, reason: string, options?: CloseOptions): Promise<PeriodStatus>;
  /** The reason is required (`reason-required`); reopening an open period fails with `not-closed`. */
  reopen(key: PeriodKey, by: string, reason: string): Promise<PeriodStatus>;
  status(key: PeriodKey): Promise<PeriodStatus>;
  /** Every period with a PERIOD item or totals for the tenant (and account when given). */
  list(filter: { tenant: string; accountId?: string }): Promise<PeriodStatus[]>;
  voidCharge(
    input: VoidRequest,
  ): Promise<{ outcome: 'voided' | 'already-voided'; bookedIn: string }>;
}

/** Publishes an alert at most once per key, across invocations. */
export interface NotifierPort {
  notifyOnce(key: string, alert: AlertEvent): Promise<'notified' | 'duplicate'>;
}

export const refKey = (ref: ChargeRef): string => `${ref.pk}\u0000${ref.sk}`;
