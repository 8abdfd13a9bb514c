/**
 * Pinned data file versions, planner to switch, on DynamoDB Local. The local S3 (s3rver) has neither
 * versions nor If-Match (test/e2e/s3-emulator-behaviour.test.ts), so S3 here is aws-sdk-client-mock
 * playing a bucket that keeps versions (or only ETags), overwritten between planning and reading.
 */
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
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
import { useExportLedger } from '../support/file-fixtures';

const ledger = useExportLedger();
const ACCOUNT = '200000000011';

interface Version {
  versionId: string;
  eTag: string;
  bytes: Buffer;
}

/** A bucket as S3 answers HEAD and GET: VersionId, If-Match (412), Range; `versioned: false` keeps only the latest. */
const fakeBucket = (versioned: boolean) => {
  const objects = new Map<string, Version[]>();
  const client = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const mock = mockClient(client);
  const failure = (name: string, status: number) =>
    Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
  const pick = (input: { Key?: string; VersionId?: string; IfMatch?: string }) => {
    const versions = objects.get(String(input.Key)) ?? [];
    const version =
      input.VersionId === undefined
        ? versions.at(-1)
        : versions.find((candidate) => candidate.versionId === input.VersionId);
    if (!version) throw failure(input.VersionId ? 'NoSuchVersion' : 'NoSuchKey', 404);
    if (input.IfMatch !== undefined && input.IfMatch !== version.eTag)
      throw failure('PreconditionFailed', 412);
    return version;
  };
  mock.on(HeadObjectCommand).callsFake((input) => {
    const version = pick(input);
    return {
      ContentLength: version.bytes.length,
      ETag: version.eTag,
      ...(versioned ? { VersionId: version.versionId } : {}),
    };
  });
  mock.on(GetObjectCommand).callsFake((input: { Range?: string; Key?: string }) => {
    const { bytes, eTag } = pick(input);
    const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(input.Range ?? '') ?? [];
    const start = first === undefined ? 0 : Number(first);
    const end = last === undefined ? bytes.length : Math.min(Number(last) + 1, bytes.length);
    const body = bytes.subarray(start, end);
    return {
      Body: Object.assign(Readable.from([body]), {
        transformToByteArray: () => Promise.resolve(new Uint8Array(body)),
      }),
      ETag: eTag,
      ...(input.Range ? { ContentRange: `bytes ${start}-${end - 1}/${bytes.length}` } : {}),
    };
  });
  const put = (key: string, text: string) => {
    const bytes = Buffer.from(text);
    const versions = objects.get(key) ?? [];
    const version = {
      versionId: `v${versions.length + 1}`,
      eTag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      bytes,
    };
    objects.set(key, versioned ? [...versions, version] : [version]);
  };
  const deleteVersion = (key: string, versionId: string) =>
    objects.set(
      key,
      (objects.get(key) ?? []).filter((version) => version.versionId !== versionId),
    );
  return { client, mock, put, deleteVersion };
};

/** Plans one CSV file's execution; `beforeRead` changes the bucket between planning and the task. */
const runExecution = async (
  tenant: string,
  bucket: ReturnType<typeof fakeBucket>,
  beforeRead: (key: string) => void,
) => {
  const built = manifestFor({
    bucket: 'exports',
    prefix: tenant,
    exportName: 'focus',
    billingPeriod: '2026-11',
    executionId: 'run-1',
    columns: CSV_HEADER.split(','),
    dataFileNames: ['part-0.csv'],
  });
  const [key] = built.dataFileKeys;
  bucket.put(built.manifestKey, built.json);
  bucket.put(key, csvOf([hourLine('10.00', ACCOUNT, 'EC2', 0)]));
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
