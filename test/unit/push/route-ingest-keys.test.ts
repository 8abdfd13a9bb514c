/** The ingest route with in-memory ports: an API key rotated out is refused once its grace period ends. */
import { apiKeyHash, type ApiKeyBinding } from '../../../lambda/core/ingest/api-key';
import type { Publication } from '../../../lambda/core/push/publication';
import { handlePush, type PushDeps, type PushRequest } from '../../../lambda/core/push/route';

const KEY = 'bd_acme_metering_0123456789abcdef';
const event = {
  eventId: 'meter-1',
  accountId: '200000000011',
  chargePeriodStart: '2026-11-27T00:00:00Z',
  chargeCategory: 'usage',
  amount: '0.42',
  currency: 'USD',
};

const depsWith = (binding: ApiKeyBinding, published: Publication[]): PushDeps => ({
  maxBodyBytes: 65536,
  ingest: {
    apiKeys: { bindingOf: async (hash) => (hash === apiKeyHash(KEY) ? binding : undefined) },
    ports: {
      keys: { claim: async () => undefined, markPublished: async () => undefined },
      publish: async (publications) => {
        published.push(...publications);
      },
    },
  },
  publish: async () => undefined,
  onRefused: () => undefined,
});

const request = (at: string, idempotencyKey: string): PushRequest => ({
  method: 'POST',
  path: '/v1/events',
  headers: { 'x-api-key': KEY, 'idempotency-key': idempotencyKey },
  query: {},
  body: JSON.stringify(event),
  receivedAt: new Date(at),
});

describe('ingest route: rotated API keys', () => {
  it('accepts a rotated-out key until its expiresAt, then answers 401 expired and publishes nothing', async () => {
    const published: Publication[] = [];
    const deps = depsWith(
      { tenant: 'acme', source: 'metering', expiresAt: '2026-12-01T11:00:00.000Z' },
      published,
    );
    const before = await handlePush(request('2026-12-01T10:59:59Z', 'k-1'), deps);
    expect(before.status).toBe(202);
    expect(published).toHaveLength(1);
    const after = await handlePush(request('2026-12-01T11:00:00Z', 'k-2'), deps);
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body)).toMatchObject({ error: 'expired' });
    expect(published).toHaveLength(1);
  });
});
