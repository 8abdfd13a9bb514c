/**
 * One export chunk worker of the exports benchmark: runs its share of an execution's tasks one at a
 * time (S3 reads through the adapter, normalization and aggregation, chunk commits and the snapshot
 * switch through the export store), with every DynamoDB request metered. Run as a child process
 * (`forkChunkWorker`), so its CPU time and peak memory are its own, like a Lambda's.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { ExportStore } from '../../lambda/adapters/export-store';
import { S3Objects, s3AsyncBuffer } from '../../lambda/adapters/s3-objects';
import type { ExportTask } from '../../lambda/core/exports/plan';
import { readCsvRows } from '../../lambda/core/exports/readers/csv';
import { parquetRowSource, readParquetFile } from '../../lambda/core/exports/readers/parquet';
import type { ExportRow } from '../../lambda/core/exports/rows';
import {
  runExportTask,
  type ExecutionRef,
  type ExportStorePort,
} from '../../lambda/core/exports/run-task';
import { localS3ClientConfig } from '../../local/emulators/s3';
import { ItemSizeProbe, type MeasuredItem } from '../../test/support/item-size-probe';
import { Meter, meteredDynamo } from './meter';

export interface WorkerJob {
  dynamoEndpoint: string;
  s3Endpoint: string;
  bucket: string;
  ledgerTable: string;
  ref: ExecutionRef;
  tasks: ExportTask[];
  subChunkRows: number;
}

export interface DynamoFigures {
  requests: Record<string, number>;
  totalRequests: number;
  reportedWcu: number;
  billedWcu: number;
  reportedRcu: number;
  billedRcu: number;
}

export interface WorkerResult {
  tasks: number;
  commits: number;
  alreadyCommitted: number;
  failed: string[];
  switched: boolean;
  wallMs: number;
  /** Epoch ms when the worker started its first task and finished its last (wall time across workers). */
  startedAt: number;
  endedAt: number;
  /** User + system CPU time of the worker process while it ran its tasks. */
  cpuMs: number;
  /** Peak resident set size of the worker process, bytes. */
  maxRssBytes: number;
  s3Requests: number;
  dynamo: DynamoFigures;
  /** Wall time of the snapshot switches this worker ran (0 when it ran none). */
  switchMs: number;
  /** The largest item this worker wrote, as sent (a Put's item, an Update's key and values). */
  largestItem: MeasuredItem;
  largestTransactionBytes: number;
}

export const dynamoFigures = (meter: Meter): DynamoFigures => ({
  requests: meter.byOperation(),
  totalRequests: meter.totalRequests(),
  reportedWcu: meter.reportedWcu,
  billedWcu: meter.billedWcu,
  reportedRcu: meter.reportedRcu,
  billedRcu: meter.billedRcu,
});

/** A task's rows as the chunk worker reads them (Parquet: a source `chunkResults` books by column). */
const rowsOf =
  (objects: S3Objects, bucket: string) =>
  (task: ExportTask, fromRow: number): AsyncIterable<ExportRow> => {
    if (task.kind === 'csv-file') return csvRows(objects, bucket, task, fromRow);
    return parquetRowSource(
      async () => {
        const file = await s3AsyncBuffer(objects, bucket, task.objectKey);
        return { file, parquet: await readParquetFile(file) };
      },
      { fromGroup: task.firstRowGroup, toGroup: task.endRowGroup },
    );
  };

async function* csvRows(
  objects: S3Objects,
  bucket: string,
  task: ExportTask & { kind: 'csv-file' },
  fromRow: number,
): AsyncGenerator<ExportRow> {
  const stream = await objects.openStream(bucket, task.objectKey);
  yield* readCsvRows(stream, { gzip: task.format === 'csv.gz', fromRow });
}

export const runChunkWorker = async (job: WorkerJob): Promise<WorkerResult> => {
  const meter = new Meter();
  const dynamo = meteredDynamo(job.dynamoEndpoint, meter, () => job.ledgerTable);
  const probe = new ItemSizeProbe();
  dynamo.middlewareStack.add(probe.middleware, { step: 'initialize', name: 'itemSizeProbe' });
  const s3 = new S3Client(localS3ClientConfig(job.s3Endpoint));
  const objects = new S3Objects(s3);
  const exportStore = new ExportStore({ client: dynamo, ledgerTable: job.ledgerTable });
  let switchMs = 0;
  const store: ExportStorePort = {
    readCursor: (ref, task) => exportStore.readCursor(ref, task),
    commitChunk: (ref, result) => exportStore.commitChunk(ref, result),
    markFailed: (ref, failure) => exportStore.markFailed(ref, failure),
    switchIfNewer: async (ref) => {
      const started = performance.now();
      const outcome = await exportStore.switchIfNewer(ref);
      if (outcome.outcome !== 'incomplete') switchMs += performance.now() - started;
      return outcome;
    },
  };
  const openRows = rowsOf(objects, job.bucket);
  const result = { tasks: 0, commits: 0, alreadyCommitted: 0, failed: [] as string[] };
  let switched = false;
  const cpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  const started = performance.now();
  try {
    for (const task of job.tasks) {
      const report = await runExportTask({
        ref: job.ref,
        task,
        store,
        openRows,
        context: { tenant: job.ref.tenant, billingPeriod: job.ref.period },
        subChunkRows: job.subChunkRows,
      });
      result.tasks += 1;
      result.commits += report.committed;
      result.alreadyCommitted += report.alreadyCommitted;
      if (report.failed !== undefined) result.failed.push(report.failed);
      if (report.switched?.outcome === 'current') switched = true;
    }
  } finally {
    dynamo.destroy();
    s3.destroy();
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ...result,
    switched,
    wallMs: performance.now() - started,
    startedAt,
    endedAt: Date.now(),
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    s3Requests: objects.requests,
    dynamo: dynamoFigures(meter),
    switchMs,
    largestItem: probe.largest,
    largestTransactionBytes: probe.largestTransaction.bytes,
  };
};

/** Runs `job` in a fresh Node process (TypeScript through tsx) and resolves with its result. */
export const forkChunkWorker = (job: WorkerJob): Promise<WorkerResult> =>
  new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'exports-worker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true' },
    });
    let answer: { result?: WorkerResult; error?: string } | undefined;
    child.once('message', (message) => (answer = message as typeof answer));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (answer?.result) resolve(answer.result);
      else reject(new Error(`chunk worker exited with ${code}: ${answer?.error ?? 'no result'}`));
    });
    child.send(job);
  });

if (require.main === module) {
  process.once('message', (job) => {
    runChunkWorker(job as WorkerJob)
      .then((result) => process.send?.({ result }, () => process.exit(0)))
      .catch((error: unknown) =>
        process.send?.(
          { error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
          () => process.exit(1),
        ),
      );
  });
}
