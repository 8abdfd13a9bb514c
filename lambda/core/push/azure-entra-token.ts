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
import type { JWTVerifyGetKey } from 'jose';
import { verifyBearer, type PushSender } from './bearer-token';
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

/** The sender of a secure webhook call for `tenant`, or why it is refused. Key-fetch failures throw (5xx). */
export const verifyEntraToken = async (
  tenant: string,
  authorization: string | undefined,
  policy: EntraTokenPolicy,
  now: Date,
): Promise<PushSender | Refusal> => {
  const verified = await verifyBearer(
    authorization,
    {
      keys: policy.keys,
      issuers: entraIssuers(policy.entraTenantId),
      audience: policy.audience,
      requiredClaims: ['exp', 'iat'],
      clockToleranceSeconds: policy.clockToleranceSeconds ?? 300,
      wording: {
        missing: 'no Authorization header (secure webhook)',
        wrongIssuer: "the token was not issued by this tenant's Entra ID",
        wrongAudience: 'the token is for another app registration',
        badSignature: 'the token is not signed by a key of Microsoft Entra ID',
      },
    },
    now,
  );
  if (!verified.ok) return verified;
  const { payload } = verified;
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
