/**
 * The exports section of `npm run bench`: a generated FOCUS export (CSV.gz and Parquet) through the
 * real pipeline — files in the S3 emulator, the planner (manifest, HEADs, Parquet footers, the plan
 * recorded in the export store), chunk workers (child processes: S3 reads, parse, normalize,
 * aggregate, chunk commits, snapshot switch) on DynamoDB Local — then the snapshot checked against
 * the generator's ground truth, exactly. A wrong total fails the run.
 *
 * Per format it measures parse + aggregate alone (in-process, files on local disk), one worker
 * running every task (rows/s, CPU, peak RSS, DynamoDB requests and capacity per 1,000 rows), and
 * `workers` workers sharing the tasks (wall time). The per-row SNS path is measured on a smaller
 * clean workload through the stream harness, for the same figures per row.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Big from 'big.js';
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ExportStore, exportPartitionKey } from '../../lambda/adapters/export-store';
import { itemBytes } from '../../lambda/adapters/item-size';
import { queryBySortKeyPrefix } from '../../lambda/adapters/paged-query';
import { DIFF_PAGE_PREFIX } from '../../lambda/adapters/table-layout';
import { S3Objects, s3AsyncBuffer } from '../../lambda/adapters/s3-objects';
import { NO_SERVICE, sumTotals, type ChargeTotals } from '../../lambda/core/exports/charge-totals';
import { chunkResults } from '../../lambda/core/exports/chunk';
import { manifestFor, parseManifest } from '../../lambda/core/exports/manifest';
import {
  planExecution,
  sourceIdOf,
  type ExecutionPlan,
  type FileFacts,
} from '../../lambda/core/exports/plan';
import { readCsvRows } from '../../lambda/core/exports/readers/csv';
import {
  readParquetFile,
  readParquetRows,
  type AsyncBuffer,
} from '../../lambda/core/exports/readers/parquet';
import type { ExportRow } from '../../lambda/core/exports/rows';
import type { ExecutionRef } from '../../lambda/core/exports/run-task';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import { createLedgerTables } from '../../test/support/aws-local';
import {
  FOCUS_EXPORT_COLUMNS,
  writeFocusCsv,
  writeFocusParquet,
  type ExpectedExport,
  type FocusExportSpec,
} from '../../test/support/focus-export-generator';
import {
  forkChunkWorker,
  dynamoFigures,
  type DynamoFigures,
  type WorkerJob,
  type WorkerResult,
} from './exports-worker';
import { canonicalize } from 'json-canonicalize';
import { runImplementation } from './harness';
import { Meter, meteredDynamo } from './meter';
import { PRICING } from './report';
import { DEFAULT_WORKLOAD, generateWorkload } from './workload';

export const EXPORTS_REPORT_SCHEMA = 'billing-dedup-bench-exports/1';
/** The formats measured, in report order: a new format is one entry here (and its generator). */
export const EXPORT_FORMATS = ['csv.gz', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How the section runs: its options, as the report records them. */
export interface ExportsRunConfig {
  /** Rows of the generated export (each format), split evenly over `files` data files. */
  rows: number;
  files: number;
  parquetRowGroupRows: number;
  parquetRowsPerTask: number;
  subChunkRows: number;
  /** Workers sharing the tasks for the wall-time figure. */
  workers: number;
  /** Every n-th row is a bad row (rejected with its reason). */
  badRowEvery: number;
  /** Events of the clean stream workload the per-row SNS path is measured on. */
  streamEvents: number;
  seed: number;
  scaleRows?: number;
  scaleAccountCurrencies?: number;
}

export interface ExportsBenchOptions extends ExportsRunConfig {
  dynamoEndpoint: string;
  log: (message: string) => void;
}

export const EXPORTS_DEFAULTS = {
  rows: 1_000_000,
  files: 4,
  parquetRowGroupRows: 50_000,
  parquetRowsPerTask: 200_000,
  subChunkRows: 50_000,
  workers: 2,
  badRowEvery: 10_000,
  streamEvents: 20_000,
  scaleRows: 1_000_000,
  scaleAccountCurrencies: 100_000,
} as const;

const TENANT = 'acme';
const PERIOD = '2026-11';
const BUCKET = 'exports';
const PREFIX = 'bench';

/** The ground truth of every file of one format, as the snapshot stores it. */
interface Truth {
  rows: number;
  rowsAccepted: number;
  rowsRejected: number;
  rejectedByReason: Record<string, number>;
  totals: ChargeTotals;
}

const mergeTruths = (parts: ExpectedExport[]): Truth => {
  const totals: Record<
    string,
    Record<string, { total: Big; charges: number; services: Map<string, Big> }>
  > = {};
  const rejectedByReason: Record<string, number> = {};
  for (const part of parts) {
    for (const total of part.totals) {
      totals[total.accountId] ??= {};
      const entry = (totals[total.accountId][total.currency] ??= {
        total: new Big(0),
        charges: 0,
        services: new Map(),
      });
      entry.total = entry.total.plus(total.total);
      entry.charges += total.rows;
      for (const service of total.services) {
        const name = service.service ?? NO_SERVICE;
        entry.services.set(name, (entry.services.get(name) ?? new Big(0)).plus(service.total));
      }
    }
    for (const [reason, rows] of Object.entries(part.rejectedByReason))
      rejectedByReason[reason] = (rejectedByReason[reason] ?? 0) + rows;
  }
  const text = (value: Big) =>
    value.eq(0)
      ? '0'
      : value
          .toFixed()
          .replace(/(\.\d*?)0+$/, '$1')
          .replace(/\.$/, '');
  return {
    rows: parts.reduce((n, p) => n + p.rows, 0),
    rowsAccepted: parts.reduce((n, p) => n + p.rowsAccepted, 0),
    rowsRejected: parts.reduce((n, p) => n + p.rowsRejected, 0),
    rejectedByReason,
    totals: Object.fromEntries(
      Object.entries(totals).map(([account, currencies]) => [
        account,
        Object.fromEntries(
          Object.entries(currencies).map(([currency, entry]) => [
            currency,
            {
              total: text(entry.total),
              charges: entry.charges,
              services: Object.fromEntries([...entry.services].map(([name, v]) => [name, text(v)])),
            },
          ]),
        ),
      ]),
    ),
  };
};

const checkExact = (what: string, found: unknown, expected: unknown): void => {
  if (canonicalize(found) !== canonicalize(expected)) {
    throw new Error(
      `exports bench: ${what} differs from the ground truth\n  found    ${canonicalize(found).slice(0, 600)}\n  expected ${canonicalize(expected).slice(0, 600)}`,
    );
  }
};

interface GeneratedFormat {
  format: ExportFormat;
  /** Data file names and local paths. */
  files: { name: string; path: string; rows: number }[];
  bytes: number;
  truth: Truth;
}

const fileName = (format: ExportFormat, index: number): string =>
  `part-${String(index).padStart(5, '0')}.${format === 'parquet' ? 'parquet' : 'csv.gz'}`;

const generate = async (
  directory: string,
  format: ExportFormat,
  options: ExportsBenchOptions,
  shape: { rows: number; accounts?: number; seed: number; name?: string } = {
    rows: options.rows,
    seed: options.seed,
  },
): Promise<GeneratedFormat> => {
  const files: GeneratedFormat['files'] = [];
  const truths: ExpectedExport[] = [];
  for (let index = 0; index < options.files; index++) {
    const rows =
      Math.floor(shape.rows / options.files) + (index < shape.rows % options.files ? 1 : 0);
    const spec: FocusExportSpec = {
      rows,
      seed: shape.seed + index,
      tenant: TENANT,
      billingPeriod: PERIOD,
      badRowEvery: options.badRowEvery,
      ...(shape.accounts ? { accounts: shape.accounts } : {}),
    };
    const name = `${shape.name ?? ''}${fileName(format, index)}`;
    const file = path.join(directory, name);
    truths.push(
      format === 'parquet'
        ? await writeFocusParquet(file, spec, { rowGroupSize: options.parquetRowGroupRows })
        : await writeFocusCsv(file, spec, { gzip: true }),
    );
    files.push({ name, path: file, rows });
  }
  const bytes = files.reduce((n, f) => n + statSync(f.path).size, 0);
  return { format, files, bytes, truth: mergeTruths(truths) };
};

/** A local file as hyparquet's AsyncBuffer (for the in-process parse + aggregate figure). */
export const fileBuffer = async (
  file: string,
): Promise<AsyncBuffer & { close(): Promise<void> }> => {
  const handle = await open(file, 'r');
  const { size } = await handle.stat();
  return {
    byteLength: size,
    slice: async (start: number, end = size) => {
      const bytes = Buffer.alloc(Math.max(0, Math.min(end, size) - start));
      await handle.read(bytes, 0, bytes.length, start);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    },
    close: () => handle.close(),
  };
};

/** Parse + normalize + aggregate every file of a format in this process, no I/O but the local disk. */
const parseAndAggregate = async (
  generated: GeneratedFormat,
  options: ExportsBenchOptions,
): Promise<{ seconds: number; rowsPerSecond: number; rowsPerCpuSecond: number }> => {
  const parts: ChargeTotals[] = [];
  let rows = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (const [index, file] of generated.files.entries()) {
    const context = { tenant: TENANT, billingPeriod: PERIOD, objectKey: file.name };
    const consume = async (
      task: Parameters<typeof chunkResults>[0]['task'],
      source: AsyncIterable<ExportRow>,
    ) => {
      for await (const result of chunkResults({
        task,
        rows: source,
        fromRow: 0,
        context,
        subChunkRows: options.subChunkRows,
      })) {
        parts.push(result.totals);
        rows += result.rows;
      }
    };
    if (generated.format === 'parquet') {
      const buffer = await fileBuffer(file.path);
      const parquet = await readParquetFile(buffer);
      await consume(
        {
          index,
          kind: 'parquet-range',
          objectKey: file.name,
          format: 'parquet',
          firstRowGroup: 0,
          endRowGroup: parquet.rowGroups.length,
          firstRow: 0,
          rows: parquet.rowCount,
        },
        readParquetRows(buffer, parquet, { fromGroup: 0, toGroup: parquet.rowGroups.length }),
      );
      await buffer.close();
    } else {
      await consume(
        { index, kind: 'csv-file', objectKey: file.name, format: 'csv.gz' },
        readCsvRows(createReadStream(file.path), { gzip: true }),
      );
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (rows !== generated.truth.rows)
    throw new Error(`exports bench: parsed ${rows} rows, generated ${generated.truth.rows}`);
  checkExact(
    `${generated.format} parse + aggregate totals`,
    sumTotals(parts),
    generated.truth.totals,
  );
  return {
    seconds,
    rowsPerSecond: rows / seconds,
    rowsPerCpuSecond: rows / ((cpu.user + cpu.system) / 1e6),
  };
};

interface Environment {
  s3: LocalS3;
  objects: S3Objects;
  options: ExportsBenchOptions;
}

const upload = async (
  env: Environment,
  generated: GeneratedFormat,
  executionId: string,
  exportName = `focus-${generated.format.replace('.', '-')}`,
) => {
  const built = manifestFor({
    bucket: BUCKET,
    prefix: PREFIX,
    exportName,
    billingPeriod: PERIOD,
    executionId,
    columns: [...FOCUS_EXPORT_COLUMNS],
    dataFileNames: generated.files.map((f) => f.name),
  });
  for (const [index, key] of built.dataFileKeys.entries())
    await env.objects.putObject(BUCKET, key, readFileSync(generated.files[index].path));
  await env.objects.putObject(BUCKET, built.manifestKey, JSON.stringify(built.json));
  return built;
};

interface Planned {
  plan: ExecutionPlan;
  ref: ExecutionRef;
  ledgerTable: string;
  planner: DynamoFigures;
  plannerS3Requests: number;
}

/** The planner on a fresh ledger table: manifest → HEADs (+ Parquet footers) → plan recorded. */
const planOn = async (
  env: Environment,
  built: Awaited<ReturnType<typeof upload>>,
  table?: string,
): Promise<Planned> => {
  const meter = new Meter();
  const admin = meteredDynamo(env.options.dynamoEndpoint, new Meter(), () => '');
  const ledgerTable = table ?? (await createLedgerTables(admin)).ledgerTable;
  admin.destroy();
  const dynamo = meteredDynamo(env.options.dynamoEndpoint, meter, () => ledgerTable);
  const objects = new S3Objects(env.s3.client);
  const manifest = parseManifest(
    JSON.parse(
      Buffer.from(await objects.readRange(BUCKET, built.manifestKey, 0, 1 << 20)).toString('utf8'),
    ) as unknown,
    built.manifestUri,
  );
  const files: FileFacts[] = [];
  for (const file of manifest.dataFiles) {
    const version = await objects.head(BUCKET, file.key);
    if (file.format !== 'parquet') {
      files.push({ key: file.key, size: version.size });
      continue;
    }
    const parquet = await readParquetFile(
      await s3AsyncBuffer(objects, BUCKET, file.key, { version }),
    );
    files.push({
      key: file.key,
      size: version.size,
      rowGroups: parquet.rowGroups.map((g) => g.rowCount),
    });
  }
  const plan = planExecution({
    manifest,
    binding: { tenant: TENANT, source: sourceIdOf(manifest.bucket, manifest.exportRoot) },
    event: { eventTime: new Date().toISOString(), sequencer: '0A' },
    files,
    targetRowsPerTask: env.options.parquetRowsPerTask,
  });
  const store = new ExportStore({ client: dynamo, ledgerTable });
  if ((await store.recordPlan(plan)) !== 'planned')
    throw new Error('exports bench: the plan was not recorded');
  dynamo.destroy();
  const ref = {
    tenant: plan.tenant,
    source: plan.source,
    period: plan.period,
    executionId: plan.executionId,
  };
  return {
    plan,
    ref,
    ledgerTable,
    planner: dynamoFigures(meter),
    plannerS3Requests: objects.requests,
  };
};

/** The execution became current, and its snapshot equals the ground truth exactly. */
const verifySnapshot = async (env: Environment, planned: Planned, truth: Truth, what: string) => {
  const dynamo = meteredDynamo(env.options.dynamoEndpoint, new Meter(), () => planned.ledgerTable);
  const store = new ExportStore({ client: dynamo, ledgerTable: planned.ledgerTable });
  try {
    const execution = await store.readExecution(planned.ref);
    checkExact(
      `${what}: execution`,
      {
        status: execution?.status,
        rows: execution?.rows,
        rejectedRows: execution?.rejectedRows,
      },
      { status: 'current', rows: truth.rows, rejectedRows: truth.rowsRejected },
    );
    checkExact(
      `${what}: rejected rows`,
      (await store.readRejections(planned.ref)).rejectedByReason,
      truth.rejectedByReason,
    );
    checkExact(
      `${what}: snapshot totals`,
      await store.readSnapshotTotals(planned.ref),
      truth.totals,
    );
  } finally {
    dynamo.destroy();
  }
};

/** DynamoDB requests and capacity units per 1,000 rows. */
const perThousand = (figures: DynamoFigures, rows: number) => {
  const k = 1000 / rows;
  const writes = [
    'PutItem',
    'UpdateItem',
    'DeleteItem',
    'BatchWriteItem',
    'TransactWriteItems',
  ].reduce((n, op) => n + (figures.requests[op] ?? 0), 0);
  return {
    requests: figures.totalRequests * k,
    writeRequests: writes * k,
    byOperation: Object.fromEntries(Object.entries(figures.requests).map(([op, n]) => [op, n * k])),
    wcu: { reported: figures.reportedWcu * k, billed: figures.billedWcu * k },
    rcu: { reported: figures.reportedRcu * k, billed: figures.billedRcu * k },
  };
};

const addFigures = (a: DynamoFigures, b: DynamoFigures): DynamoFigures => {
  const requests = { ...a.requests };
  for (const [op, n] of Object.entries(b.requests)) requests[op] = (requests[op] ?? 0) + n;
  return {
    requests: Object.fromEntries(Object.entries(requests).sort()),
    totalRequests: a.totalRequests + b.totalRequests,
    reportedWcu: a.reportedWcu + b.reportedWcu,
    billedWcu: a.billedWcu + b.billedWcu,
    reportedRcu: a.reportedRcu + b.reportedRcu,
    billedRcu: a.billedRcu + b.billedRcu,
  };
};

/** On-demand $ per million rows from capacity units per 1,000 rows. */
export const costPerMillionRows = (dynamo: ReturnType<typeof perThousand>) => {
  const write = (dynamo.wcu.billed / 1000) * PRICING.writeRequestUnitUsdPerMillion;
  const read = (dynamo.rcu.billed / 1000) * PRICING.readRequestUnitUsdPerMillion;
  return { write, read, total: write + read };
};

const jobOf = (env: Environment, planned: Planned, tasks: WorkerJob['tasks']): WorkerJob => ({
  dynamoEndpoint: env.options.dynamoEndpoint,
  s3Endpoint: env.s3.endpoint,
  bucket: BUCKET,
  ledgerTable: planned.ledgerTable,
  ref: planned.ref,
  tasks,
  subChunkRows: env.options.subChunkRows,
});

const checkWorkers = (results: { failed: string[] }[], what: string) => {
  const failed = results.flatMap((r) => r.failed);
  if (failed.length > 0) throw new Error(`exports bench: ${what} failed: ${failed.join('; ')}`);
};

const measureFormat = async (env: Environment, generated: GeneratedFormat) => {
  const { options, log } = { options: env.options, log: env.options.log };
  const rows = generated.truth.rows;
  log(`${generated.format}: parse + aggregate in process`);
  const parseAggregate = await parseAndAggregate(generated, options);
  log(`${generated.format}: ${parseAggregate.rowsPerSecond.toFixed(0)} rows/s parse + aggregate`);

  const built = await upload(env, generated, `bench-${generated.format.replace('.', '-')}-1`);

  const single = await planOn(env, built);
  log(`${generated.format}: ${single.plan.tasks.length} tasks, one worker`);
  const one = await forkChunkWorker(jobOf(env, single, single.plan.tasks));
  checkWorkers([one], `${generated.format} one worker`);
  await verifySnapshot(env, single, generated.truth, `${generated.format} one worker`);
  log(
    `${generated.format}: one worker ${(rows / (one.wallMs / 1000)).toFixed(0)} rows/s, ${(one.maxRssBytes / 2 ** 20).toFixed(0)} MiB peak RSS`,
  );

  const shared = await planOn(env, built);
  const shares = Array.from({ length: options.workers }, (_, w) =>
    shared.plan.tasks.filter((_, index) => index % options.workers === w),
  ).filter((tasks) => tasks.length > 0);
  log(`${generated.format}: ${shares.length} workers in parallel`);
  const parallel = await Promise.all(
    shares.map((tasks) => forkChunkWorker(jobOf(env, shared, tasks))),
  );
  checkWorkers(parallel, `${generated.format} ${shares.length} workers`);
  await verifySnapshot(
    env,
    shared,
    generated.truth,
    `${generated.format} ${shares.length} workers`,
  );
  const parallelSeconds =
    (Math.max(...parallel.map((r) => r.endedAt)) - Math.min(...parallel.map((r) => r.startedAt))) /
    1000;

  const dynamo = perThousand(addFigures(single.planner, one.dynamo), rows);
  return {
    rows,
    rowsAccepted: generated.truth.rowsAccepted,
    rowsRejected: generated.truth.rowsRejected,
    files: generated.files.length,
    bytes: generated.bytes,
    tasks: single.plan.tasks.length,
    parseAggregate,
    oneWorker: {
      seconds: one.wallMs / 1000,
      rowsPerSecond: rows / (one.wallMs / 1000),
      rowsPerCpuSecond: rows / (one.cpuMs / 1000),
      maxRssMiB: one.maxRssBytes / 2 ** 20,
      commits: one.commits,
      s3Requests: one.s3Requests + single.plannerS3Requests,
    },
    parallel: {
      workers: shares.length,
      seconds: parallelSeconds,
      rowsPerSecond: rows / parallelSeconds,
      maxRssMiB: Math.max(...parallel.map((r) => r.maxRssBytes)) / 2 ** 20,
    },
    dynamo,
    costUsdPerMillionRows: costPerMillionRows(dynamo),
    exact: true,
  };
};

/** Accounts that give about `accountCurrencies` account-currencies over `rows` rows (¼ of rows are EUR). */
const accountsFor = (rows: number, accountCurrencies: number): number => {
  let accounts = Math.max(1, Math.round(accountCurrencies / 2));
  for (let step = 0; step < 5; step += 1) {
    const perAccount = 2 - 0.75 ** (rows / accounts) - 0.25 ** (rows / accounts);
    accounts = Math.max(1, Math.round(accountCurrencies / perAccount));
  }
  return accounts;
};

/** The largest item in a table (a scan): what DynamoDB holds after the run. */
const largestStoredItem = async (env: Environment, ledgerTable: string): Promise<number> => {
  const dynamo = meteredDynamo(env.options.dynamoEndpoint, new Meter(), () => ledgerTable);
  let largest = 0;
  try {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamo.send(
        new ScanCommand({ TableName: ledgerTable, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) largest = Math.max(largest, itemBytes(item));
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    dynamo.destroy();
  }
  return largest;
};

/**
 * The scale case: a CSV.gz export of `scaleRows` rows over about `scaleAccountCurrencies`
 * account-currencies, delivered twice (other amounts, the same accounts) into one table, each run by
 * one worker that also switches; both snapshots are checked exactly against the ground truth.
 */
const measureScale = async (env: Environment, directory: string) => {
  const { options } = env;
  const rows = options.scaleRows ?? EXPORTS_DEFAULTS.scaleRows;
  const target = options.scaleAccountCurrencies ?? EXPORTS_DEFAULTS.scaleAccountCurrencies;
  const accounts = accountsFor(rows, target);
  let table: string | undefined;
  const runs: { worker: WorkerResult; planned: Planned; truth: Truth }[] = [];
  for (const round of [1, 2]) {
    options.log(`scale: export ${round} of ${rows} rows over ${accounts} accounts`);
    const generated = await generate(directory, 'csv.gz', options, {
      rows,
      accounts,
      seed: options.seed + 1000 * round,
      name: `scale-${round}-`,
    });
    const built = await upload(env, generated, `bench-scale-${round}`, 'focus-scale');
    const planned = await planOn(env, built, table);
    table = planned.ledgerTable;
    const worker = await forkChunkWorker(jobOf(env, planned, planned.plan.tasks));
    checkWorkers([worker], `scale export ${round}`);
    if (!worker.switched) throw new Error(`exports bench: scale export ${round} did not switch`);
    await verifySnapshot(env, planned, generated.truth, `scale export ${round}`);
    options.log(
      `scale: export ${round} switched in ${(worker.switchMs / 1000).toFixed(1)} s, worker peak ${(worker.maxRssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    runs.push({ worker, planned, truth: generated.truth });
    for (const file of generated.files) rmSync(file.path, { force: true });
  }
  const [first, second] = runs;
  const dynamo = meteredDynamo(
    options.dynamoEndpoint,
    new Meter(),
    () => second.planned.ledgerTable,
  );
  const store = new ExportStore({ client: dynamo, ledgerTable: second.planned.ledgerTable });
  const { tenant, source, period, executionId } = second.planned.ref;
  const diff = (await store.readDiffs(tenant, source, period)).find(
    (each) => each.executionId === executionId,
  );
  const diffPages = (
    await queryBySortKeyPrefix(
      dynamo,
      second.planned.ledgerTable,
      exportPartitionKey(tenant, source, period),
      `${DIFF_PAGE_PREFIX}${executionId}#`,
      'sk',
    )
  ).length;
  dynamo.destroy();
  const largest = [first, second]
    .map((run) => run.worker.largestItem)
    .reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const switchOf = (run: (typeof runs)[number]) => ({
    switchSeconds: run.worker.switchMs / 1000,
    workerSeconds: run.worker.wallMs / 1000,
    workerMaxRssMiB: run.worker.maxRssBytes / 2 ** 20,
  });
  return {
    rows,
    accounts,
    accountCurrencies: Object.values(second.truth.totals).reduce(
      (n, currencies) => n + Object.keys(currencies).length,
      0,
    ),
    tasks: second.planned.plan.tasks.length,
    first: switchOf(first),
    second: switchOf(second),
    diffAccountCurrencies: diff?.accounts.length ?? 0,
    diffPages,
    largestItemBytes: largest.bytes,
    largestItem: `${largest.operation} ${largest.sk.replace(/#[0-9a-f]{16}#/, '#…#')}`,
    largestTransactionBytes: Math.max(
      first.worker.largestTransactionBytes,
      second.worker.largestTransactionBytes,
    ),
    largestStoredItemBytes: await largestStoredItem(env, second.planned.ledgerTable),
    exact: true,
  };
};

/** The per-row SNS path: every row a cost event through the stream consumer (FIFO), no duplicates. */
const measureStream = async (options: ExportsBenchOptions) => {
  const workload = generateWorkload({
    ...DEFAULT_WORKLOAD,
    events: options.streamEvents,
    seed: options.seed,
    duplicateShare: 0,
    restatementShare: 0,
    poisonShare: 0,
  });
  const result = await runImplementation({
    implementation: 'ours',
    queue: 'fifo',
    workload,
    endpoint: options.dynamoEndpoint,
    consumers: 4,
    batchSize: 10,
    leaseMs: 1000,
    retryDelayMs: 250,
    crashRedeliveryMs: 1200,
    maxReceives: 25,
  });
  const { correctness } = result;
  if (correctness.cellsWrong > 0 || correctness.lost > 0 || correctness.doubleApplied > 0)
    throw new Error(
      `exports bench: the stream comparison run is wrong: ${JSON.stringify(correctness)}`,
    );
  const dynamo = perThousand(
    {
      requests: result.requests,
      totalRequests: result.totalRequests,
      reportedWcu: result.reportedWcu,
      billedWcu: result.billedWcu,
      reportedRcu: result.reportedRcu,
      billedRcu: result.billedRcu,
    },
    result.events,
  );
  return {
    events: result.events,
    queue: 'fifo' as const,
    eventsPerSecond: result.eventsPerSecond,
    dynamo,
    costUsdPerMillionRows: costPerMillionRows(dynamo),
  };
};

/** Runs the section; starts (and stops) an S3 emulator, uses the given DynamoDB. */
export const runExportsBench = async (options: ExportsBenchOptions) => {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-exports-'));
  const s3 = await startLocalS3({ buckets: [BUCKET] });
  const env: Environment = { s3, objects: new S3Objects(s3.client), options };
  try {
    const formats = {} as Record<ExportFormat, FormatFigures>;
    for (const format of EXPORT_FORMATS) {
      options.log(
        `${format}: generating ${options.rows.toLocaleString('en-US')} rows in ${options.files} files`,
      );
      const generated = await generate(directory, format, options);
      formats[format] = await measureFormat(env, generated);
      for (const file of generated.files) rmSync(file.path, { force: true });
    }
    options.log(
      `per-row SNS path: ${options.streamEvents.toLocaleString('en-US')} events through the stream consumer`,
    );
    const stream = await measureStream(options);
    const scale = await measureScale(env, directory);
    return {
      schema: EXPORTS_REPORT_SCHEMA as typeof EXPORTS_REPORT_SCHEMA,
      config: {
        rows: options.rows,
        files: options.files,
        parquetRowGroupRows: options.parquetRowGroupRows,
        parquetRowsPerTask: options.parquetRowsPerTask,
        subChunkRows: options.subChunkRows,
        workers: options.workers,
        badRowEvery: options.badRowEvery,
        streamEvents: options.streamEvents,
        seed: options.seed,
        scaleRows: scale.rows,
        scaleAccountCurrencies: options.scaleAccountCurrencies,
        pricing: PRICING,
      },
      formats,
      stream,
      /** Absent in reports from before the scale case. */
      scale: scale as typeof scale | undefined,
    };
  } finally {
    await s3.stop();
    rmSync(directory, { recursive: true, force: true });
  }
};

export type FormatFigures = Awaited<ReturnType<typeof measureFormat>>;
export type StreamFigures = Awaited<ReturnType<typeof measureStream>>;
/** What the section measured; run.ts adds the date, command, machine and goals. */
export type ExportsMeasured = Awaited<ReturnType<typeof runExportsBench>>;
