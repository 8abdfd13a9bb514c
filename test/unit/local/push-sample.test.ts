/**
 * The local run's push sample against the endpoint's own routes (lambda/core/push/route.ts) with
 * in-memory credentials, idempotency keys and rate counter, over the local HTTP API stand-in on a
 * loopback port (its IAM route verifying SigV4 signatures of the sample roles' local sessions): every
 * request gets the answer the sample expects, the forgeries publish nothing, the
 * retry and the second deliveries publish nothing new, and the truth holds one alert per notification
 * and one charge per event.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { localGoogleKeys, type LocalGoogleKeys } from '../../../local/emulators/google-keys';
import { startLocalHttpApi, type LocalHttpApi } from '../../../local/emulators/http-api';
import type { LocalIamIdentity } from '../../../local/emulators/iam-authorizer';
import { runPushSample, type PushCredentials } from '../../../local/phases/push';
import { pushCheck } from '../../../local/report/push-report';
import {
  PUSH_ACCOUNTS,
  PUSH_BURST_SIZE,
  iamRoleArn,
  iamSessionArn,
  pushSample,
  type PushSample,
} from '../../../local/scenarios/push-requests';
import { TruthBuilder } from '../../../local/scenarios/truth';
import { generateSample } from '../../../local/scenarios/generator';
import { apiKeyHash, type ApiKeyBinding } from '../../../lambda/core/ingest/api-key';
import type { KeyRecord } from '../../../lambda/core/ingest/idempotency';
import type { Publication } from '../../../lambda/core/push/publication';
import { secretHash } from '../../../lambda/core/push/azure-secret';
import { iamCallerBindings, type IamCallerIdentity } from '../../../lambda/core/push/iam-caller';
import { handlePush, type PushDeps } from '../../../lambda/core/push/route';

const REGION = 'us-east-1';
const SAMPLE = pushSample(new TruthBuilder());
const SESSIONS = new Map<string, LocalIamIdentity>(
  SAMPLE.iamRoles.map((role, index) => [
    role.name,
    {
      accessKeyId: `ASIATEST${index}`,
      secretAccessKey: `secret-${role.name}`,
      sessionToken: `token-${role.name}`,
      userArn: iamSessionArn(role),
      accountId: role.account,
    },
  ]),
);

let api: LocalHttpApi;
let google: LocalGoogleKeys;
let forger: LocalGoogleKeys;

beforeAll(async () => {
  api = await startLocalHttpApi({
    iam: { region: REGION, paths: ['/v1/iam/events'], identities: [...SESSIONS.values()] },
  });
  google = await localGoogleKeys();
  forger = await localGoogleKeys();
});
afterAll(() => api.stop());

/** The routes with in-memory ports; `windows` moves the rate counter to a new minute (a sleep). */
const inMemoryEndpoint = (sample: PushSample, credentials: PushCredentials) => {
  const published: Publication[] = [];
  const keys = new Map<string, KeyRecord>();
  const counts = new Map<string, number>();
  const bindings = new Map<string, ApiKeyBinding>();
  for (const { name, tenant, source } of sample.apiKeys)
    bindings.set(apiKeyHash(credentials.apiKeys.get(name) as string), { tenant, source });
  const clock = { window: 0 };
  const deps: PushDeps = {
    maxBodyBytes: 256 * 1024,
    pubsub: {
      audience: `${api.url}/pubsub`,
      tenantByServiceAccount: sample.serviceAccounts,
      keys: google.resolver,
    },
    azureSecretHashOf: async (tenant) => {
      const token = credentials.azureTokens.get(tenant);
      return token === undefined ? undefined : secretHash(token);
    },
    ingest: {
      apiKeys: { bindingOf: async (hash) => bindings.get(hash) },
      iamCallers: iamCallerBindings(
        sample.iamRoles.flatMap((role) =>
          role.bound ? [{ principal: iamRoleArn(role), ...role.bound }] : [],
        ),
      ),
      ports: {
        keys: {
          claim: async (key, bodyHash) => {
            const existing = keys.get(key);
            if (existing === undefined) keys.set(key, { bodyHash, status: 'pending' });
            return existing;
          },
          markPublished: async (key, bodyHash, answer) => {
            keys.set(key, { bodyHash, status: 'published', answer });
          },
        },
        publish: async (publications) => {
          published.push(...publications);
        },
      },
      rateLimit: {
        perMinute: sample.ingestPerMinute,
        counter: {
          take: async (scope, _window, limit) => {
            const slot = `${scope}#${clock.window}`;
            const count = (counts.get(slot) ?? 0) + 1;
            counts.set(slot, count);
            return count <= limit;
          },
        },
      },
    },
    publish: async (publications) => {
      published.push(...publications);
    },
    onRefused: () => undefined,
  };
  api.attach(async (event: APIGatewayProxyEventV2) => {
    const answer = await handlePush(
      {
        method: event.requestContext.http.method,
        path: event.rawPath,
        headers: event.headers as Record<string, string>,
        query: event.queryStringParameters ?? {},
        body: event.body ?? '',
        receivedAt: new Date(event.requestContext.timeEpoch),
        iamCaller: (event.requestContext as { authorizer?: { iam?: IamCallerIdentity } }).authorizer
          ?.iam,
      },
      deps,
    );
    return { statusCode: answer.status, headers: answer.headers, body: answer.body };
  });
  return { published, clock };
};

const credentialsFor = (sample: PushSample): PushCredentials => ({
  apiKeys: new Map(sample.apiKeys.map(({ name }) => [name, `bd_test_${name}_0123456789abcdef`])),
  azureTokens: new Map(sample.azureTenants.map((tenant) => [tenant, `azure-token-${tenant}-0123`])),
  iam: { region: REGION, sessions: SESSIONS },
});

describe('the push sample', () => {
  it('is answered as it expects: accepted, replayed, 409, refusals by reason, the burst throttled then accepted', async () => {
    const sample = pushSample(new TruthBuilder());
    const credentials = credentialsFor(sample);
    const { published, clock } = inMemoryEndpoint(sample, credentials);
    const report = await runPushSample({
      url: api.url,
      audience: `${api.url}/pubsub`,
      google,
      forger,
      credentials,
      sample,
      // A Retry-After wait moves the rate counter to the next minute instead of sleeping.
      sleep: async () => {
        clock.window++;
      },
    });
    expect(report.outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(pushCheck(report, true)).toMatchObject({ ok: true });
    expect(report.byRoute.pubsub).toEqual({
      accepted: 4,
      replayed: 0,
      conflicts: 0,
      refused: {
        'bad-signature': 1,
        expired: 1,
        'tenant-mismatch': 1,
        'wrong-audience': 1,
        'unknown-sender': 1,
      },
      throttled: 0,
    });
    expect(report.byRoute.azure).toEqual({
      accepted: 3,
      replayed: 0,
      conflicts: 0,
      refused: { 'wrong-secret': 1, 'missing-credential': 1 },
      throttled: 0,
    });
    expect(report.byRoute.ingest).toMatchObject({
      accepted: 2 + PUSH_BURST_SIZE,
      replayed: 1,
      conflicts: 1,
      refused: { 'tenant-mismatch': 1, 'wrong-secret': 1 },
    });
    expect(report.byRoute.ingest.throttled).toBeGreaterThanOrEqual(1);
    // The bound role's signed event is accepted; an unbound role reaches the function and is refused
    // there; a forged signature is refused by the (stand-in) gateway before the function runs.
    expect(report.byRoute.iam).toEqual({
      accepted: 1,
      replayed: 0,
      conflicts: 0,
      refused: { 'unknown-caller': 1, '403': 1 },
      throttled: 0,
    });
    // What reached the topics: the accepted requests only — the second deliveries are duplicates the
    // consumers drop; the replay, the conflict and every forgery published nothing.
    const alerts = published.filter((p) => p.topic === 'alerts');
    const charges = published.filter((p) => p.topic === 'cost-events');
    expect(alerts).toHaveLength(2 + 3);
    expect(charges).toHaveLength(2 + 3 + 1 + PUSH_BURST_SIZE);
    expect(new Set(charges.map((p) => p.messageDeduplicationId)).size).toBe(
      1 + 3 + 1 + PUSH_BURST_SIZE,
    );
    expect(charges.find((p) => p.message.includes('meter-iam-0001'))?.attributes).toMatchObject({
      tenant: 'acme',
      source: 'metering',
    });
    expect(published.every((p) => p.tenant === 'acme' || p.tenant === 'initech')).toBe(true);
    // The AIP alert's key depends on when it was received: the answer carries it.
    expect(report.outcomes.filter((outcome) => outcome.alertKey)).toHaveLength(1);
  });

  it('adds to the truth one alert per notification and one charge per event, none for the forgeries', () => {
    const truth = new TruthBuilder();
    pushSample(truth);
    const built = truth.build();
    // The GCP budget and the Azure common-schema alert (the AIP one is keyed when received).
    expect(built.notificationKeys).toHaveLength(2);
    expect(built.ledger).toEqual([
      expect.objectContaining({
        tenant: 'acme',
        accountId: PUSH_ACCOUNTS.acme,
        period: '2026-11',
        total: '36.65',
        charges: 5,
      }),
      expect.objectContaining({
        tenant: 'initech',
        accountId: PUSH_ACCOUNTS.initech,
        total: '0.65',
        charges: PUSH_BURST_SIZE,
      }),
    ]);
  });

  it('uses accounts no other scenario books', () => {
    const { messages } = generateSample({ seed: 42, chargesPerAccountMonth: 3 });
    for (const account of Object.values(PUSH_ACCOUNTS))
      expect(messages.some((m) => m.message.includes(account))).toBe(false);
  });
});
