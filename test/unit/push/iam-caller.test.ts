/**
 * The IAM ingest route with in-memory ports: the signing role's binding is the authorization and gives
 * the tenant and source; everything after it is the API-key route's contract (202 / 200 replay / 409).
 */
import type { KeyRecord } from '../../../lambda/core/ingest/idempotency';
import {
  iamCallerBindings,
  signingRoleOf,
  verifyIamCaller,
  type IamCallerIdentity,
} from '../../../lambda/core/push/iam-caller';
import type { Publication } from '../../../lambda/core/push/publication';
import type { Refusal } from '../../../lambda/core/push/refusal';
import { handlePush, type PushDeps, type PushRequest } from '../../../lambda/core/push/route';

const BINDINGS = iamCallerBindings([
  {
    principal: 'arn:aws:iam::111122223333:role/billing/metering-producer',
    tenant: 'acme',
    source: 'metering',
  },
  { principal: 'arn:aws:iam::444455556666:role/Exporter', tenant: 'initech', source: 'aws' },
]);
const session = (account: string, role: string, name = 'i-0abc'): IamCallerIdentity => ({
  userArn: `arn:aws:sts::${account}:assumed-role/${role}/${name}`,
  accountId: account,
  callerId: `AROAEXAMPLE:${name}`,
});
const event = {
  eventId: 'meter-1',
  accountId: '200000000011',
  chargePeriodStart: '2026-11-27T00:00:00Z',
  chargeCategory: 'usage',
  amount: '0.42',
  currency: 'USD',
};

describe('verifyIamCaller', () => {
  it('a session of a bound role (path in the binding, not in the session ARN) gets its tenant and source', () => {
    expect(verifyIamCaller(session('111122223333', 'metering-producer'), BINDINGS)).toEqual({
      ok: true,
      tenant: 'acme',
      source: 'metering',
      principal: 'arn:aws:iam::111122223333:role/billing/metering-producer',
    });
  });

  it('role names match without case, as IAM compares them; the account must match', () => {
    expect(verifyIamCaller(session('444455556666', 'exporter'), BINDINGS)).toMatchObject({
      ok: true,
      tenant: 'initech',
    });
    expect(verifyIamCaller(session('999988887777', 'Exporter'), BINDINGS)).toMatchObject({
      status: 403,
      reason: 'unknown-caller',
    });
  });

  it.each<[string, IamCallerIdentity | undefined, Refusal['status'], string]>([
    ['no identity', undefined, 401, 'missing-credential'],
    ['an empty identity', {}, 401, 'missing-credential'],
    ['an unbound role', session('111122223333', 'someone-else'), 403, 'unknown-caller'],
    [
      'an IAM user',
      { userArn: 'arn:aws:iam::111122223333:user/alice', accountId: '111122223333' },
      403,
      'unknown-caller',
    ],
    [
      'the account root',
      { userArn: 'arn:aws:iam::111122223333:root', accountId: '111122223333' },
      403,
      'unknown-caller',
    ],
    [
      'a federated user',
      { userArn: 'arn:aws:sts::111122223333:federated-user/bob', accountId: '111122223333' },
      403,
      'unknown-caller',
    ],
    [
      'an ARN of another account than the signer',
      { ...session('111122223333', 'metering-producer'), accountId: '444455556666' },
      401,
      'malformed-credential',
    ],
  ])('%s is refused', (_, identity, status, reason) => {
    expect(verifyIamCaller(identity, BINDINGS)).toMatchObject({ ok: false, status, reason });
  });

  it('maps an assumed-role session to the role it is of', () => {
    expect(signingRoleOf('arn:aws-cn:sts::111122223333:assumed-role/Reader/s@x.com')).toEqual({
      partition: 'aws-cn',
      account: '111122223333',
      name: 'Reader',
    });
    expect(signingRoleOf('arn:aws:sts::111122223333:assumed-role/Reader')).toBeUndefined();
  });
});

describe('POST /v1/iam/events', () => {
  const records = new Map<string, KeyRecord>();
  const published: Publication[] = [];
  const refused: string[] = [];
  const deps: PushDeps = {
    maxBodyBytes: 65536,
    ingest: {
      iamCallers: BINDINGS,
      ports: {
        keys: {
          claim: async (key, bodyHash) => {
            const existing = records.get(key);
            if (!existing) records.set(key, { bodyHash, status: 'pending' });
            return existing;
          },
          markPublished: async (key, bodyHash, answer) => {
            records.set(key, { bodyHash, status: 'published', answer });
          },
        },
        publish: async (publications) => {
          published.push(...publications);
        },
      },
    },
    publish: async () => undefined,
    onRefused: (route, refusal) => refused.push(`${route} ${refusal.reason}`),
  };
  const post = (
    body: unknown,
    iamCaller: IamCallerIdentity | undefined,
    key = 'k-1',
    path = '/v1/iam/events',
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> =>
    handlePush(
      {
        method: 'POST',
        path,
        headers: { 'idempotency-key': key },
        query: {},
        body: JSON.stringify(body),
        receivedAt: new Date('2026-12-01T10:00:00Z'),
        iamCaller,
      } satisfies PushRequest,
      deps,
    ) as never;
  beforeEach(() => {
    records.clear();
    published.length = 0;
    refused.length = 0;
  });

  it('a bound role: 202 with the binding’s tenant and source; the same key and body 200 replayed; another body 409', async () => {
    const caller = session('111122223333', 'metering-producer');
    const first = await post(event, caller);
    expect(first.status).toBe(202);
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      topic: 'cost-events',
      tenant: 'acme',
      attributes: { tenant: 'acme', source: 'metering' },
    });
    const again = await post(event, caller);
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await post({ ...event, amount: '0.43' }, caller);
    expect(other.status).toBe(409);
    expect(JSON.parse(other.body)).toMatchObject({ error: 'key-reused', idempotencyKey: 'k-1' });
    expect(published).toHaveLength(1);
  });

  it('a batch is accepted whole, as on /v1/events', async () => {
    const answer = await post(
      { events: [event, { ...event, eventId: 'meter-2' }] },
      session('111122223333', 'metering-producer'),
    );
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toMatchObject({ accepted: 2 });
  });

  it('an unbound role is 403 unknown-caller, counted, nothing recorded or published', async () => {
    const answer = await post(event, session('111122223333', 'intruder'));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'unknown-caller' });
    expect(refused).toEqual(['iam unknown-caller']);
    expect(records.size).toBe(0);
    expect(published).toHaveLength(0);
  });

  it('an IAM user is 403; no IAM context is 401', async () => {
    expect((await post(event, { userArn: 'arn:aws:iam::111122223333:user/alice' })).status).toBe(
      403,
    );
    expect((await post(event, undefined)).status).toBe(401);
    expect(published).toHaveLength(0);
  });

  it('a body naming another tenant is 403 tenant-mismatch; the tenant is never taken from the body', async () => {
    const answer = await post(
      { ...event, tenant: 'initech' },
      session('111122223333', 'metering-producer'),
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'tenant-mismatch' });
    expect(published).toHaveLength(0);
  });

  it('an IAM identity does not open /v1/events, and without bindings /v1/iam/events is 404', async () => {
    const caller = session('111122223333', 'metering-producer');
    expect((await post(event, caller, 'k-2', '/v1/events')).status).toBe(404);
    const withoutBindings = { ...deps, ingest: { ...deps.ingest!, iamCallers: undefined } };
    const answer = await handlePush(
      {
        method: 'POST',
        path: '/v1/iam/events',
        headers: { 'idempotency-key': 'k-3' },
        query: {},
        body: JSON.stringify(event),
        receivedAt: new Date(),
        iamCaller: caller,
      },
      withoutBindings,
    );
    expect(answer.status).toBe(404);
  });
});
