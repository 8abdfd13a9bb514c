/**
 * Azure action-group webhook authentication by a per-tenant secret token: the action group's webhook URL
 * carries the tenant and the token (`…/azure/<tenant>?token=<secret>`). The stack keeps only the token's
 * SHA-256 (like the ingest API keys); the presented token is hashed and compared with it in constant
 * time (`timingSafeEqual` on the two 32-byte digests), so neither its length nor a common prefix shows
 * in the timing. An unknown tenant is refused like a wrong token, after the same comparison.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { PushSender } from './bearer-token';
import { refuse, type Refusal } from './refusal';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const NO_TENANT = Buffer.alloc(32);
const SHA256_HEX = /^[0-9a-f]{64}$/;

export const secretHash = (secret: string): string => digest(secret).toString('hex');

export const verifyAzureSecret = (
  tenant: string,
  presented: string | undefined,
  storedHash: string | undefined,
): PushSender | Refusal => {
  if (presented === undefined || presented === '')
    return refuse(401, 'missing-credential', 'no token in the webhook URL');
  const known = storedHash !== undefined && SHA256_HEX.test(storedHash);
  const matches = timingSafeEqual(
    digest(presented),
    known ? Buffer.from(storedHash, 'hex') : NO_TENANT,
  );
  if (!known || !matches)
    return refuse(401, 'wrong-secret', 'the token does not match this tenant');
  return { ok: true, tenant, principal: `azure-webhook:${tenant}` };
};
