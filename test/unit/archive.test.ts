import { gunzipSync } from 'node:zlib';
import {
  archiveBeforeAcknowledging,
  archiveObjectsOf,
  type ArchiveObject,
  type ReceivedRecord,
} from '../../lambda/core/archive';
import type { BatchOutcome } from '../../lambda/core/batch';
import type { RecordResult } from '../../lambda/core/outcomes';
import { archiveObjectBody } from '../../lambda/adapters/s3-archive';

const RECEIVED_AT = new Date('2026-11-03T10:00:00.000Z');
const SENT_NOV_2 = String(Date.parse('2026-11-02T23:59:59.000Z'));

const received = (messageId: string, sent = SENT_NOV_2): ReceivedRecord => ({
  messageId,
  body: `{"id":"${messageId}","amount":"1.10"}`,
  attributes: { SentTimestamp: sent },
  messageAttributes: { tenant: { stringValue: 'acme', dataType: 'String' } },
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:billing-dedup-dev-cost-events.fifo',
});

const applied = (messageId: string, tenant = 'acme', period = '2026-11'): RecordResult => ({
  messageId,
  outcome: 'applied',
  hash: `h-${messageId}`,
  evidence: { tenant, period },
});

describe('archive objects of a batch', () => {
  it('keeps every record as received with its outcome, at stream/tenant/period/day/<hash>.jsonl.gz', () => {
    const [object, ...rest] = archiveObjectsOf(
      'cost-events',
      [received('m1'), received('m2')],
      [
        applied('m1'),
        { messageId: 'm2', outcome: 'duplicate', evidence: { tenant: 'acme', period: '2026-11' } },
      ],
      RECEIVED_AT,
    );
    expect(rest).toEqual([]);
    expect(object.key).toMatch(
      /^cost-events\/tenant=acme\/period=2026-11\/day=2026-11-02\/[0-9a-f]{32}\.jsonl\.gz$/,
    );
    expect(object.records).toEqual([
      {
        ...received('m1'),
        receivedAt: '2026-11-03T10:00:00.000Z',
        outcome: 'applied',
        hash: 'h-m1',
      },
      { ...received('m2'), receivedAt: '2026-11-03T10:00:00.000Z', outcome: 'duplicate' },
    ]);
  });

  it('names a redelivered batch (same message ids, any order, later) by the same key', () => {
    const first = archiveObjectsOf(
      'cost-events',
      [received('m1'), received('m2')],
      [applied('m1'), applied('m2')],
      RECEIVED_AT,
    );
    const again = archiveObjectsOf(
      'cost-events',
      [received('m2'), received('m1')],
      [applied('m2'), applied('m1')],
      new Date('2026-11-04T08:00:00.000Z'),
    );
    expect(again.map((object) => object.key)).toEqual(first.map((object) => object.key));
    const other = archiveObjectsOf(
      'cost-events',
      [received('m1'), received('m3')],
      [applied('m1'), applied('m3')],
      RECEIVED_AT,
    );
    expect(other[0].key).not.toBe(first[0].key);
  });

  it('splits a batch by tenant, period and day; records that never parsed are filed as _unscoped', () => {
    const objects = archiveObjectsOf(
      'cost-events',
      [
        received('a'),
        received('b'),
        received('c', String(Date.parse('2026-11-03T00:00:01Z'))),
        received('d'),
      ],
      [
        applied('a'),
        applied('b', 'globex'),
        applied('c'),
        { messageId: 'd', outcome: 'rejected', reason: 'malformed-body', code: 'malformed-body' },
      ],
      RECEIVED_AT,
    );
    expect(
      objects.map((object) => [
        object.key.split('/').slice(0, 4).join('/'),
        object.records.map((r) => r.messageId),
      ]),
    ).toEqual([
      ['cost-events/tenant=acme/period=2026-11/day=2026-11-02', ['a']],
      ['cost-events/tenant=globex/period=2026-11/day=2026-11-02', ['b']],
      ['cost-events/tenant=acme/period=2026-11/day=2026-11-03', ['c']],
      ['cost-events/tenant=_unscoped/period=_unscoped/day=2026-11-02', ['d']],
    ]);
    expect(objects[3].records[0]).toMatchObject({
      outcome: 'rejected',
      reason: 'malformed-body',
      code: 'malformed-body',
    });
  });

  it('dates a record without SentTimestamp by the receive time, and keeps key segments path-safe', () => {
    const [object] = archiveObjectsOf(
      'budget-alerts',
      [{ messageId: 'x', body: 'text' }],
      [
        {
          messageId: 'x',
          outcome: 'notified',
          evidence: { tenant: 'acme', period: '2026/Q4 ../' },
        },
      ],
      RECEIVED_AT,
    );
    expect(object.key).toMatch(/^budget-alerts\/tenant=acme\/period=2026_Q4_.._\/day=2026-11-03\//);
    expect(object.records[0]).toMatchObject({
      attributes: {},
      messageAttributes: {},
      outcome: 'notified',
    });
  });

  it('the object body is gzip JSON Lines, one record a line', () => {
    const [object] = archiveObjectsOf(
      'cost-events',
      [received('m1'), received('m2')],
      [applied('m1'), applied('m2')],
      RECEIVED_AT,
    );
    const lines = gunzipSync(archiveObjectBody(object)).toString('utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(object.records);
  });
});

describe('archiving before acknowledging', () => {
  const outcome: BatchOutcome = {
    results: [applied('m1'), { messageId: 'm2', outcome: 'failed', reason: 'ThrottlingException' }],
    batchItemFailures: [{ itemIdentifier: 'm2' }],
  };

  it('leaves the outcome alone once the archive holds the batch (failed records archived too)', async () => {
    const stored: ArchiveObject[] = [];
    const result = await archiveBeforeAcknowledging(
      { put: (objects) => Promise.resolve(void stored.push(...objects)) },
      'cost-events',
      [received('m1'), received('m2')],
      outcome,
      RECEIVED_AT,
    );
    expect(result).toBe(outcome);
    expect(stored.flatMap((object) => object.records.map((r) => [r.messageId, r.outcome]))).toEqual(
      [
        ['m1', 'applied'],
        ['m2', 'failed'],
      ],
    );
  });

  it('reports every record failed when the archive write fails: nothing is acknowledged', async () => {
    const refused = Object.assign(new Error('denied'), { name: 'AccessDenied' });
    const result = await archiveBeforeAcknowledging(
      { put: () => Promise.reject(refused) },
      'cost-events',
      [received('m1'), received('m2')],
      outcome,
      RECEIVED_AT,
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }]);
    expect(result.results).toEqual([
      { messageId: 'm1', outcome: 'failed', reason: 'archive write failed: AccessDenied' },
      { messageId: 'm2', outcome: 'failed', reason: 'archive write failed: AccessDenied' },
    ]);
  });

  it('fails the whole invocation when a record cannot be named in the partial batch response', async () => {
    await expect(
      archiveBeforeAcknowledging(
        { put: () => Promise.reject(new Error('down')) },
        'cost-events',
        [received('')],
        { results: [], batchItemFailures: [] },
        RECEIVED_AT,
      ),
    ).rejects.toThrow(/no usable messageId/);
  });
});
