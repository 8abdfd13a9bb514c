/**
 * Google Pub/Sub push authentication: every push carries `Authorization: Bearer <OIDC token>` signed by
 * Google for the service account the subscription is configured with. A push is accepted when the token
 * verifies against Google's keys (the key resolver is injected: `jose`'s remote JWK set in Lambda, a
 * local key set in tests and the local run), its issuer is Google's, its audience is our endpoint, it
 * has not expired, and its verified `email` is the service account configured for a tenant. The tenant
 * is that binding's, never the body's.
 * https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions
 */
import { errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
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

export interface PushSender {
  readonly ok: true;
  readonly tenant: string;
  readonly principal: string;
}

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/;

const claimFailure = (error: errors.JWTClaimValidationFailed): Refusal => {
  if (error.claim === 'iss')
    return refuse(401, 'wrong-issuer', 'the token was not issued by Google');
  if (error.claim === 'aud')
    return refuse(403, 'wrong-audience', 'the token is for another audience than this endpoint');
  return refuse(401, 'malformed-credential', `the token's "${error.claim}" claim is invalid`);
};

const verificationFailure = (error: unknown): Refusal => {
  if (error instanceof errors.JWTExpired) return refuse(401, 'expired', 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error);
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  )
    return refuse(401, 'bad-signature', 'the token is not signed by a key of the issuer');
  if (error instanceof errors.JOSEError)
    return refuse(401, 'malformed-credential', `the token cannot be read (${error.code})`);
  throw error;
};

/** The tenant of a push, or why it is refused. Key-fetch failures (network) are thrown: a 5xx, retried. */
export const verifyPubSubToken = async (
  authorization: string | undefined,
  policy: PubSubTokenPolicy,
  now: Date,
): Promise<PushSender | Refusal> => {
  if (authorization === undefined || authorization.trim() === '')
    return refuse(401, 'missing-credential', 'no Authorization header');
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    return refuse(401, 'malformed-credential', 'expected "Authorization: Bearer <JWT>"');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, policy.keys, {
      issuer: GOOGLE_ISSUERS,
      audience: policy.audience,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'iat', 'email'],
      currentDate: now,
      clockTolerance: policy.clockToleranceSeconds ?? 30,
    }));
  } catch (error) {
    return verificationFailure(error);
  }
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
