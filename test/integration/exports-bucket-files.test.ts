/**
 * Data files as the bucket serves them, planner to switch, on DynamoDB Local: versions pinned at
 * planning, and decompression bombs. The local S3 (s3rver) has neither versions nor If-Match
 * (test/e2e/s3-emulator-behaviour.test.ts), so S3 here is aws-sdk-client-mock playing a bucket that
 * keeps versions (or only ETags), overwritten between planning and reading.
 */
import { gzipSync } from 'node:zlib';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { ExportPlans } from '../../lambda/adapters/export-plans';
import { S3Objects } from '../../lambda/adapters/s3-objects';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { manifestFor } from '../../lambda/core/exports/manifest';
import { planDelivery } from '../../lambda/core/exports/plan-delivery';
import { processTaskBatch } from '../../lambda/core/exports/task-batch';
import { taskMessageBody, type ExportTaskMessage } from '../../lambda/core/exports/task-message';
import type { Rejection } from '../../lambda/core/ports';
import { CSV_HEADER, csvOf, hourLine } from '../support/export-pipeline';
import { fakeBucket } from '../support/fake-s3-bucket';
import { useExportLedger } from '../support/file-fixtures';

const ledger = useExportLedger();
const ACCOUNT = '200000000011';

const oneHourCsv = { name: 'part-0.csv', content: csvOf([hourLine('10.00', ACCOUNT, 'EC2', 0)]) };

/** Plans one data file's execution; `beforeRead` changes the bucket between planning and the task. */
const runExecution = async (
  tenant: string,
  bucket: ReturnType<typeof fakeBucket>,
  beforeRead: (key: string) => void,
  file: { name: string; content: string | Uint8Array } = oneHourCsv,
) => {
  const built = manifestFor({
    bucket: 'exports',
    prefix: tenant,
    exportName: 'focus',
    billingPeriod: '2026-11',
    executionId: 'run-1',
    columns: CSV_HEADER.split(','),
    dataFileNames: [file.name],
  });
  const [key] = built.dataFileKeys;
  bucket.put(built.manifestKey, built.json);
  bucket.put(key, file.content);
  const objects = new ExportObjects(new S3Objects(bucket.client));
  const sent: ExportTaskMessage[] = [];
  const sources = [{ tenant, bucket: 'exports', prefix: tenant }];
  const planned = await planDelivery(
    {
      bucket: 'exports',
      key: built.manifestKey,
      eventTime: '2026-11-02T06:00:00.000Z',
      sequencer: '0A',
    },
    {
      sources,
      targetRowsPerTask: 100,
      objects,
      plans: new ExportPlans({
        client: ledger.dynamo,
        ledgerTable: ledger.tables.ledgerTable,
        store: ledger.store,
      }),
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
    },
  );
  beforeRead(key);
  bucket.mock.resetHistory();
  const rejections: Rejection[] = [];
  const outcome = await processTaskBatch(
    sent.map((message, index) => ({ messageId: `task-${index}`, body: taskMessageBody(message) })),
    {
      concurrency: 1,
      bucket: 'exports',
      sources,
      store: ledger.store,
      openRows: (name, task, fromRow) => objects.rowsOf(name, task, fromRow),
      subChunkRows: 100,
      threshold: '1',
      notifier: { notifyOnce: () => Promise.resolve('notified') },
      deadLetters: {
        send: (_record, rejection) => Promise.resolve(void rejections.push(rejection)),
      },
      defaultProvider: 'aws',
    },
  );
  const gets = bucket.mock.commandCalls(GetObjectCommand).map((call) => call.args[0].input);
  return {
    key,
    task: sent[0].task,
    outcome,
    rejections,
    gets,
    execution: await ledger.store.readExecution(planned.ref),
    statement: await readPartitionTotals(
      ledger.dynamo,
      ledger.tables.ledgerTable,
      ledgerPartitionKeyOf(tenant, ACCOUNT, '2026-11'),
    ),
  };
};

const overwrite = (bucket: ReturnType<typeof fakeBucket>) => (key: string) =>
  bucket.put(
    key,
    csvOf([hourLine('99.00', ACCOUNT, 'EC2', 0), hourLine('1.00', ACCOUNT, 'S3', 1)]),
  );

describe('a data file overwritten during an execution', () => {
  it('versioned bucket: the task reads the version the plan pinned, never the new one', async () => {
    const bucket = fakeBucket(true);
    const run = await runExecution('pinned', bucket, overwrite(bucket));

    expect(run.task.pin).toEqual({
      versionId: 'v1',
      eTag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    });
    expect(run.gets.map((input) => input.VersionId)).toEqual(['v1']);
    expect(run.execution).toMatchObject({ status: 'current', rows: 1 });
    expect(run.statement).toEqual([expect.objectContaining({ total: '10', charges: 1 })]);
  });

  it('versioned bucket: a pinned version deleted before the read fails the execution, naming the file', async () => {
    const bucket = fakeBucket(true);
    const run = await runExecution('expired', bucket, (key) => {
      overwrite(bucket)(key);
      bucket.deleteVersion(key, 'v1');
    });

    expect(run.execution).toMatchObject({
      status: 'failed',
      failure: expect.stringContaining(
        `${run.key}: invalid-field: ${run.key}: the data file's planned version v1 no longer exists`,
      ),
    });
    expect(run.rejections).toEqual([expect.objectContaining({ field: run.key })]);
    expect(run.outcome.batchItemFailures).toEqual([]);
    expect(run.statement).toEqual([]);
  });

  it('bucket without versions: the read carries the planned ETag and an overwrite fails the execution', async () => {
    const bucket = fakeBucket(false);
    const run = await runExecution('etag', bucket, overwrite(bucket));

    expect(run.task.pin).toEqual({ eTag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
    expect(run.gets.map((input) => input.IfMatch)).toEqual([run.task.pin?.eTag]);
    expect(run.execution).toMatchObject({
      status: 'failed',
      failure: expect.stringContaining('the data file was overwritten since planning'),
    });
    expect(run.statement).toEqual([]);
  });
});

describe('a Parquet decompression bomb', () => {
  /** FOCUS columns; ServiceName's pages GZIP-coded, each one 768 MiB of zeros in 783 KB. */
  const bombParquet = (): Uint8Array => {
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 12 }, () => member));
    const line = hourLine('10.00', ACCOUNT, 'EC2', 0).split(',');
    return new Uint8Array(
      parquetWriteBuffer({
        columnData: CSV_HEADER.split(',').map((name, index) => ({
          name,
          data: [line[index]],
          type: 'STRING' as const,
          codec: name === 'ServiceName' ? ('GZIP' as const) : ('SNAPPY' as const),
        })),
        compressors: { GZIP: () => bomb },
      }),
    );
  };

  it('fails its execution with the reason and dead-letters the task, without the memory', async () => {
    const bucket = fakeBucket(true);
    const content = bombParquet();
    const before = process.resourceUsage().maxRSS / 1024;

    const run = await runExecution('bomb', bucket, () => undefined, {
      name: 'part-0.parquet',
      content,
    });

    expect(run.execution).toMatchObject({
      status: 'failed',
      failure: expect.stringMatching(
        new RegExp(
          `^${run.key}: too-large: page: a GZIP page expands past the \\d+ bytes its header declares`,
        ),
      ),
    });
    expect(run.rejections).toEqual([
      expect.objectContaining({ field: run.key, reason: run.execution?.failure }),
    ]);
    expect(run.outcome.batchItemFailures).toEqual([]);
    expect(process.resourceUsage().maxRSS / 1024 - before).toBeLessThan(64);
  });
});

describe('a Parquet data file, booked by column through the S3 adapter', () => {
  const parquetOf = (lines: string[]): Uint8Array => {
    const rows = lines.map((line) => line.split(','));
    return new Uint8Array(
      parquetWriteBuffer({
        columnData: CSV_HEADER.split(',').map((name, index) => ({
          name,
          data: rows.map((row) => (row[index] === '' ? null : row[index])),
          type: 'STRING' as const,
        })),
      }),
    );
  };
  const file = {
    name: 'part-0.parquet',
    content: parquetOf([hourLine('10.00', ACCOUNT, 'EC2', 0)]),
  };
  const overwriteParquet = (bucket: ReturnType<typeof fakeBucket>) => (key: string) =>
    bucket.put(key, parquetOf([hourLine('99.00', ACCOUNT, 'EC2', 0)]));

  it('versioned bucket: every ranged read asks for the pinned version, and its rows are booked', async () => {
    const bucket = fakeBucket(true);
    const run = await runExecution('parquet-pinned', bucket, overwriteParquet(bucket), file);

    expect(run.task).toMatchObject({ kind: 'parquet-range', pin: { versionId: 'v1' } });
    expect(run.gets.length).toBeGreaterThan(0);
    expect(run.gets.every((input) => input.VersionId === 'v1')).toBe(true);
    expect(run.execution).toMatchObject({ status: 'current', rows: 1 });
    expect(run.statement).toEqual([expect.objectContaining({ total: '10', charges: 1 })]);
  });

  it('bucket without versions: an overwrite fails the execution, naming the file', async () => {
    const bucket = fakeBucket(false);
    const run = await runExecution('parquet-etag', bucket, overwriteParquet(bucket), file);

    expect(run.execution).toMatchObject({
      status: 'failed',
      failure: expect.stringContaining(
        `${run.key}: invalid-field: ${run.key}: the data file was overwritten since planning`,
      ),
    });
    expect(run.statement).toEqual([]);
  });
});
