/**
 * Export completeness end to end on DynamoDB Local and s3rver: a Parquet + CSV execution planned from the
 * bucket (footers read there), its tasks run by the chunk worker's batch, the switch recording the
 * execution's completeness on its SNAPSHOT items, then the nightly reconciliation reporting it per
 * account-period and notifying an incomplete snapshot once.
 */
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { CostExplorerClient, GetCostAndUsageCommand } from '@aws-sdk/client-cost-explorer';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { ExportPlans } from '../../lambda/adapters/export-plans';
import { readReconciliationRun } from '../../lambda/adapters/reconciliation-records';
import { S3Objects } from '../../lambda/adapters/s3-objects';
import { createTelemetry } from '../../lambda/adapters/telemetry';
import type { ChunkResult } from '../../lambda/core/exports/chunk';
import { manifestFor } from '../../lambda/core/exports/manifest';
import { planDelivery } from '../../lambda/core/exports/plan-delivery';
import type { ExportStorePort } from '../../lambda/core/exports/run-task';
import { processTaskBatch } from '../../lambda/core/exports/task-batch';
import { taskMessageBody, type ExportTaskMessage } from '../../lambda/core/exports/task-message';
import { createReconciliationHandler } from '../../lambda/handlers/reconciliation';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import { CSV_HEADER, csvOf, hourLine } from '../support/export-pipeline';
import { useExportLedger } from '../support/file-fixtures';
import { FOCUS_EXPORT_COLUMNS, writeFocusParquet } from '../support/focus-export-generator';
import { tempDir } from '../cli/helpers';
import { ENV } from '../../contract/environment';

const BUCKET = 'exports';
const CSV_ACCOUNT = '200000000099';
const ledger = useExportLedger();
let s3: LocalS3;
let parquet: Buffer;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  const path = join(tempDir(), 'part-0.parquet');
  await writeFocusParquet(path, { rows: 20, accounts: 2 }, { rowGroupSize: 8 });
  parquet = readFileSync(path);
});
afterAll(() => s3.stop());

/** Commits every chunk as read, except that `shorten` takes one row off the chunks it names. */
const storeWith = (shorten: (result: ChunkResult) => boolean): ExportStorePort => ({
  readCursor: (ref, task) => ledger.store.readCursor(ref, task),
  commitChunk: (ref, result) =>
    ledger.store.commitChunk(ref, shorten(result) ? { ...result, rows: result.rows - 1 } : result),
  switchIfNewer: (ref, precedence, supersedes) =>
    ledger.store.switchIfNewer(ref, precedence, supersedes),
  markFailed: (ref, failure) => ledger.store.markFailed(ref, failure),
});

/** One execution of `tenant`'s export: a 20-row Parquet file (3 row groups) and a 3-row CSV file. */
const runExecution = async (tenant: string, store: ExportStorePort) => {
  const built = manifestFor({
    bucket: BUCKET,
    prefix: tenant,
    exportName: 'focus',
    billingPeriod: '2026-11',
    executionId: 'run-1',
    columns: [...FOCUS_EXPORT_COLUMNS],
    dataFileNames: ['part-0.parquet'],
  });
  const csvText = csvOf(
    [0, 1, 2].map((hour) => hourLine('1.00', CSV_ACCOUNT, 'EC2', hour)),
    CSV_HEADER,
  );
  // The CSV file has the ledger's FOCUS columns only: its own manifest column list would differ, so it
  // rides in the same execution under the Parquet file's manifest (the manifest lists both files).
  const csvKey = built.dataFileKeys[0].replace('part-0.parquet', 'part-1.csv');
  const manifest = JSON.parse(built.json) as { dataFiles: string[] };
  manifest.dataFiles.push(`s3://${BUCKET}/${csvKey}`);
  const put = (Key: string, Body: string | Buffer) =>
    s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body }));
  await put(built.dataFileKeys[0], parquet);
  await put(csvKey, csvText);
  await put(built.manifestKey, JSON.stringify(manifest));
  const objects = new ExportObjects(new S3Objects(s3.client));
  const sent: ExportTaskMessage[] = [];
  const sources = [{ tenant, bucket: BUCKET, prefix: tenant }];
  await planDelivery(
    {
      bucket: BUCKET,
      key: built.manifestKey,
      eventTime: '2026-11-02T06:00:00.000Z',
      sequencer: '0A',
    },
    {
      sources,
      targetRowsPerTask: 8,
      objects,
      plans: new ExportPlans({
        client: ledger.dynamo,
        ledgerTable: ledger.tables.ledgerTable,
        store: ledger.store,
      }),
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
    },
  );
  const outcome = await processTaskBatch(
    sent.map((message, index) => ({ messageId: `task-${index}`, body: taskMessageBody(message) })),
    {
      concurrency: 1,
      bucket: BUCKET,
      sources,
      store,
      openRows: (name, task, fromRow) => objects.rowsOf(name, task, fromRow),
      subChunkRows: 2,
      threshold: '1',
      notifier: { notifyOnce: () => Promise.resolve('notified') },
      deadLetters: { send: () => Promise.reject(new Error('no task may be dead-lettered')) },
      defaultProvider: 'aws',
    },
  );
  return { sent, outcome };
};

const sns = new SNSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const snsMock = mockClient(sns);
const costExplorer = new CostExplorerClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const ce = mockClient(costExplorer);

const nightly = () =>
  createReconciliationHandler(
    {
      LEDGER_TABLE_NAME: ledger.tables.ledgerTable,
      DEDUP_TABLE_NAME: ledger.tables.dedupTable,
      NOTIFICATIONS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:notifications',
    },
    {
      dynamo: ledger.dynamo,
      costExplorer,
      sns,
      now: () => Date.parse('2026-11-20T04:30:00Z'),
      telemetry: createTelemetry({ POWERTOOLS_METRICS_DISABLED: 'true', [ENV.logLevel]: 'SILENT' }),
    },
  )({}, { getRemainingTimeInMillis: () => 600_000 } as Context);

describe('export completeness in the nightly reconciliation', () => {
  beforeEach(() => {
    snsMock.reset();
    snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
    ce.reset();
    ce.on(GetCostAndUsageCommand).resolves({ ResultsByTime: [] });
  });

  it('a clean execution is complete; one whose Parquet chunk is a row short is incomplete and notified once', async () => {
    const clean = await runExecution(
      'clean',
      storeWith(() => false),
    );
    expect(clean.sent.map((m) => m.task.kind)).toEqual([
      'parquet-range',
      'parquet-range',
      'parquet-range',
      'csv-file',
    ]);
    const short = await runExecution(
      'short',
      storeWith((result) => result.taskIndex === 1),
    );
    expect(short.outcome.batchItemFailures).toEqual([]);

    const first = await nightly();
    expect(first.incomplete).toBeGreaterThan(0);
    const run = await readReconciliationRun(ledger.dynamo, ledger.tables.ledgerTable, '2026-11');
    const byTenant = (tenant: string) =>
      run.completeness
        .filter((record) => record.tenant === tenant)
        .map((record) => [
          record.accountId,
          record.completeness.status,
          `${record.completeness.filesRead}/${record.completeness.filesPlanned}`,
          `${record.completeness.rowsRead}/${record.completeness.rowsExpected}`,
          record.pages,
        ]);
    // Every account of the execution carries the execution's completeness (2 Parquet accounts + the CSV one).
    expect(byTenant('clean')).toHaveLength(3);
    expect(
      byTenant('clean').every(
        ([, status, files, rows, pages]) =>
          status === 'complete' && files === '2/2' && rows === '23/23' && pages === false,
      ),
    ).toBe(true);
    expect(byTenant('short')).toHaveLength(3);
    expect(
      byTenant('short').every(
        ([, status, files, rows, pages]) =>
          status === 'incomplete' && files === '2/2' && rows === '22/23' && pages === true,
      ),
    ).toBe(true);
    const shortFiles = run.completeness.find((r) => r.tenant === 'short')?.completeness.files;
    expect(shortFiles).toEqual([
      expect.objectContaining({
        expected: 20,
        read: 19,
        problem: "read 19 of the footer's 20 rows",
      }),
    ]);
    const published = snsMock.commandCalls(PublishCommand).map((call) => call.args[0].input);
    const incomplete = published.filter(
      (input) => input.MessageAttributes?.kind?.StringValue === 'reconciliation-incomplete',
    );
    expect(incomplete).toHaveLength(1);
    expect(incomplete[0].Message).toContain('rows read: 22 of 23');
    expect(incomplete[0].MessageAttributes?.tenant?.StringValue).toBe('short');

    snsMock.resetHistory();
    await nightly();
    expect(
      snsMock
        .commandCalls(PublishCommand)
        .filter(
          (call) =>
            call.args[0].input.MessageAttributes?.kind?.StringValue === 'reconciliation-incomplete',
        ),
    ).toHaveLength(0);
  });
});
