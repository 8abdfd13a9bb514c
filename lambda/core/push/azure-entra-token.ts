/**
 * Azure's secure webhook: an action group whose webhook action has "Enable secure webhook" (Microsoft
 * Entra ID authentication) sends `Authorization: Bearer <access token>` that it obtained, as the Action
 * Groups first-party application, for the app registration the user created for this endpoint. A call is
 * accepted when the token verifies against Microsoft's published keys (the key resolver is injected:
 * `jose`'s remote JWK set of the Entra tenant in Lambda, a local key set in tests), was issued by that
 * Entra tenant (v2 `https://login.microsoftonline.com/<tenant>/v2.0` or v1 `https://sts.windows.net/<tenant>/`),
 * its audience is the app registration (its Application ID URI or application id), it has not expired, and
 * its caller — `appid` (v1) or `azp` (v2) — is the Action Groups application (Microsoft's documented id,
 * or one configured). The billing-dedup tenant is the one the URL names and the configuration binds to that
 * Entra tenant and audience, never the body's.
 * https://learn.microsoft.com/azure/azure-monitor/alerts/action-groups (secure webhook)
 */
import { errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { PushSender } from './pubsub-token';
import { refuse, type Refusal } from './refusal';

/** The Action Groups application's id in Microsoft Entra ID, as Microsoft's action-group docs give it. */
export const AZURE_ACTION_GROUPS_APP_ID = '461e8683-5575-4561-ac7f-899cc907d62a';

export interface EntraTokenPolicy {
  /** The Entra tenant (directory) id the app registration lives in. */
  readonly entraTenantId: string;
  /** The app registration's Application ID URI or application id: the token's `aud`. */
  readonly audience: string;
  /** The caller's application id (`appid`/`azp`); default AZURE_ACTION_GROUPS_APP_ID. */
  readonly callerAppId?: string;
  readonly keys: JWTVerifyGetKey;
  readonly clockToleranceSeconds?: number;
}

export const entraIssuers = (entraTenantId: string): string[] => [
  `https://login.microsoftonline.com/${entraTenantId}/v2.0`,
  `https://sts.windows.net/${entraTenantId}/`,
];

/** Microsoft's signing keys for a tenant (the same keys sign v1 and v2 tokens). */
export const entraJwksUrl = (entraTenantId: string): string =>
  `https://login.microsoftonline.com/${entraTenantId}/discovery/v2.0/keys`;

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/;

const failure = (error: unknown): Refusal => {
  if (error instanceof errors.JWTExpired) return refuse(401, 'expired', 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss')
      return refuse(401, 'wrong-issuer', "the token was not issued by this tenant's Entra ID");
    if (error.claim === 'aud')
      return refuse(403, 'wrong-audience', 'the token is for another app registration');
    return refuse(401, 'malformed-credential', `the token's "${error.claim}" claim is invalid`);
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  )
    return refuse(401, 'bad-signature', 'the token is not signed by a key of Microsoft Entra ID');
  if (error instanceof errors.JOSEError)
    return refuse(401, 'malformed-credential', `the token cannot be read (${error.code})`);
  throw error;
};

/** The sender of a secure webhook call for `tenant`, or why it is refused. Key-fetch failures throw (5xx). */
export const verifyEntraToken = async (
  tenant: string,
  authorization: string | undefined,
  policy: EntraTokenPolicy,
  now: Date,
): Promise<PushSender | Refusal> => {
  if (authorization === undefined || authorization.trim() === '')
    return refuse(401, 'missing-credential', 'no Authorization header (secure webhook)');
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    return refuse(401, 'malformed-credential', 'expected "Authorization: Bearer <JWT>"');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, policy.keys, {
      issuer: entraIssuers(policy.entraTenantId),
      audience: policy.audience,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'iat'],
      currentDate: now,
      clockTolerance: policy.clockToleranceSeconds ?? 300,
    }));
  } catch (error) {
    return failure(error);
  }
  const caller =
    typeof payload.appid === 'string'
      ? payload.appid
      : typeof payload.azp === 'string'
        ? payload.azp
        : undefined;
  const expected = (policy.callerAppId ?? AZURE_ACTION_GROUPS_APP_ID).toLowerCase();
  if (caller?.toLowerCase() !== expected)
    return refuse(
      403,
      'unknown-sender',
      `the token's caller ${caller ?? '(none)'} is not the Action Groups application`,
    );
  return { ok: true, tenant, principal: `azure-entra:${caller}` };
};
