/**
 * Ingest API keys: a producer presents `Authorization: Bearer <key>` (or `x-api-key`); the stack keeps
 * only the key's SHA-256, bound to one tenant and source. Rotation is adding the new key's hash and
 * giving the old one an end (`api-key-lifecycle.ts`), no redeploy; both work in between.
 */
import { sha256Hex } from '../keys';

export interface ApiKeyBinding {
  readonly tenant: string;
  readonly source: string;
  /** Set when a rotation replaced the key: it is refused (401 `expired`) from then on. */
  readonly expiresAt?: string;
}

export interface ApiKeyStore {
  bindingOf(keyHash: string): Promise<ApiKeyBinding | undefined>;
}

const BEARER = /^Bearer\s+(\S{16,512})\s*$/;

/** The presented key, or undefined when none (or none of a plausible length) is there. */
export const presentedApiKey = (headers: Readonly<Record<string, string | undefined>>) => {
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey !== undefined && apiKey.length >= 16 && apiKey.length <= 512) return apiKey;
  return BEARER.exec(headers.authorization ?? '')?.[1];
};

export const apiKeyHash = (key: string): string => sha256Hex(key);
