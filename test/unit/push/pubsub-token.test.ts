/** Pub/Sub push OIDC tokens: each check refuses with its own reason, no network (a local key set). */
import { verifyPubSubToken, type PubSubTokenPolicy } from '../../../lambda/core/push/pubsub-token';
import { localGoogleKeys, pushClaims, type LocalGoogleKeys } from '../../support/google-tokens';

const AUDIENCE = 'https://push.example.com/pubsub';
const ACME_SA = 'billing-push@acme-prod.iam.gserviceaccount.com';
const GLOBEX_SA = 'push@globex.iam.gserviceaccount.com';
const NOW = new Date('2026-11-28T10:00:00Z');

let google: LocalGoogleKeys;
let policy: PubSubTokenPolicy;

beforeAll(async () => {
  google = await localGoogleKeys();
  policy = {
    audience: AUDIENCE,
    tenantByServiceAccount: { [ACME_SA]: 'acme', [GLOBEX_SA]: 'globex' },
    keys: google.resolver,
  };
});

const bearer = (token: string): string => `Bearer ${token}`;
const verify = (authorization: string | undefined) => verifyPubSubToken(authorization, policy, NOW);

it('a token of a tenant service account for our audience gives that tenant', async () => {
  const token = await google.sign(pushClaims(AUDIENCE, ACME_SA), { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toEqual({
    ok: true,
    tenant: 'acme',
    principal: ACME_SA,
  });
});

it('the bare issuer "accounts.google.com" is Google too', async () => {
  const claims = { ...pushClaims(AUDIENCE, GLOBEX_SA), iss: 'accounts.google.com' };
  const token = await google.sign(claims, { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toMatchObject({ ok: true, tenant: 'globex' });
});

it.each([
  ['no header', 401, 'missing-credential', undefined],
  ['not a bearer token', 401, 'malformed-credential', 'Basic dXNlcjpwYXNz'],
])('%s → %i %s', async (_name, status, reason, header) => {
  await expect(verify(header)).resolves.toMatchObject({ ok: false, status, reason });
});

it('a token signed by another key (forged) is 401 bad-signature', async () => {
  const forger = await localGoogleKeys('local-1');
  const token = await forger.sign(pushClaims(AUDIENCE, ACME_SA), { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toMatchObject({
    status: 401,
    reason: 'bad-signature',
  });
});

it('a token whose key id is not in the key set is 401 bad-signature', async () => {
  const token = await google.sign(pushClaims(AUDIENCE, ACME_SA), {
    issuedAt: NOW,
    keyId: 'rotated-away',
  });
  await expect(verify(bearer(token))).resolves.toMatchObject({ reason: 'bad-signature' });
});

it('an expired token is 401 expired', async () => {
  const token = await google.sign(pushClaims(AUDIENCE, ACME_SA), {
    issuedAt: new Date(NOW.getTime() - 2 * 3600_000),
  });
  await expect(verify(bearer(token))).resolves.toMatchObject({ status: 401, reason: 'expired' });
});

it('another issuer is 401 wrong-issuer', async () => {
  const claims = { ...pushClaims(AUDIENCE, ACME_SA), iss: 'https://evil.example.com' };
  const token = await google.sign(claims, { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toMatchObject({ reason: 'wrong-issuer' });
});

it('a token for another audience is 403 wrong-audience', async () => {
  const token = await google.sign(pushClaims('https://other.example.com/', ACME_SA), {
    issuedAt: NOW,
  });
  await expect(verify(bearer(token))).resolves.toMatchObject({
    status: 403,
    reason: 'wrong-audience',
  });
});

it('a service account of no tenant is 403 unknown-sender', async () => {
  const token = await google.sign(pushClaims(AUDIENCE, 'x@other.iam.gserviceaccount.com'), {
    issuedAt: NOW,
  });
  await expect(verify(bearer(token))).resolves.toMatchObject({
    status: 403,
    reason: 'unknown-sender',
  });
});

it('an unverified e-mail is 403 unverified-email', async () => {
  const claims = { ...pushClaims(AUDIENCE, ACME_SA), email_verified: false };
  const token = await google.sign(claims, { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toMatchObject({ reason: 'unverified-email' });
});

it('a token without an email claim is refused', async () => {
  const { email: _email, ...claims } = pushClaims(AUDIENCE, ACME_SA);
  const token = await google.sign(claims, { issuedAt: NOW });
  await expect(verify(bearer(token))).resolves.toMatchObject({ ok: false, status: 401 });
});
