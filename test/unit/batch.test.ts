import { runBatch, type BatchItem } from '../../lambda/core/batch';
import type { RecordResult } from '../../lambda/core/outcomes';

interface Item extends BatchItem {
  fail?: boolean;
  throws?: boolean;
}

const processor =
  (log: string[]) =>
  async (item: Item): Promise<RecordResult> => {
    log.push(item.messageId);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    if (item.throws) throw new TypeError('boom');
    return { messageId: item.messageId, outcome: item.fail ? 'failed' : 'applied' };
  };

describe('runBatch', () => {
  it('lists only failed records, by message id, and turns a thrown error into a failure of that record', async () => {
    const log: string[] = [];
    const items: Item[] = [
      { messageId: 'a' },
      { messageId: 'b', fail: true },
      { messageId: 'c', throws: true },
      { messageId: 'd' },
    ];
    const outcome = await runBatch(items, { fifo: false, concurrency: 4, process: processor(log) });
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: 'b' }, { itemIdentifier: 'c' }]);
    expect(outcome.results.map((result) => result.outcome)).toEqual([
      'applied',
      'failed',
      'failed',
      'applied',
    ]);
    expect(outcome.results[2].reason).toBe('TypeError');
  });

  it('FIFO: keeps group order, skips the rest of a group after its first failure, other groups go on', async () => {
    const log: string[] = [];
    const items: Item[] = [
      { messageId: 'a1', groupId: 'A' },
      { messageId: 'b1', groupId: 'B' },
      { messageId: 'a2', groupId: 'A', fail: true },
      { messageId: 'b2', groupId: 'B' },
      { messageId: 'a3', groupId: 'A' },
      { messageId: 'b3', groupId: 'B' },
    ];
    const outcome = await runBatch(items, { fifo: true, concurrency: 2, process: processor(log) });
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: 'a2' }, { itemIdentifier: 'a3' }]);
    expect(log).not.toContain('a3');
    expect(log.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(log.filter((id) => id.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
    expect(outcome.results.find((result) => result.messageId === 'a3')?.reason).toMatch(/skipped/);
  });

  it('bounds concurrency', async () => {
    let running = 0;
    let peak = 0;
    const items = Array.from({ length: 20 }, (_, index) => ({ messageId: `m${index}` }));
    await runBatch(items, {
      fifo: false,
      concurrency: 3,
      process: async (item) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return { messageId: item.messageId, outcome: 'applied' };
      },
    });
    expect(peak).toBe(3);
  });

  it('never reports an empty or unknown item identifier: the whole batch is retried instead', async () => {
    await expect(
      runBatch([{ messageId: '' }], {
        fifo: false,
        concurrency: 1,
        process: async () => ({ messageId: '', outcome: 'failed' }),
      }),
    ).rejects.toThrow(/whole batch/);
    await expect(
      runBatch([{ messageId: 'a' }], {
        fifo: false,
        concurrency: 1,
        process: async () => ({ messageId: 'zzz', outcome: 'failed' }),
      }),
    ).rejects.toThrow(/whole batch/);
  });

  it('returns an empty failure list for an empty batch', async () => {
    expect(await runBatch([], { fifo: true, concurrency: 2, process: processor([]) })).toEqual({
      results: [],
      batchItemFailures: [],
    });
  });
});
