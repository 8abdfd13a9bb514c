import {
  archiveObjectsOf,
  type ArchiveObject,
  type ReceivedRecord,
} from '../../lambda/core/archive';
import { encodeSpoolMessages } from '../../lambda/core/archive-spool';
import {
  archiveSpoolBatch,
  planArchiverBatch,
  type SpoolMessage,
} from '../../lambda/core/archiver';

const RECEIVED_AT = new Date('2026-11-03T10:00:00.000Z');
const SENT = String(Date.parse('2026-11-02T12:00:00.000Z'));

/** One consumer invocation's spool message: its records filed under the given tenants. */
const spoolMessage = (messageId: string, records: [string, string][]): SpoolMessage => {
  const received: ReceivedRecord[] = records.map(([id]) => ({
    messageId: id,
    body: `{"id":"${id}"}`,
    attributes: { SentTimestamp: SENT },
  }));
  const objects = archiveObjectsOf(
    'cost-events',
    received,
    records.map(([id, tenant]) => ({
      messageId: id,
      outcome: 'applied',
      evidence: { tenant, period: '2026-11' },
    })),
    RECEIVED_AT,
  );
  const [body] = encodeSpoolMessages(objects).messages;
  return { messageId, body };
};

const batch = [
  spoolMessage('s2', [
    ['c3', 'acme'],
    ['c4', 'globex'],
  ]),
  spoolMessage('s1', [
    ['c1', 'acme'],
    ['c2', 'acme'],
  ]),
  spoolMessage('s3', [['c5', 'globex']]),
];

const storing = () => {
  const stored = new Map<string, ArchiveObject>();
  return {
    stored,
    ports: {
      put: (object: ArchiveObject) => Promise.resolve(void stored.set(object.key, object)),
      deadLetter: () => Promise.resolve(),
    },
  };
};

describe('archiver', () => {
  it('writes one object per partition of the whole batch, named by the spool messages it holds', () => {
    const { objects, poison } = planArchiverBatch(batch);
    expect(poison).toEqual([]);
    expect(objects.map((object) => [object.partition, object.sources.sort()])).toEqual([
      ['cost-events/tenant=acme/period=2026-11/day=2026-11-02', ['s1', 's2']],
      ['cost-events/tenant=globex/period=2026-11/day=2026-11-02', ['s2', 's3']],
    ]);
    for (const object of objects)
      expect(object.key).toMatch(
        new RegExp(`^${object.partition}/spool-[0-9a-f]{32}\\.jsonl\\.gz$`),
      );
    expect(objects[0].records.map((record) => record.messageId)).toEqual(['c1', 'c2', 'c3']);
  });

  it('a redelivered batch, in any order, writes the same keys with the same contents', async () => {
    const first = storing();
    await archiveSpoolBatch(batch, first.ports);
    const again = storing();
    await archiveSpoolBatch([...batch].reverse(), again.ports);
    expect([...again.stored.keys()].sort()).toEqual([...first.stored.keys()].sort());
    for (const [key, object] of again.stored) expect(object).toEqual(first.stored.get(key));
  });

  it('acknowledges a message only when every object holding its lines is stored', async () => {
    const failing = {
      put: (object: ArchiveObject) =>
        object.partition.includes('tenant=globex')
          ? Promise.reject(Object.assign(new Error('slow down'), { name: 'SlowDown' }))
          : Promise.resolve(),
      deadLetter: () => Promise.resolve(),
    };
    const outcome = await archiveSpoolBatch(batch, failing);
    // s2 and s3 have lines in the globex object; s1 only in acme's.
    expect(outcome.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['s2', 's3']);
    expect(outcome.results.find((r) => r.messageId === 's1')?.outcome).toBe('observed');
    expect(outcome.results.find((r) => r.messageId === 's2')).toMatchObject({
      outcome: 'failed',
      reason: 'archive write failed: SlowDown',
    });
  });

  it('dead-letters a poison spool message with its reason and archives the others', async () => {
    const letters: { messageId: string; reason: string }[] = [];
    const { stored, ports } = storing();
    const outcome = await archiveSpoolBatch([...batch, { messageId: 'bad', body: 'garbage!' }], {
      ...ports,
      deadLetter: (message, reason) =>
        Promise.resolve(void letters.push({ messageId: message.messageId, reason })),
    });
    expect(letters).toEqual([{ messageId: 'bad', reason: expect.stringMatching(/not base64/) }]);
    expect(outcome.results.find((r) => r.messageId === 'bad')).toMatchObject({
      outcome: 'rejected',
      code: 'malformed-body',
    });
    expect(outcome.batchItemFailures).toEqual([]);
    expect(stored.size).toBe(2);
    expect(outcome.records).toBe(5);
  });

  it('retries a poison message whose dead-lettering failed', async () => {
    const { ports } = storing();
    const outcome = await archiveSpoolBatch([{ messageId: 'bad', body: '' }], {
      ...ports,
      deadLetter: () => Promise.reject(Object.assign(new Error('x'), { name: 'KmsThrottled' })),
    });
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
  });
});
