/**
 * Google Pub/Sub push authentication: every push carries `Authorization: Bearer <OIDC token>` signed by
 * Google for the service account the subscription is configured with. A push is accepted when the token
 * verifies against Google's keys (the key resolver is injected: `jose`'s remote JWK set in Lambda, a
 * local key set in tests and the local run), its issuer is Google's, its audience is our endpoint, it
 * has not expired, and its verified `email` is the service account configured for a tenant. The tenant
 * is that binding's, never the body's.
 * https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions
 */
import type { JWTVerifyGetKey } from 'jose';
import { verifyBearer, type PushSender } from './bearer-token';
import { refuse, type Refusal } from './refusal';

export const GOOGLE_ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

export interface PubSubTokenPolicy {
  /** The audience the subscriptions are configured with: our push endpoint's URL. */
  readonly audience: string;
  /** Service account e-mail → tenant. */
  readonly tenantByServiceAccount: Readonly<Record<string, string>>;
  readonly keys: JWTVerifyGetKey;
  /** Seconds of clock skew tolerated on `exp`/`iat`. */
  readonly clockToleranceSeconds?: number;
}

/** The tenant of a push, or why it is refused. Key-fetch failures (network) are thrown: a 5xx, retried. */
export const verifyPubSubToken = async (
  authorization: string | undefined,
  policy: PubSubTokenPolicy,
  now: Date,
): Promise<PushSender | Refusal> => {
  const verified = await verifyBearer(
    authorization,
    {
      keys: policy.keys,
      issuers: GOOGLE_ISSUERS,
      audience: policy.audience,
      requiredClaims: ['exp', 'iat', 'email'],
      clockToleranceSeconds: policy.clockToleranceSeconds ?? 30,
      wording: {
        missing: 'no Authorization header',
        wrongIssuer: 'the token was not issued by Google',
        wrongAudience: 'the token is for another audience than this endpoint',
        badSignature: 'the token is not signed by a key of the issuer',
      },
    },
    now,
  );
  if (!verified.ok) return verified;
  const { payload } = verified;
  const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : '';
  const tenant = Object.hasOwn(policy.tenantByServiceAccount, email)
    ? policy.tenantByServiceAccount[email]
    : undefined;
  if (tenant === undefined)
    return refuse(403, 'unknown-sender', `${email || 'the token'} is no tenant's service account`);
  if (payload.email_verified !== true)
    return refuse(403, 'unverified-email', `${email} is not a verified e-mail`);
  return { ok: true, tenant, principal: email };
};
