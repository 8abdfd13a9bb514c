/**
 * The one check behind every push sender that proves itself with a signed bearer token (Google Pub/Sub's
 * OIDC token, Azure's Entra ID secure webhook): the `Authorization: Bearer <JWT>` header read, the token
 * verified with `jose` against the issuer's keys (injected), its issuer, audience, expiry and required
 * claims checked, and every failure turned into the refusal that tells the sender what is wrong. What a
 * valid token must further say (which e-mail, which application) is the caller's.
 */
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { refuse, type Refusal } from './refusal';

/** An accepted sender: the tenant the configuration binds it to, and who it proved to be. */
export interface PushSender {
  readonly ok: true;
  readonly tenant: string;
  readonly principal: string;
}

export interface BearerTokenPolicy {
  readonly keys: JWTVerifyGetKey;
  readonly issuers: readonly string[];
  readonly audience: string;
  readonly requiredClaims: readonly string[];
  readonly clockToleranceSeconds: number;
  /** The refusals' wording for this sender: who should have issued and signed, what is missing. */
  readonly wording: {
    readonly missing: string;
    readonly wrongIssuer: string;
    readonly wrongAudience: string;
    readonly badSignature: string;
  };
}

export interface VerifiedToken {
  readonly ok: true;
  readonly payload: JWTPayload;
}

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/;

const failure = (error: unknown, wording: BearerTokenPolicy['wording']): Refusal => {
  if (error instanceof errors.JWTExpired) return refuse(401, 'expired', 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return refuse(401, 'wrong-issuer', wording.wrongIssuer);
    if (error.claim === 'aud') return refuse(403, 'wrong-audience', wording.wrongAudience);
    return refuse(401, 'malformed-credential', `the token's "${error.claim}" claim is invalid`);
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  )
    return refuse(401, 'bad-signature', wording.badSignature);
  if (error instanceof errors.JOSEError)
    return refuse(401, 'malformed-credential', `the token cannot be read (${error.code})`);
  throw error;
};

/** The token's verified claims, or why it is refused. Key-fetch failures (network) throw: a 5xx, retried. */
export const verifyBearer = async (
  authorization: string | undefined,
  policy: BearerTokenPolicy,
  now: Date,
): Promise<VerifiedToken | Refusal> => {
  if (authorization === undefined || authorization.trim() === '')
    return refuse(401, 'missing-credential', policy.wording.missing);
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    return refuse(401, 'malformed-credential', 'expected "Authorization: Bearer <JWT>"');
  try {
    const { payload } = await jwtVerify(token, policy.keys, {
      issuer: [...policy.issuers],
      audience: policy.audience,
      algorithms: ['RS256'],
      requiredClaims: [...policy.requiredClaims],
      currentDate: now,
      clockTolerance: policy.clockToleranceSeconds,
    });
    return { ok: true, payload };
  } catch (error) {
    return failure(error, policy.wording);
  }
};
