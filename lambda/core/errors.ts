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
  | 'group-mismatch';

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

export const fail = (code: RejectionCode, field: string, reason: string): never => {
  throw new ValidationError(code, field, reason);
};
