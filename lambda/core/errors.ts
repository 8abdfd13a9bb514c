/** Why a message cannot be processed. Poison: never retried, sent to the DLQ with this reason. */
export type RejectionCode =
  'malformed-body' | 'unknown-format' | 'missing-field' | 'invalid-field' | 'conflict';

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
