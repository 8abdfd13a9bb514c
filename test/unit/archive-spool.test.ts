import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { archiveObjectsOf, type ReceivedRecord } from '../../lambda/core/archive';
import {
  decodeSpoolMessage,
  encodeSpoolMessages,
  SPOOL_MESSAGE_MAX_BYTES,
  SpoolMessageError,
} from '../../lambda/core/archive-spool';
import type { RecordResult } from '../../lambda/core/outcomes';

const RECEIVED_AT = new Date('2026-11-03T10:00:00.000Z');
const SENT = String(Date.parse('2026-11-02T12:00:00.000Z'));

const received = (messageId: string, body: string): ReceivedRecord => ({
  messageId,
  body,
  attributes: { SentTimestamp: SENT },
  messageAttributes: {},
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:billing-dedup-dev-cost-events',
});

const applied = (messageId: string, tenant: string): RecordResult => ({
  messageId,
  outcome: 'applied',
  evidence: { tenant, period: '2026-11' },
});

/** Archive objects of a batch whose records alternate between two tenants (two partitions). */
const objectsOf = (bodies: string[]) => {
  const records = bodies.map((body, index) => received(`m${index}`, body));
  return archiveObjectsOf(
    'cost-events',
    records,
    records.map((record, index) => applied(record.messageId, index % 2 === 0 ? 'acme' : 'globex')),
    RECEIVED_AT,
  );
};

/** Text gzip cannot shrink: base64 of random bytes. */
const incompressible = (bytes: number) => randomBytes(bytes).toString('base64').slice(0, bytes);

const decodedIds = (messages: string[]) =>
  messages.flatMap((body) => decodeSpoolMessage(body).map((line) => line.record.messageId));

describe('spool encoder', () => {
  it('sends a usual batch as one message holding every record with its partition', () => {
    const objects = objectsOf(Array.from({ length: 10 }, (_, i) => `{"charge":${i}}`));
    const { messages, oversize } = encodeSpoolMessages(objects);
    expect(messages).toHaveLength(1);
    expect(oversize).toEqual([]);
    const lines = decodeSpoolMessage(messages[0]);
    expect(lines.map((line) => [line.partition, line.record])).toEqual(
      objects.flatMap((object) => object.records.map((record) => [object.partition, record])),
    );
    expect(new Set(lines.map((line) => line.partition))).toEqual(
      new Set([
        'cost-events/tenant=acme/period=2026-11/day=2026-11-02',
        'cost-events/tenant=globex/period=2026-11/day=2026-11-02',
      ]),
    );
  });

  it('splits a batch over the size limit into messages that each fit, losing no record', () => {
    const bodies = Array.from({ length: 10 }, () => incompressible(60_000));
    const { messages, oversize } = encodeSpoolMessages(objectsOf(bodies));
    expect(oversize).toEqual([]);
    expect(messages.length).toBeGreaterThan(1);
    for (const body of messages) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(262_144);
    expect(decodedIds(messages).sort()).toEqual(bodies.map((_, i) => `m${i}`).sort());
  });

  it('assumes the classic 256 KiB SQS limit', () => {
    expect(SPOOL_MESSAGE_MAX_BYTES).toBe(262_144);
  });

  it('puts a record too large for a message alone directly, at an oversize- key of its partition', () => {
    const bodies = ['{"small":1}', incompressible(300_000), '{"small":2}'];
    const { messages, oversize } = encodeSpoolMessages(objectsOf(bodies));
    expect(decodedIds(messages).sort()).toEqual(['m0', 'm2']);
    expect(oversize).toHaveLength(1);
    expect(oversize[0].key).toMatch(
      /^cost-events\/tenant=globex\/period=2026-11\/day=2026-11-02\/oversize-[0-9a-f]{32}\.jsonl\.gz$/,
    );
    expect(oversize[0].records.map((record) => record.messageId)).toEqual(['m1']);
    expect(oversize[0].records[0].body).toBe(bodies[1]);
  });

  it('keeps to a smaller limit the same way', () => {
    const bodies = Array.from({ length: 40 }, () => incompressible(500));
    const { messages, oversize } = encodeSpoolMessages(objectsOf(bodies), 4096);
    expect(oversize).toEqual([]);
    for (const body of messages) expect(body.length).toBeLessThanOrEqual(4096);
    expect(decodedIds(messages)).toHaveLength(40);
  });

  it('sends nothing for an empty batch', () => {
    expect(encodeSpoolMessages([])).toEqual({ messages: [], oversize: [] });
  });
});

describe('spool decoder', () => {
  const encode = (text: string) => gzipSync(text).toString('base64');
  const line = (partition: string, record: object) => JSON.stringify({ partition, record });
  const record = {
    messageId: 'm1',
    receivedAt: '2026-11-03T10:00:00.000Z',
    attributes: {},
    messageAttributes: {},
    body: 'x',
    outcome: 'applied',
  };
  const partition = 'cost-events/tenant=acme/period=2026-11/day=2026-11-02';

  it.each([
    ['not base64', 'not base64!', /not base64/],
    ['not gzip', Buffer.from('plain text').toString('base64'), /not gzip/],
    ['no line', encode(''), /no line/],
    ['not JSON', encode('{'), /line 1 is not JSON/],
    ['a partition outside the layout', encode(line('../etc/passwd', record)), /no valid partition/],
    [
      'an unknown outcome',
      encode(line(partition, { ...record, outcome: 'lost' })),
      /no archived record/,
    ],
    [
      'a record without a body',
      encode(line(partition, { ...record, body: 1 })),
      /no archived record/,
    ],
  ])('refuses %s as SpoolMessageError', (_, body, reason) => {
    expect(() => decodeSpoolMessage(body)).toThrow(SpoolMessageError);
    expect(() => decodeSpoolMessage(body)).toThrow(reason);
  });

  it('refuses a body that inflates beyond the cap', () => {
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)).toString('base64');
    expect(() => decodeSpoolMessage(bomb)).toThrow(/inflates beyond/);
  });
});
