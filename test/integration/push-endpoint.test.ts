/**
 * The push endpoint's handler against DynamoDB Local (credentials, idempotency keys) with SNS mocked:
 * every answer is checked against contract/push-api.openapi.json, and a 2xx only follows a publish SNS
 * took.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { FUNCTION_CONFIG_ENV } from '../../contract/function-config';
import { PUSH_ENV } from '../../contract/push-endpoint';
import { apiKeyItemKey, webhookSecretItemKey } from '../../lambda/adapters/table-layout';
import { apiKeyHash } from '../../lambda/core/ingest/api-key';
import { secretHash } from '../../lambda/core/push/azure-secret';
import { createPushEndpointHandler } from '../../lambda/handlers/push-endpoint';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { localGoogleKeys, pushClaims, type LocalGoogleKeys } from '../support/google-tokens';
import { openApiProblems } from '../support/openapi-check';

const AUDIENCE = 'https://push.example.com/pubsub';
const ACME_SA = 'billing-push@acme.iam.gserviceaccount.com';
const API_KEY = 'bd_live_acme_metering_0123456789abcdef';
const AZURE_TOKEN = 'azure-webhook-token-acme-0123456789';
const ALERTS = path.resolve(__dirname, '../fixtures/alerts');
const fixture = (name: string) => JSON.parse(readFileSync(path.join(ALERTS, name), 'utf8'));

const sns = new SNSClient({ region: 'us-east-1' });
const snsMock = mockClient(sns);
let dynamo: DynamoDBClient;
let tables: LedgerTables;
let google: LocalGoogleKeys;
let handle: ReturnType<typeof createPushEndpointHandler>;

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  google = await localGoogleKeys();
  const put = (key: { pk: string; sk: string }, fields: Record<string, string>) =>
    dynamo.send(
      new PutItemCommand({
        TableName: tables.ledgerTable,
        Item: Object.fromEntries(
          Object.entries({ ...key, ...fields }).map(([name, value]) => [name, { S: value }]),
        ),
      }),
    );
  await put(apiKeyItemKey(apiKeyHash(API_KEY)), { tenant: 'acme', source: 'metering' });
  await put(webhookSecretItemKey('acme'), { secretHash: secretHash(AZURE_TOKEN) });
  handle = handlerWith({});
});
afterAll(() => dynamo.destroy());

const handlerWith = (extra: Record<string, unknown>, extraEnv: Record<string, string> = {}) =>
  createPushEndpointHandler(
    {
      ...extraEnv,
      [PUSH_ENV.config]: JSON.stringify({
        pubsub: { audience: AUDIENCE, serviceAccounts: { [ACME_SA]: 'acme' } },
        azureTenants: ['acme'],
        ingest: true,
        maxBodyBytes: 4096,
        ...extra,
      }),
      [PUSH_ENV.alertsTopicArn]: 'arn:aws:sns:us-east-1:123456789012:alerts',
      [PUSH_ENV.costTopicArn]: 'arn:aws:sns:us-east-1:123456789012:cost-events.fifo',
      [PUSH_ENV.costTopicFifo]: 'true',
      LEDGER_TABLE_NAME: tables.ledgerTable,
      DEDUP_TABLE_NAME: tables.dedupTable,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    { dynamo, sns, keys: google.resolver },
  );
beforeEach(() => {
  snsMock.reset();
  snsMock.on(PublishBatchCommand).resolves({ Successful: [{ Id: '0' }], Failed: [] });
});

const request = (
  rawPath: string,
  body: unknown,
  headers: Record<string, string> = {},
  query?: Record<string, string>,
  timeEpoch = Date.now(),
): APIGatewayProxyEventV2 =>
  ({
    rawPath,
    headers: { 'content-type': 'application/json', ...headers },
    queryStringParameters: query,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST' }, timeEpoch },
  }) as unknown as APIGatewayProxyEventV2;

const send = async (specPath: string, event: APIGatewayProxyEventV2, via = handle) => {
  const answer = (await via(event)) as APIGatewayProxyStructuredResultV2;
  const observed = {
    statusCode: answer.statusCode ?? 0,
    headers: (answer.headers ?? {}) as Record<string, string>,
    body: String(answer.body ?? ''),
  };
  expect(openApiProblems(specPath, 'POST', observed)).toEqual([]);
  return observed;
};

const gcp = fixture('gcp-budget-with-attributes.json');
const pushBody = {
  message: {
    data: Buffer.from(JSON.stringify(gcp.data)).toString('base64'),
    attributes: gcp.attributes,
    messageId: '2070443601311540',
  },
  subscription: 'projects/acme/subscriptions/billing-dedup',
};
const bearer = async (claims = pushClaims(AUDIENCE, ACME_SA)) => ({
  authorization: `Bearer ${await google.sign(claims)}`,
});

describe('/pubsub', () => {
  it('a signed push is published to the alerts topic, then answered 200', async () => {
    const answer = await send('/pubsub', request('/pubsub', pushBody, await bearer()));
    expect(answer.statusCode).toBe(200);
    const published = snsMock.commandCalls(PublishBatchCommand)[0].args[0].input;
    expect(published.TopicArn).toContain(':alerts');
    expect(published.PublishBatchRequestEntries?.[0].MessageAttributes?.tenant.StringValue).toBe(
      'acme',
    );
  });

  it('SNS refusing the publish is a 503 (Pub/Sub retries), never a 2xx', async () => {
    snsMock
      .on(PublishBatchCommand)
      .resolves({ Failed: [{ Id: '0', Code: 'Throttled', SenderFault: false }] });
    const answer = await send('/pubsub', request('/pubsub', pushBody, await bearer()));
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBeDefined();
  });

  it('a push for another audience is 403 and nothing is published', async () => {
    const answer = await send(
      '/pubsub',
      request('/pubsub', pushBody, await bearer(pushClaims('https://other/', ACME_SA))),
    );
    expect(answer.statusCode).toBe(403);
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(0);
  });

  it('no token is 401; a body that is not JSON from Google is 400; too large is 413', async () => {
    expect((await send('/pubsub', request('/pubsub', pushBody))).statusCode).toBe(401);
    expect((await send('/pubsub', request('/pubsub', '{nope', await bearer()))).statusCode).toBe(
      400,
    );
    const big = { ...pushBody, padding: 'x'.repeat(5000) };
    expect((await send('/pubsub', request('/pubsub', big, await bearer()))).statusCode).toBe(413);
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(0);
  });
});

describe('/azure/{tenant}', () => {
  const alert = fixture('azure-budget-aip-test-action.json');

  it('the tenant’s token: published, 200', async () => {
    const answer = await send(
      '/azure/{tenant}',
      request('/azure/acme', alert, {}, { token: AZURE_TOKEN }),
    );
    expect(answer.statusCode).toBe(200);
  });

  it('a wrong token or another tenant’s path is 401, nothing published', async () => {
    for (const [path, token] of [
      ['/azure/acme', 'wrong-token-0123456789'],
      ['/azure/globex', AZURE_TOKEN],
    ]) {
      const answer = await send('/azure/{tenant}', request(path, alert, {}, { token }));
      expect(answer.statusCode).toBe(401);
    }
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(0);
  });
});

describe('/v1/events', () => {
  const event = {
    eventId: 'meter-42',
    accountId: '200000000011',
    chargePeriodStart: '2026-11-27T00:00:00Z',
    chargeCategory: 'usage',
    amount: '0.42',
    currency: 'USD',
  };
  const auth = (key: string) => ({ 'x-api-key': API_KEY, 'idempotency-key': key });

  it('202, then 200 marked as a replay, then 409 naming the key for another body', async () => {
    const key = `k-${Date.now()}`;
    const first = await send('/v1/events', request('/v1/events', event, auth(key)));
    expect(first.statusCode).toBe(202);
    const replay = await send('/v1/events', request('/v1/events', event, auth(key)));
    expect(replay).toMatchObject({ statusCode: 200, body: first.body });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const conflict = await send(
      '/v1/events',
      request('/v1/events', { ...event, amount: '0.43' }, auth(key)),
    );
    expect(conflict.statusCode).toBe(409);
    expect(JSON.parse(conflict.body)).toMatchObject({ error: 'key-reused', idempotencyKey: key });
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(1);
    const entry =
      snsMock.commandCalls(PublishBatchCommand)[0].args[0].input.PublishBatchRequestEntries?.[0];
    expect(entry?.MessageGroupId).toBe('acme#200000000011');
  });

  it('an unknown API key is 401; no Idempotency-Key is 400', async () => {
    expect(
      (
        await send(
          '/v1/events',
          request('/v1/events', event, {
            'x-api-key': 'unknown-key-0123456789',
            'idempotency-key': 'a',
          }),
        )
      ).statusCode,
    ).toBe(401);
    expect(
      (await send('/v1/events', request('/v1/events', event, { 'x-api-key': API_KEY }))).statusCode,
    ).toBe(400);
  });
});

describe('/v1/iam/events (SigV4, IAM role bound in iamCallers)', () => {
  const ROLE = 'arn:aws:iam::111122223333:role/billing/metering-producer';
  let iamHandle: ReturnType<typeof createPushEndpointHandler>;
  beforeAll(() => {
    // As deployed: the bindings in the function's configuration file (here inline), not PUSH_ENDPOINT.
    iamHandle = handlerWith(
      {},
      {
        [FUNCTION_CONFIG_ENV]: JSON.stringify({
          iamCallers: [{ principal: ROLE, tenant: 'acme', source: 'metering' }],
        }),
      },
    );
  });
  const event = {
    eventId: 'meter-iam-1',
    accountId: '200000000011',
    chargePeriodStart: '2026-11-27T00:00:00Z',
    chargeCategory: 'usage',
    amount: '1.25',
    currency: 'USD',
  };
  const signed = (role: string, body: unknown, key: string): APIGatewayProxyEventV2 => {
    const base = request('/v1/iam/events', body, { 'idempotency-key': key });
    return {
      ...base,
      requestContext: {
        ...base.requestContext,
        authorizer: {
          iam: {
            accountId: '111122223333',
            userArn: `arn:aws:sts::111122223333:assumed-role/${role}/producer-session`,
            callerId: 'AROAEXAMPLEID:producer-session',
          },
        },
      },
    } as APIGatewayProxyEventV2;
  };

  it('a bound role: 202 with the binding’s tenant, 200 replay, 409 for another body — the /v1/events contract', async () => {
    const key = `iam-${Date.now()}`;
    const first = await send('/v1/iam/events', signed('metering-producer', event, key), iamHandle);
    expect(first.statusCode).toBe(202);
    const replay = await send('/v1/iam/events', signed('metering-producer', event, key), iamHandle);
    expect(replay).toMatchObject({ statusCode: 200, body: first.body });
    const conflict = await send(
      '/v1/iam/events',
      signed('metering-producer', { ...event, amount: '1.26' }, key),
      iamHandle,
    );
    expect(conflict.statusCode).toBe(409);
    const calls = snsMock.commandCalls(PublishBatchCommand);
    expect(calls).toHaveLength(1);
    const entry = calls[0].args[0].input.PublishBatchRequestEntries?.[0];
    expect(entry?.MessageGroupId).toBe('acme#200000000011');
    expect(entry?.MessageAttributes?.source?.StringValue).toBe('metering');
  });

  it('an unbound role is 403 unknown-caller and nothing is published; no IAM context is 401', async () => {
    const refused = await send(
      '/v1/iam/events',
      signed('someone-else', event, 'iam-unbound'),
      iamHandle,
    );
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'unknown-caller' });
    const unsigned = await send(
      '/v1/iam/events',
      request('/v1/iam/events', event, { 'idempotency-key': 'iam-unsigned' }),
      iamHandle,
    );
    expect(unsigned.statusCode).toBe(401);
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(0);
  });
});

describe('/v1/events rate limit per API key', () => {
  const event = (n: number) => ({
    eventId: `burst-${n}`,
    accountId: '200000000011',
    chargePeriodStart: '2026-11-27T00:00:00Z',
    chargeCategory: 'usage',
    amount: '1',
    currency: 'USD',
  });

  it('over ingestPerMinute: 429 with Retry-After to the next minute, nothing recorded; then accepted', async () => {
    const limited = handlerWith({ ingestPerMinute: 2 });
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 17 * 60_000;
    const at = minute + 45_000;
    const post = (n: number, time: number) =>
      send(
        '/v1/events',
        request(
          '/v1/events',
          event(n),
          { 'x-api-key': API_KEY, 'idempotency-key': `burst-${minute}-${n}` },
          undefined,
          time,
        ),
        limited,
      );
    expect((await post(1, at)).statusCode).toBe(202);
    expect((await post(2, at)).statusCode).toBe(202);
    const over = await post(3, at);
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toBe('15');
    expect(snsMock.commandCalls(PublishBatchCommand)).toHaveLength(2);
    expect((await post(3, minute + 60_000)).statusCode).toBe(202);
  });
});
