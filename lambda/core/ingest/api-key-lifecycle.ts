/**
 * The life of an ingest API key, decided without I/O: a new key's text (random, shown once, stored only
 * as its SHA-256), its short public id (the first 12 hex digits of that hash: enough to name it in a
 * listing, useless to present), whether a binding is still live at a request's time, and what a
 * rotation does — the new key works at once, each older live key of that tenant and source keeps
 * working for a grace period, so the producer moves without a failed request and without a redeploy.
 */
import type { ApiKeyBinding } from './api-key';

export const API_KEY_TEXT_PREFIX = 'bd_';
/** Random bytes in a new key (192 bits). */
export const API_KEY_RANDOM_BYTES = 24;
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;

export const newApiKeyText = (random: Uint8Array): string => {
  if (random.length < API_KEY_RANDOM_BYTES)
    throw new Error(`an API key needs ${API_KEY_RANDOM_BYTES} random bytes`);
  return `${API_KEY_TEXT_PREFIX}${Buffer.from(random).toString('base64url')}`;
};

export const apiKeyId = (keyHash: string): string => keyHash.slice(0, 12);

/** What a listing shows of a key (never the key, never its full hash). */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly tenant: string;
  readonly source: string;
  readonly createdAt: string;
  /** Set by a rotation: the key stops working at this instant. */
  readonly expiresAt?: string;
  readonly revokedAt?: string;
}

export type ApiKeyState = 'active' | 'expiring' | 'expired' | 'revoked';

export const apiKeyState = (record: ApiKeyRecord, now: Date): ApiKeyState => {
  if (record.revokedAt !== undefined) return 'revoked';
  if (record.expiresAt === undefined) return 'active';
  return Date.parse(record.expiresAt) > now.getTime() ? 'expiring' : 'expired';
};

/** A binding presented at `now`: live unless a rotation's grace period is over. */
export const isLiveBinding = (binding: ApiKeyBinding, now: Date): boolean =>
  binding.expiresAt === undefined || Date.parse(binding.expiresAt) > now.getTime();

/**
 * The keys a rotation of (tenant, source) sets to expire, and when: every active key of that source
 * (an expiring one keeps its earlier end; revoked and expired ones are left alone).
 */
export const rotationExpiries = (
  records: readonly ApiKeyRecord[],
  source: string,
  now: Date,
  graceSeconds: number,
): { keyId: string; expiresAt: string }[] => {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0)
    throw new Error('the grace period must be a whole number of seconds, 0 or more');
  const expiresAt = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  return records
    .filter((record) => record.source === source && apiKeyState(record, now) === 'active')
    .map((record) => ({ keyId: record.keyId, expiresAt }));
};
