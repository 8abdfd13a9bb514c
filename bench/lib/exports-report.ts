/**
 * The exports section's report (bench/results/exports.json and exports.md): one row per export format
 * in every table, so a new format is one entry of `EXPORT_FORMATS`; goals as a table of data.
 */
import {
  EXPORT_FORMATS,
  type ExportsMeasured,
  type FormatFigures,
  type StreamFigures,
} from './exports-bench';
import { goalsTable, num, ratio, table, type Goal, type Measurements } from './report';

export type ExportsMeasurements = ExportsMeasured & {
  generatedAt: string;
  command: string;
  durationSeconds: number;
  machine: Measurements['machine'];
};
export type ExportsReport = ExportsMeasurements & { goals: Goal[] };

/** Goals of every format: [id, description, ≥ or ≤, limit, figure, digits of the figure]. */
export const EXPORT_GOALS: [
  string,
  string,
  '≥' | '≤',
  number,
  (f: FormatFigures) => number,
  number,
][] = [
  [
    'parse-aggregate',
    'parse + normalize + aggregate, rows per second on one core',
    '≥',
    50_000,
    (f) => f.parseAggregate.rowsPerSecond,
    0,
  ],
  [
    'writes-per-row',
    'DynamoDB write requests per row (planner + chunk commits + switch)',
    '≤',
    0.01,
    (f) => f.dynamo.writeRequests / 1000,
    5,
  ],
  ['worker-memory', 'peak RSS of one chunk worker, MiB', '≤', 512, (f) => f.oneWorker.maxRssMiB, 0],
];

export const computeExportGoals = (report: ExportsMeasured): Goal[] =>
  EXPORT_FORMATS.flatMap((format) =>
    EXPORT_GOALS.map(([id, description, cmp, limit, of, digits]) => {
      const value = of(report.formats[format]);
      return {
        id: `exports-${format}-${id}`,
        description: `${format}: ${description}`,
        target: `${cmp} ${limit.toLocaleString('en-US')}`,
        measured: num(value, digits),
        met: cmp === '≥' ? value >= limit : value <= limit,
      };
    }),
  );

const count = (value: number): string => value.toLocaleString('en-US');

/** The columns of the per-format table: header and cell. */
const FORMAT_COLUMNS: [string, (f: FormatFigures) => string][] = [
  ['rows', (f) => count(f.rows)],
  ['rejected', (f) => count(f.rowsRejected)],
  ['files', (f) => count(f.files)],
  ['MiB', (f) => num(f.bytes / 2 ** 20, 1)],
  ['tasks', (f) => count(f.tasks)],
  [
    'parse + aggregate, rows/s (one core, local file)',
    (f) => num(f.parseAggregate.rowsPerSecond, 0),
  ],
  ['one worker, rows/s (wall)', (f) => num(f.oneWorker.rowsPerSecond, 0)],
  ['one worker, rows per CPU second', (f) => num(f.oneWorker.rowsPerCpuSecond, 0)],
  ['one worker, peak RSS MiB', (f) => num(f.oneWorker.maxRssMiB, 0)],
  [
    'parallel workers, rows/s (wall)',
    (f) =>
      `${f.parallel.workers}: ${num(f.parallel.rowsPerSecond, 0)} (${ratio(f.parallel.rowsPerSecond, f.oneWorker.rowsPerSecond)})`,
  ],
  ['chunk commits', (f) => count(f.oneWorker.commits)],
  ['S3 requests', (f) => count(f.oneWorker.s3Requests)],
];

/** The columns of the DynamoDB table, per 1,000 rows (for the per-row path: per 1,000 events). */
const DYNAMO_COLUMNS: [string, (f: FormatFigures | StreamFigures) => string][] = [
  ['requests', (f) => num(f.dynamo.requests, 3)],
  ['write requests', (f) => num(f.dynamo.writeRequests, 3)],
  [
    'by operation',
    (f) =>
      Object.entries(f.dynamo.byOperation)
        .filter(([, n]) => n > 0)
        .map(([op, n]) => `${op} ${num(n, 3)}`)
        .join(', '),
  ],
  ['WCU (billed model)', (f) => num(f.dynamo.wcu.billed, 2)],
  ['WCU (reported by DynamoDB Local)', (f) => num(f.dynamo.wcu.reported, 2)],
  ['RCU (billed model)', (f) => num(f.dynamo.rcu.billed, 2)],
  ['on-demand $ / million rows', (f) => num(f.costUsdPerMillionRows.total, 4)],
];

export const renderExportsMarkdown = (report: ExportsReport): string => {
  const { config, stream, scale, machine } = report;
  const perRow = stream.costUsdPerMillionRows.total;
  const lines = [
    `## Billing exports — ${report.generatedAt.slice(0, 10)}`,
    '',
    `A generated FOCUS 1.2 export of ${count(config.rows)} rows per format (${config.files} files; every ${count(config.badRowEvery)}th row bad) in the S3 emulator, ` +
      `planned (Parquet tasks of about ${count(config.parquetRowsPerTask)} rows, row groups of ${count(config.parquetRowGroupRows)}; CSV committed every ${count(config.subChunkRows)} rows) ` +
      'and run by chunk workers (child processes) on DynamoDB Local; every snapshot equals the ground truth exactly (the run fails otherwise).',
    '',
    ...table(
      ['format', ...FORMAT_COLUMNS.map(([header]) => header)],
      EXPORT_FORMATS.map((format) => [
        format,
        ...FORMAT_COLUMNS.map(([, cell]) => cell(report.formats[format])),
      ]),
    ),
    `DynamoDB per 1,000 rows, against the per-row SNS path (${count(stream.events)} new cost events through the stream consumer on the FIFO queue, ${num(stream.eventsPerSecond, 0)} events/s). ` +
      `Cost is DynamoDB only, on-demand list prices (${config.pricing.region}: $${config.pricing.writeRequestUnitUsdPerMillion} per million WRU, $${config.pricing.readRequestUnitUsdPerMillion} per million RRU); S3, SNS, SQS and Lambda are not included.`,
    '',
    ...table(
      ['path', ...DYNAMO_COLUMNS.map(([header]) => header), 'per-row path / this'],
      [
        ...EXPORT_FORMATS.map((format) => {
          const f = report.formats[format];
          return [
            `export ${format}`,
            ...DYNAMO_COLUMNS.map(([, cell]) => cell(f)),
            ratio(perRow, f.costUsdPerMillionRows.total),
          ];
        }),
        ['per-row SNS path', ...DYNAMO_COLUMNS.map(([, cell]) => cell(stream)), ''],
      ],
    ),
    ...(scale
      ? [
          ...table(
            [
              'scale case',
              'switch, s',
              'worker (every task + the switch), s',
              'worker peak RSS MiB',
            ],
            (['first', 'second'] as const).map((which) => [
              which === 'first' ? 'first export' : 'second export (replaces it)',
              num(scale[which].switchSeconds, 1),
              num(scale[which].workerSeconds, 0),
              num(scale[which].workerMaxRssMiB, 0),
            ]),
          ),
          `${count(scale.rows)} rows, ${count(scale.accounts)} accounts, ${count(scale.accountCurrencies)} account-currencies, ${scale.tasks} tasks. ` +
            `The second diff: ${count(scale.diffAccountCurrencies)} account-currencies in ${count(scale.diffPages)} pages. ` +
            `Largest item written: ${count(scale.largestItemBytes)} bytes (${scale.largestItem}); largest transaction: ${count(scale.largestTransactionBytes)} bytes; ` +
            `largest item in the table afterwards: ${count(scale.largestStoredItemBytes)} bytes (DynamoDB's limit: 409,600).`,
          '',
        ]
      : []),
    ...goalsTable(report.goals),
    `Machine: ${machine.nproc} cores (${machine.cpuModel}), ${machine.memory}, Node ${machine.node}. \`${report.command}\`, ${num(report.durationSeconds, 0)} s.`,
  ];
  return `${lines.join('\n')}\n`;
};
