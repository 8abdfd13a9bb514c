import { Readable } from 'node:stream';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ExportStore } from '../../lambda/adapters/export-store';
import { manifestFor, parseManifest } from '../../lambda/core/exports/manifest';
import {
  planExecution,
  sourceIdOf,
  type ExecutionPlan,
  type ExportTask,
} from '../../lambda/core/exports/plan';
import type { LateCorrectionDeps } from '../../lambda/core/exports/late-correction-pass';
import { readCsvRows } from '../../lambda/core/exports/readers/csv';
import type { ExportRow } from '../../lambda/core/exports/rows';
import {
  runExportTask,
  type ExecutionRef,
  type TaskReport,
} from '../../lambda/core/exports/run-task';

/** Columns of the hand-written CSV exports of the export tests (the ledger's required FOCUS columns + ServiceName). */
export const CSV_HEADER =
  'BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,ServiceName';

/**
 * One CSV data line: an hour of `service` for `account` in 2026-11 (hour = 0-based hour of the month),
 * or in `period` (yyyy-mm) and `currency` when given.
 */
export const hourLine = (
  amount: string,
  account: string,
  service: string,
  hour: number,
  { period = '2026-11', currency = 'USD' }: { period?: string; currency?: string } = {},
): string => {
  const [year, month] = period.split('-').map(Number);
  const start = new Date(Date.UTC(year, month - 1, 1, hour));
  const end = new Date(start.getTime() + 3_600_000);
  return `${amount},${account},${currency},${period}-01T00:00:00Z,Usage,${start.toISOString()},${end.toISOString()},${service}`;
};

export const csvOf = (lines: readonly string[], header = CSV_HEADER): string =>
  `${[header, ...lines].join('\n')}\n`;

export interface ExportDelivery {
  tenant: string;
  /** S3 prefix of the tenant's export source. */
  prefix: string;
  /** The export's name under the prefix (default `focus`). */
  exportName?: string;
  executionId: string;
  period?: string;
  eventTime: string;
  sequencer: string;
  /** File name → CSV text. */
  files: Record<string, string>;
  /** The manifest's columns (default: `CSV_HEADER`'s FOCUS columns); the files' header must match. */
  columns?: readonly string[];
}

export interface PlannedDelivery {
  plan: ExecutionPlan;
  ref: ExecutionRef;
  texts: Map<string, string>;
  recorded: 'planned' | 'duplicate';
}

/** The planner: a manifest in the AWS Data Exports layout → a plan recorded in the store. */
export const planDelivery = async (
  store: ExportStore,
  delivery: ExportDelivery,
): Promise<PlannedDelivery> => {
  const names = Object.keys(delivery.files);
  const built = manifestFor({
    bucket: 'exports',
    prefix: delivery.prefix,
    exportName: delivery.exportName ?? 'focus',
    billingPeriod: delivery.period ?? '2026-11',
    executionId: delivery.executionId,
    columns: delivery.columns ?? CSV_HEADER.split(','),
    dataFileNames: names,
  });
  const manifest = parseManifest(built.json, built.manifestUri);
  const texts = new Map(
    built.dataFileKeys.map((key, index) => [key, delivery.files[names[index]]]),
  );
  const plan = planExecution({
    manifest,
    binding: { tenant: delivery.tenant, source: sourceIdOf(manifest.bucket, manifest.exportRoot) },
    event: { eventTime: delivery.eventTime, sequencer: delivery.sequencer },
    files: [...texts].map(([key, text]) => ({ key, size: Buffer.byteLength(text) })),
    targetRowsPerTask: 100_000,
  });
  const recorded = await store.recordPlan(plan);
  const ref = {
    tenant: plan.tenant,
    source: plan.source,
    period: plan.period,
    executionId: plan.executionId,
  };
  return { plan, ref, texts, recorded };
};

export interface TaskOptions {
  subChunkRows?: number;
  /** Fault injection: the row reader throws when asked for this row index (the worker dies). */
  dieAtRow?: number;
  /** Commit only: leave the snapshot switch to the test. */
  noSwitch?: boolean;
  /** The correction pass of closed periods after a switch. */
  corrections?: LateCorrectionDeps;
  /** The source's declared precedence (config `exportSources[].precedence`). */
  precedence?: number;
  /** The provider whose stream charges the snapshots supersede (the chunk worker's, from config). */
  supersedes?: string;
}

export const csvRowsOf = (text: string, fromRow: number, dieAtRow?: number) =>
  async function* rows(): AsyncGenerator<ExportRow> {
    for await (const row of readCsvRows(Readable.from([Buffer.from(text)]), {
      gzip: false,
      fromRow,
    })) {
      if (row.rowIndex === dieAtRow) throw new Error(`worker died reading row ${dieAtRow}`);
      yield row;
    }
  };

export const runTask = (
  store: ExportStore,
  planned: PlannedDelivery,
  task: ExportTask,
  options: TaskOptions = {},
): Promise<TaskReport> =>
  runExportTask({
    ref: planned.ref,
    task,
    store: options.noSwitch
      ? {
          readCursor: (ref, at) => store.readCursor(ref, at),
          commitChunk: (ref, result) => store.commitChunk(ref, result),
          switchIfNewer: async () => ({ outcome: 'incomplete' }),
          markFailed: (ref, failure) => store.markFailed(ref, failure),
        }
      : store,
    openRows: (opened, fromRow) =>
      csvRowsOf(planned.texts.get(opened.objectKey) ?? '', fromRow, options.dieAtRow)(),
    context: { tenant: planned.plan.tenant, billingPeriod: planned.plan.period, source: 'aws' },
    subChunkRows: options.subChunkRows ?? 2,
    corrections: options.corrections,
    precedence: options.precedence,
    ...(options.supersedes === undefined ? {} : { supersedes: options.supersedes }),
  });

/** Plans a delivery and runs every task once, in order (the last one switches the snapshot). */
export const deliver = async (
  store: ExportStore,
  delivery: ExportDelivery,
  options: TaskOptions = {},
): Promise<{ planned: PlannedDelivery; reports: TaskReport[] }> => {
  const planned = await planDelivery(store, delivery);
  const reports: TaskReport[] = [];
  for (const task of planned.plan.tasks) reports.push(await runTask(store, planned, task, options));
  return { planned, reports };
};

export const exportStore = (client: DynamoDBClient, ledgerTable: string): ExportStore =>
  new ExportStore({ client, ledgerTable });
