import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { chunkResults } from '../../lambda/core/exports/chunk';
import type { ExportTask } from '../../lambda/core/exports/plan';
import { processTaskBatch } from '../../lambda/core/exports/task-batch';
import { taskMessageBody } from '../../lambda/core/exports/task-message';
import type { Rejection } from '../../lambda/core/ports';
import { useExportLedger } from '../support/file-fixtures';
import {
  csvOf,
  csvRowsOf,
  hourLine,
  planDelivery,
  runTask,
  type ExportDelivery,
} from '../support/export-pipeline';

const ACCOUNT = '200000000011';

const ledger = useExportLedger();

/** 8 rows, 4 sub-chunks of 2: 0.01, 0.02, …, 0.08 (sum 0.36), each a distinct hour. */
const eightRows = Array.from({ length: 8 }, (_, hour) =>
  hourLine(`0.0${hour + 1}`, ACCOUNT, hour % 2 === 0 ? 'EC2' : 'S3', hour),
);

const delivery = (tenant: string): ExportDelivery => ({
  tenant,
  prefix: tenant,
  executionId: 'run-1',
  eventTime: '2026-11-02T06:00:00.000Z',
  sequencer: '0A',
  files: { 'part-0.csv': csvOf(eightRows) },
});

const statement = (tenant: string) =>
  readPartitionTotals(
    ledger.dynamo,
    ledger.tables.ledgerTable,
    ledgerPartitionKeyOf(tenant, ACCOUNT, '2026-11'),
  );

describe('crash and redelivery of a CSV task', () => {
  it('a task that dies after 2 of its 4 sub-chunks resumes at its cursor: no row lost, none twice', async () => {
    const planned = await planDelivery(ledger.store, delivery('crash'));
    const [task] = planned.plan.tasks;

    // Rows 0-3 are two committed sub-chunks; the worker dies asking for row 5 (inside the 3rd).
    await expect(runTask(ledger.store, planned, task, { dieAtRow: 5 })).rejects.toThrow(
      'worker died',
    );
    expect(await ledger.store.readCursor(planned.ref, task)).toEqual({
      committedRows: 4,
      done: false,
    });
    expect(await statement('crash')).toEqual([]);

    const redelivered = await runTask(ledger.store, planned, task);

    expect(redelivered).toMatchObject({
      committed: 2,
      alreadyCommitted: 0,
      switched: { outcome: 'current' },
    });
    expect(await statement('crash')).toEqual([
      {
        tenant: 'crash',
        accountId: ACCOUNT,
        period: '2026-11',
        currency: 'USD',
        total: '0.36',
        charges: 8,
        status: 'open',
      },
    ]);
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({
      status: 'current',
      rows: 8,
      rejectedRows: 0,
      tasksDone: 1,
      tasksTotal: 1,
    });
  });

  it('a replayed sub-chunk commit is already-committed and changes nothing', async () => {
    const planned = await planDelivery(ledger.store, delivery('replay'));
    const [task] = planned.plan.tasks;
    await runTask(ledger.store, planned, task);
    const before = await ledger.store.readExecution(planned.ref);

    const context = {
      tenant: 'replay',
      billingPeriod: '2026-11',
      source: 'aws',
      objectKey: task.objectKey,
    };
    const text = planned.texts.get(task.objectKey) ?? '';
    for await (const result of chunkResults({
      task,
      rows: csvRowsOf(text, 2)(),
      fromRow: 2,
      context,
      subChunkRows: 2,
    })) {
      expect(await ledger.store.commitChunk(planned.ref, result)).toEqual({
        outcome: 'already-committed',
        complete: true,
      });
    }
    // The whole task delivered again: its cursor says done, nothing is read or committed.
    expect(await runTask(ledger.store, planned, task)).toMatchObject({
      committed: 0,
      alreadyCommitted: 0,
    });

    expect(await ledger.store.readExecution(planned.ref)).toEqual(before);
    expect(await statement('replay')).toEqual([
      expect.objectContaining({ total: '0.36', charges: 8 }),
    ]);
  });

  it('a redelivered manifest plans nothing new', async () => {
    const first = await planDelivery(ledger.store, delivery('manifest'));
    await runTask(ledger.store, first, first.plan.tasks[0]);

    const again = await planDelivery(ledger.store, delivery('manifest'));

    expect([first.recorded, again.recorded]).toEqual(['planned', 'duplicate']);
    expect(await ledger.store.listExecutions('manifest', first.ref.source, '2026-11')).toEqual([
      expect.objectContaining({ executionId: 'run-1', status: 'current', tasksDone: 1, rows: 8 }),
    ]);
    expect(await statement('manifest')).toEqual([
      expect.objectContaining({ total: '0.36', charges: 8 }),
    ]);
  });

  it('a worker that dies after the last commit but before the switch: the redelivery switches', async () => {
    const planned = await planDelivery(ledger.store, delivery('late-switch'));
    const [task] = planned.plan.tasks;
    await runTask(ledger.store, planned, task, { noSwitch: true });
    expect(await statement('late-switch')).toEqual([]);

    expect(await runTask(ledger.store, planned, task)).toMatchObject({
      committed: 0,
      switched: { outcome: 'current' },
    });
    expect(await statement('late-switch')).toEqual([
      expect.objectContaining({ total: '0.36', charges: 8 }),
    ]);
  });
});

describe('forged task messages', () => {
  const twoFiles = (tenant: string): ExportDelivery => ({
    ...delivery(tenant),
    files: { 'part-0.csv': csvOf(eightRows.slice(0, 4)), 'part-1.csv': csvOf(eightRows.slice(4)) },
  });
  const context = (tenant: string, objectKey: string) => ({
    tenant,
    billingPeriod: '2026-11',
    source: 'aws',
    objectKey,
  });

  it('a finished task sent again under another kind (another chunk id) cannot count tasksDone twice', async () => {
    const planned = await planDelivery(ledger.store, twoFiles('forged'));
    const [first, second] = planned.plan.tasks;
    await runTask(ledger.store, planned, first, { subChunkRows: 10 });

    const forgedParquet: ExportTask = {
      index: first.index,
      kind: 'parquet-range',
      objectKey: first.objectKey,
      format: 'parquet',
      firstRowGroup: 0,
      endRowGroup: 1,
      firstRow: 0,
      rows: 4,
    };
    for await (const result of chunkResults({
      task: forgedParquet,
      rows: csvRowsOf(planned.texts.get(first.objectKey) ?? '', 0)(),
      fromRow: 0,
      context: context('forged', first.objectKey),
      subChunkRows: 10,
    })) {
      expect(await ledger.store.commitChunk(planned.ref, result)).toEqual({
        outcome: 'already-committed',
        complete: false,
      });
    }
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({
      status: 'planned',
      tasksDone: 1,
      tasksTotal: 2,
      rows: 4,
    });

    // A task index the plan does not have adds nothing either.
    const beyond = { ...second, index: 7 };
    const results = chunkResults({
      task: beyond,
      rows: csvRowsOf(planned.texts.get(second.objectKey) ?? '', 0)(),
      fromRow: 0,
      context: context('forged', second.objectKey),
      subChunkRows: 10,
    });
    for await (const result of results) {
      await expect(ledger.store.commitChunk(planned.ref, result)).rejects.toThrow(
        'has no plan with a task 7',
      );
    }

    await runTask(ledger.store, planned, second, { subChunkRows: 10 });
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({
      status: 'current',
      tasksDone: 2,
      rows: 8,
    });
    expect(await statement('forged')).toEqual([
      expect.objectContaining({ total: '0.36', charges: 8 }),
    ]);
  });
});

describe('a task that keeps failing transiently', () => {
  it('is retried until the last receive, which fails the execution with the error and dead-letters the task', async () => {
    const planned = await planDelivery(ledger.store, delivery('throttled'));
    const [task] = planned.plan.tasks;
    const rejections: Rejection[] = [];
    const receive = (count: number) =>
      processTaskBatch(
        [
          {
            messageId: `receive-${count}`,
            body: taskMessageBody({ bucket: 'exports', ref: planned.ref, task }),
            attributes: { ApproximateReceiveCount: String(count) },
          },
        ],
        {
          concurrency: 1,
          bucket: 'exports',
          sources: [{ tenant: 'throttled', bucket: 'exports', prefix: 'throttled' }],
          store: ledger.store,
          openRows: async function* () {
            throw Object.assign(new Error('Please reduce your request rate.'), {
              name: 'SlowDown',
            });
          },
          subChunkRows: 2,
          threshold: '1',
          notifier: { notifyOnce: () => Promise.resolve('notified') },
          deadLetters: {
            send: (_record, rejection) => Promise.resolve(void rejections.push(rejection)),
          },
          defaultProvider: 'aws',
          maxReceiveCount: 3,
        },
      );

    const second = await receive(2);
    expect(second.batchItemFailures).toEqual([{ itemIdentifier: 'receive-2' }]);
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({ status: 'planned' });

    const last = await receive(3);
    expect(last.batchItemFailures).toEqual([]);
    expect(last.results[0]).toMatchObject({ outcome: 'rejected', code: 'retries-exhausted' });
    const failure = `${task.objectKey}: task 0 failed on its last receive (3 of 3): SlowDown: Please reduce your request rate.`;
    expect(rejections).toEqual([
      { code: 'retries-exhausted', field: task.objectKey, reason: failure },
    ]);
    expect(await ledger.store.readExecution(planned.ref)).toMatchObject({
      status: 'failed',
      failure,
    });
  });
});
