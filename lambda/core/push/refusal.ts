/**
 * Why a push or ingest request is not accepted, and the status that tells the sender what to do:
 * 401 no valid credential, 403 a valid credential that does not bind this tenant or endpoint, 400 an
 * authenticated sender's body we cannot read (retrying it cannot help), 409 an idempotency key reused
 * with another body, 413 too large, 429 throttled.
 */
export type RefusalReason =
  | 'missing-credential'
  | 'malformed-credential'
  | 'bad-signature'
  | 'expired'
  | 'wrong-issuer'
  | 'wrong-audience'
  | 'unknown-sender'
  | 'unknown-caller'
  | 'unverified-email'
  | 'wrong-secret'
  | 'tenant-mismatch'
  | 'malformed-body'
  | 'key-reused'
  | 'too-large'
  | 'throttled';

export interface Refusal {
  readonly ok: false;
  readonly status: 400 | 401 | 403 | 409 | 413 | 429;
  readonly reason: RefusalReason;
  readonly detail: string;
  /** 429: when the sender may try again. */
  readonly retryAfterSeconds?: number;
}

export const refuse = (
  status: Refusal['status'],
  reason: RefusalReason,
  detail: string,
): Refusal => ({ ok: false, status, reason, detail });

/** Refusals that count as refused authentication (metric, alarm). */
export const isAuthRefusal = (refusal: Refusal): boolean =>
  refusal.status === 401 || refusal.status === 403;
