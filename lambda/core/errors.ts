/** Why a message cannot take effect; sent to the DLQ with the message. */
export type RejectionCode =
  | 'malformed-body'
  | 'unknown-format'
  | 'missing-field'
  | 'invalid-field'
  /** Over the size cap of its format (documented in docs/consumer-core.md); never parsed. */
  | 'too-large'
  | 'conflict'
  /** FIFO: the record's MessageGroupId is not the group its tenant and account derive. */
  | 'group-mismatch'
  /** The charge's billing period is closed and the late-charge policy is `reject`. */
  | 'period-closed'
  /** The message names a tenant other than the one its topic is bound to (or came through no configured topic). */
  | 'tenant-mismatch'
  /** The message names a source its tenant's binding does not allow. */
  | 'source-mismatch'
  /** An export manifest re-uses a planned executionId for other content (files, versions, columns). */
  | 'execution-reused'
  /** An export task failed (transiently) on every receive its queue allows: its execution failed. */
  | 'retries-exhausted';

/**
 * An error that settles a record: it goes to the DLQ with `code`, `field` and `reason` and is never
 * retried. Any error outside this hierarchy is transient: the record is `failed` and SQS delivers it again.
 */
export abstract class RecordError extends Error {
  /** The record's outcome once it is in the DLQ. */
  abstract readonly outcome: 'rejected' | 'conflict';

  constructor(
    readonly code: RejectionCode,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${code}: ${field}: ${reason}`);
  }
}

/** A retry would get the same answer (a write the store refuses as invalid, a key it cannot hold). */
export class PermanentError extends RecordError {
  readonly outcome = 'rejected';
  override name = 'PermanentError';
}

/** The message itself cannot be processed: it does not decode, parse or validate. */
export class ValidationError extends PermanentError {
  override name = 'ValidationError';
}

/** The message contradicts what the ledger holds for the same charge. */
export class ConflictError extends RecordError {
  readonly outcome = 'conflict';
  override name = 'ConflictError';

  constructor(field: string, reason: string) {
    super('conflict', field, reason);
  }
}

/** Worth trying again later; its message is the record's reason. */
export class TransientError extends Error {
  override name = 'TransientError';
}

/**
 * A provider asked us to wait until `notBefore` (epoch ms), longer than is worth sleeping in this
 * invocation: the work resumes from its cursor then (an acquisition step delayed in SQS).
 */
export class ThrottledUntilError extends TransientError {
  override name = 'ThrottledUntilError';
  constructor(
    readonly notBefore: number,
    message: string,
  ) {
    super(message);
  }
}

export const fail = (code: RejectionCode, field: string, reason: string): never => {
  throw new ValidationError(code, field, reason);
};

export type PeriodErrorCode =
  | 'already-closed'
  | 'not-closed'
  | 'reason-required'
  | 'invalid-period'
  | 'busy'
  | 'charge-not-found'
  | 'period-closed'
  | 'no-open-period'
  /** A close of a month that has not ended (`core/period-close-rule.ts`). */
  | 'not-ended'
  /** A close of an account-period with no data, without `force`. */
  | 'no-data'
  /** A void of a late provisional charge: it counts in no total, so there is nothing to reverse. */
  | 'provisional';

/** An operator's period action that cannot be done as asked (close, reopen, void); its message says why. */
export class PeriodError extends Error {
  override name = 'PeriodError';

  constructor(
    readonly code: PeriodErrorCode,
    message: string,
  ) {
    super(message);
  }
}
