/** Why a message cannot be processed. Poison: never retried, sent to the DLQ with this reason. */
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

export class ValidationError extends Error {
  constructor(
    readonly code: RejectionCode,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${code}: ${field}: ${reason}`);
    this.name = 'ValidationError';
  }
}

export const fail = (code: RejectionCode, field: string, reason: string): never => {
  throw new ValidationError(code, field, reason);
};
