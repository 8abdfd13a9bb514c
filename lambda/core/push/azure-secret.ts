/**
 * Azure action-group webhook authentication by a per-tenant secret token: the action group's webhook URL
 * carries the tenant and the token (`…/azure/<tenant>?token=<secret>`). The presented token is compared
 * with the tenant's in constant time: both are hashed first, so neither the length nor a common prefix
 * shows in the timing. An unknown tenant is refused like a wrong token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { PushSender } from './pubsub-token';
import { refuse, type Refusal } from './refusal';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(digest(presented), digest(expected));

export const verifyAzureSecret = (
  tenant: string,
  presented: string | undefined,
  secretOf: (tenant: string) => string | undefined,
): PushSender | Refusal => {
  if (presented === undefined || presented === '')
    return refuse(401, 'missing-credential', 'no token in the webhook URL');
  const expected = secretOf(tenant);
  // Compared even for an unknown tenant, so that the answer takes as long either way.
  const matches = sameSecret(presented, expected ?? '\u0000no tenant');
  if (expected === undefined || !matches)
    return refuse(401, 'wrong-secret', 'the token does not match this tenant');
  return { ok: true, tenant, principal: `azure-webhook:${tenant}` };
};
