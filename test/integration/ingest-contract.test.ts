/**
 * The usage ingest API's idempotency contract against DynamoDB Local: a new key publishes once (202), a
 * replay answers the first answer without publishing (200), a reused key with another body is a 409, a
 * crash between recording and publishing loses nothing, concurrent requests with one key book one charge.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoIngestKeys } from '../../lambda/adapters/ingest-keys';
import { ingestEvents, type IngestPorts } from '../../lambda/core/ingest/ingest';
import type { Publication } from '../../lambda/core/push/publication';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';

const CALLER = { tenant: 'acme', source: 'metering' };
const event = (amount: string) => ({
  eventId: `evt-${amount}`,
  accountId: '200000000011',
  chargePeriodStart: '2026-11-27T00:00:00Z',
  chargeCategory: 'usage',
  amount,
  currency: 'USD',
});

let dynamo: DynamoDBClient;
let tables: LedgerTables;
beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
});
afterAll(() => dynamo.destroy());

const ports = (published: Publication[][], failures = 0, nowMs = () => Date.now()) => {
  let failuresLeft = failures;
  const value: IngestPorts = {
    keys: new DynamoIngestKeys({
      client: dynamo,
      dedupTable: tables.dedupTable,
      ttlSeconds: 3600,
      now: nowMs,
    }),
    publish: async (publications) => {
      if (failuresLeft-- > 0) throw new Error('SNS unavailable');
      published.push([...publications]);
    },
  };
  return value;
};

const key = () => `order-${Math.random().toString(36).slice(2)}`;

it('new key → 202 and one publication; same key and body → 200 replay of the first answer, nothing published', async () => {
  const published: Publication[][] = [];
  const k = key();
  const first = await ingestEvents(CALLER, k, event('1.25'), ports(published));
  expect(first).toMatchObject({ ok: true, status: 202, replayed: false });
  // Key order and number spelling are not the body's content: the canonical hash is the same.
  const reordered = Object.fromEntries(Object.entries(event('1.25')).reverse());
  const again = await ingestEvents(CALLER, k, reordered, ports(published));
  expect(again).toEqual({
    ok: true,
    status: 200,
    replayed: true,
    body: (first as { body: string }).body,
  });
  expect(published).toHaveLength(1);
  expect(published[0][0]).toMatchObject({
    topic: 'cost-events',
    attributes: { tenant: 'acme', source: 'metering' },
  });
});

it('same key with another body → 409 naming the key, nothing published', async () => {
  const published: Publication[][] = [];
  const k = key();
  await ingestEvents(CALLER, k, event('1.25'), ports(published));
  const reused = await ingestEvents(CALLER, k, event('9.99'), ports(published));
  expect(reused).toMatchObject({ ok: false, status: 409, reason: 'key-reused', key: k });
  expect((reused as { detail: string }).detail).toContain(k);
  expect(published).toHaveLength(1);
});

it('the key is scoped by tenant and source: another source may use the same key', async () => {
  const published: Publication[][] = [];
  const k = key();
  await ingestEvents(CALLER, k, event('1.25'), ports(published));
  const other = await ingestEvents(
    { ...CALLER, source: 'agent' },
    k,
    event('9.99'),
    ports(published),
  );
  expect(other).toMatchObject({ status: 202 });
  expect(published).toHaveLength(2);
});

it('a publish that fails leaves the key pending: the retry publishes (202) and then replays', async () => {
  const published: Publication[][] = [];
  const k = key();
  const failing = ports(published, 1);
  await expect(ingestEvents(CALLER, k, event('2.50'), failing)).rejects.toThrow('SNS unavailable');
  expect(published).toHaveLength(0);
  await expect(ingestEvents(CALLER, k, event('2.50'), failing)).resolves.toMatchObject({
    status: 202,
  });
  await expect(ingestEvents(CALLER, k, event('2.50'), failing)).resolves.toMatchObject({
    status: 200,
  });
  expect(published).toHaveLength(1);
});

it('concurrent requests with one key and body: every one is answered 2xx, all publish one and the same event', async () => {
  const published: Publication[][] = [];
  const k = key();
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => ingestEvents(CALLER, k, event('3.75'), ports(published))),
  );
  for (const answer of answers) expect([200, 202]).toContain(answer.status);
  expect(published.length).toBeGreaterThanOrEqual(1);
  const dedupIds = new Set(published.flat().map((p) => p.messageDeduplicationId));
  expect(dedupIds.size).toBe(1);
  await expect(ingestEvents(CALLER, k, event('3.75'), ports(published))).resolves.toMatchObject({
    status: 200,
  });
});

it('concurrent requests with one key and two bodies: one body wins, the other is a 409', async () => {
  const published: Publication[][] = [];
  const k = key();
  const answers = await Promise.all([
    ingestEvents(CALLER, k, event('4.00'), ports(published)),
    ingestEvents(CALLER, k, event('5.00'), ports(published)),
  ]);
  expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
  expect(published).toHaveLength(1);
});

it('after the dedup window the key is free again', async () => {
  const published: Publication[][] = [];
  const k = key();
  await ingestEvents(CALLER, k, event('6.00'), ports(published));
  const later = () => Date.now() + 3601_000;
  await expect(
    ingestEvents(CALLER, k, event('7.00'), ports(published, 0, later)),
  ).resolves.toMatchObject({
    status: 202,
  });
});

it('a batch is validated whole: one bad event is a 400 naming its index, nothing recorded or published', async () => {
  const published: Publication[][] = [];
  const k = key();
  const bad = { events: [event('1.00'), { ...event('2.00'), currency: 'dollars' }] };
  await expect(ingestEvents(CALLER, k, bad, ports(published))).resolves.toMatchObject({
    status: 400,
    detail: expect.stringContaining('events[1]'),
  });
  const good = { events: [event('1.00'), event('2.00')] };
  await expect(ingestEvents(CALLER, k, good, ports(published))).resolves.toMatchObject({
    status: 202,
  });
  expect(published).toEqual([[expect.anything(), expect.anything()]]);
});
