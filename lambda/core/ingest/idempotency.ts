/**
 * The usage ingest API's idempotency contract. A producer sends `Idempotency-Key` with every POST; the
 * key is scoped by the credential's tenant and source and recorded with the canonical hash of the body
 * (RFC 8785, so key order and number spelling do not matter) for the dedup window:
 * - a new key is recorded `pending`, the events are published, the record becomes `published` → 202;
 * - the same key and body once published → 200, the first answer again, nothing published;
 * - the same key and body still `pending` (the first request crashed, or is in flight) → published again
 *   → 202: an event is never lost between recording and publishing, and a second copy is an ordinary
 *   duplicate for the consumers (the same FIFO deduplication id, the same charge identity);
 * - the same key with another body → 409 naming the key, whatever the record's state.
 */
import { canonicalize } from 'json-canonicalize';
import { sha256Hex } from '../keys';

export type KeyStatus = 'pending' | 'published';

export interface KeyRecord {
  readonly bodyHash: string;
  readonly status: KeyStatus;
  /** The body of the first 202, replayed with a 200. */
  readonly answer?: string;
}

export type KeyDecision =
  | { readonly kind: 'publish' }
  | { readonly kind: 'replay'; readonly answer: string }
  | { readonly kind: 'conflict' };

/** 1–255 printable ASCII characters without spaces, as producers derive them from a business action. */
const KEY = /^[\x21-\x7e]{1,255}$/;

export const idempotencyKeyProblem = (key: string | undefined): string | undefined => {
  if (key === undefined || key === '') return 'the Idempotency-Key header is required';
  return KEY.test(key)
    ? undefined
    : 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces';
};

export const canonicalBodyHash = (body: unknown): string => sha256Hex(canonicalize(body));

/** What to do with a request whose key is already recorded (`existing`), given its body's hash. */
export const decideKnownKey = (existing: KeyRecord, bodyHash: string): KeyDecision => {
  if (existing.bodyHash !== bodyHash) return { kind: 'conflict' };
  if (existing.status === 'published' && existing.answer !== undefined)
    return { kind: 'replay', answer: existing.answer };
  return { kind: 'publish' };
};
