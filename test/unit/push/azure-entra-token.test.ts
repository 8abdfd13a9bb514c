/** Azure's secure webhook (Entra ID token), verified without network against a local key set. */
import { localGoogleKeys, type LocalGoogleKeys } from '../../support/google-tokens';
import {
  AZURE_ACTION_GROUPS_APP_ID,
  verifyEntraToken,
  type EntraTokenPolicy,
} from '../../../lambda/core/push/azure-entra-token';
import { handlePush, type PushDeps } from '../../../lambda/core/push/route';
import type { Publication } from '../../../lambda/core/push/publication';

const ENTRA_TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const AUDIENCE = 'api://billing-dedup-push';
const NOW = new Date();
let keys: LocalGoogleKeys;
let forger: LocalGoogleKeys;
let policy: EntraTokenPolicy;

beforeAll(async () => {
  keys = await localGoogleKeys('entra-1');
  forger = await localGoogleKeys('entra-1');
  policy = { entraTenantId: ENTRA_TENANT, audience: AUDIENCE, keys: keys.resolver };
});

const v1 = (extra: Record<string, unknown> = {}) => ({
  iss: `https://sts.windows.net/${ENTRA_TENANT}/`,
  aud: AUDIENCE,
  appid: AZURE_ACTION_GROUPS_APP_ID,
  tid: ENTRA_TENANT,
  roles: ['ActionGroupsSecureWebhook'],
  ...extra,
});
const bearer = async (claims: Record<string, unknown>, signer = keys, lifetimeSeconds = 3600) =>
  `Bearer ${await signer.sign(claims, { lifetimeSeconds, issuedAt: new Date(NOW.getTime() - 60_000) })}`;
const verify = async (authorization: string | undefined, p = policy) =>
  verifyEntraToken('acme', authorization, p, NOW);

describe('Azure secure webhook token', () => {
  it('accepts a v1 token (appid) and a v2 token (azp) of the Action Groups app for our audience', async () => {
    expect(await verify(await bearer(v1()))).toEqual({
      ok: true,
      tenant: 'acme',
      principal: `azure-entra:${AZURE_ACTION_GROUPS_APP_ID}`,
    });
    const v2 = {
      ...v1({ iss: `https://login.microsoftonline.com/${ENTRA_TENANT}/v2.0` }),
      appid: undefined,
      azp: AZURE_ACTION_GROUPS_APP_ID,
    };
    expect(await verify(await bearer(v2))).toMatchObject({ ok: true, tenant: 'acme' });
  });

  it.each([
    ['no header', undefined, 401, 'missing-credential'],
    ['a forged signature', 'forged', 401, 'bad-signature'],
    [
      'another Entra tenant',
      { iss: 'https://sts.windows.net/00000000-0000-0000-0000-000000000001/' },
      401,
      'wrong-issuer',
    ],
    ['another audience', { aud: 'api://someone-else' }, 403, 'wrong-audience'],
    [
      'another caller app',
      { appid: '11111111-2222-3333-4444-555555555555' },
      403,
      'unknown-sender',
    ],
  ])('refuses %s', async (_name, variant, status, reason) => {
    const authorization =
      variant === undefined
        ? undefined
        : variant === 'forged'
          ? await bearer(v1(), forger)
          : await bearer(v1(variant as Record<string, unknown>));
    expect(await verify(authorization)).toMatchObject({ ok: false, status, reason });
  });

  it('refuses an expired token (beyond the clock tolerance)', async () => {
    const old = `Bearer ${await keys.sign(v1(), { issuedAt: new Date(NOW.getTime() - 7200_000), lifetimeSeconds: 3600 })}`;
    expect(await verify(old)).toMatchObject({ ok: false, status: 401, reason: 'expired' });
  });

  it('honours a configured caller app id', async () => {
    const own = '11111111-2222-3333-4444-555555555555';
    expect(
      await verify(await bearer(v1({ appid: own })), { ...policy, callerAppId: own }),
    ).toMatchObject({ ok: true });
  });

  it('the /azure route uses the token for a secure-webhook tenant, ignoring any ?token=', async () => {
    const published: Publication[] = [];
    const deps: PushDeps = {
      maxBodyBytes: 65536,
      azureEntraPolicyOf: (tenant) => (tenant === 'acme' ? policy : undefined),
      publish: async (p) => {
        published.push(...p);
      },
      onRefused: () => undefined,
    };
    const body = JSON.stringify({
      schemaId: 'AIP Budget Notification',
      data: {
        SubscriptionId: '11111111-1111-1111-1111-111111111111',
        SpendingAmount: '1111.32',
        Budget: '10000',
        Unit: 'USD',
        BudgetName: 'test-budgetName',
        BudgetType: 'Cost',
        NotificationThresholdAmount: '8000.0',
      },
    });
    const call = async (authorization?: string) =>
      handlePush(
        {
          method: 'POST',
          path: '/azure/acme',
          headers: authorization ? { authorization } : {},
          query: { token: 'anything' },
          body,
          receivedAt: NOW,
        },
        deps,
      );
    expect((await call()).status).toBe(401);
    expect(published).toHaveLength(0);
    const accepted = await call(await bearer(v1()));
    expect(accepted.status).toBe(200);
    expect(published).toHaveLength(1);
    expect(published[0].tenant).toBe('acme');
  });
});
