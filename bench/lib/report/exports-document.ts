/** The shape of bench/results/exports.json (the exports section) and its goals, computed from it. */
import type { Goal } from './document';
import { formatNumber } from './format';
import type { PRICING } from './pricing';

export const EXPORTS_REPORT_SCHEMA = 'billing-dedup-bench-exports/1';

export const EXPORT_FORMATS = ['csv.gz', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** DynamoDB requests and capacity units per 1,000 rows. */
export interface DynamoPerThousandRows {
  requests: number;
  writeRequests: number;
  byOperation: Record<string, number>;
  wcu: { reported: number; billed: number };
  rcu: { reported: number; billed: number };
}

export interface CostPerMillionRows {
  write: number;
  read: number;
  total: number;
}

export interface FormatFigures {
  rows: number;
  rowsAccepted: number;
  rowsRejected: number;
  files: number;
  bytes: number;
  tasks: number;
  /** Read + normalize + aggregate in one process from local files: no S3, no DynamoDB. */
  parseAggregate: { seconds: number; rowsPerSecond: number; rowsPerCpuSecond: number };
  /** One chunk worker (a child process) running every task one at a time. */
  oneWorker: {
    seconds: number;
    rowsPerSecond: number;
    rowsPerCpuSecond: number;
    maxRssMiB: number;
    commits: number;
    s3Requests: number;
  };
  /** `workers` chunk workers sharing the tasks: wall time from the first start to the last end. */
  parallel: { workers: number; seconds: number; rowsPerSecond: number; maxRssMiB: number };
  /** Planner + one worker, per 1,000 rows. */
  dynamo: DynamoPerThousandRows;
  costUsdPerMillionRows: CostPerMillionRows;
  /** The snapshot equalled the ground truth (a run where it does not fails instead). */
  exact: boolean;
}

export interface StreamFigures {
  events: number;
  queue: 'fifo';
  eventsPerSecond: number;
  dynamo: DynamoPerThousandRows;
  costUsdPerMillionRows: CostPerMillionRows;
}

/** One switch of the scale case: the chunk worker that ran the execution's tasks and its switch. */
export interface ScaleSwitch {
  /** `switchIfNewer` alone: sum the chunks, write the SNAPSHOT items and the diff pages, move the pointer. */
  switchSeconds: number;
  workerSeconds: number;
  workerMaxRssMiB: number;
}

/**
 * The scale case: an export of many account-currencies, delivered twice (the second replaces the
 * first, so its diff covers every account-currency), on one worker each.
 */
export interface ScaleFigures {
  rows: number;
  accounts: number;
  accountCurrencies: number;
  tasks: number;
  first: ScaleSwitch;
  second: ScaleSwitch;
  /** Account-currencies in the second switch's diff, and the pages it was stored in. */
  diffAccountCurrencies: number;
  diffPages: number;
  /** The largest item the workers sent (a Put's item; an Update's key and values). */
  largestItemBytes: number;
  largestItem: string;
  largestTransactionBytes: number;
  /** The largest item in the table after both switches (a scan). */
  largestStoredItemBytes: number;
  /** Both snapshots equalled the ground truth (a run where they do not fails instead). */
  exact: boolean;
}

/** How the exports section was run: its options, as the report records them. */
export interface ExportsRunConfig {
  /** Rows of the generated export, split evenly over `files` data files (each format). */
  rows: number;
  files: number;
  parquetRowGroupRows: number;
  parquetRowsPerTask: number;
  subChunkRows: number;
  /** Workers sharing the tasks for the wall-time figure. */
  workers: number;
  /** Every n-th row is a bad row (rejected with its reason); 0 for none. */
  badRowEvery: number;
  /** Events of the clean stream workload the per-row SNS path is measured on. */
  streamEvents: number;
  seed: number;
  /** Rows and account-currencies of the scale case (absent: not run). */
  scaleRows?: number;
  scaleAccountCurrencies?: number;
}

export interface ExportsReport {
  schema: typeof EXPORTS_REPORT_SCHEMA;
  generatedAt: string;
  command: string;
  durationSeconds: number;
  machine: { nproc: number; memory: string; cpuModel: string; node: string; platform: string };
  config: ExportsRunConfig & { pricing: typeof PRICING };
  formats: Record<ExportFormat, FormatFigures>;
  stream: StreamFigures;
  scale?: ScaleFigures;
  goals: Goal[];
}

export type ExportsMeasurements = Omit<ExportsReport, 'goals'>;

export const EXPORT_GOALS = {
  parseAggregateRowsPerSecond: 50_000,
  writesPerRow: 0.01,
  workerPeakMiB: 512,
} as const;

export const computeExportGoals = (report: ExportsMeasurements): Goal[] =>
  EXPORT_FORMATS.flatMap((format): Goal[] => {
    const figures = report.formats[format];
    const writesPerRow = figures.dynamo.writeRequests / 1000;
    return [
      {
        id: `exports-${format}-parse-aggregate`,
        description: `${format}: parse + normalize + aggregate, rows per second on one core`,
        target: `≥ ${formatNumber(EXPORT_GOALS.parseAggregateRowsPerSecond, 0)}`,
        measured: formatNumber(figures.parseAggregate.rowsPerSecond, 0),
        met: figures.parseAggregate.rowsPerSecond >= EXPORT_GOALS.parseAggregateRowsPerSecond,
      },
      {
        id: `exports-${format}-writes-per-row`,
        description: `${format}: DynamoDB write requests per row (planner + chunk commits + switch)`,
        target: `≤ ${EXPORT_GOALS.writesPerRow}`,
        measured: formatNumber(writesPerRow, 5),
        met: writesPerRow <= EXPORT_GOALS.writesPerRow,
      },
      {
        id: `exports-${format}-worker-memory`,
        description: `${format}: peak RSS of one chunk worker, MiB`,
        target: `≤ ${EXPORT_GOALS.workerPeakMiB}`,
        measured: formatNumber(figures.oneWorker.maxRssMiB, 0),
        met: figures.oneWorker.maxRssMiB <= EXPORT_GOALS.workerPeakMiB,
      },
    ];
  });
