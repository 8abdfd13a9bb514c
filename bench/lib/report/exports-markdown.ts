/** bench/results/exports.md: the exports section's tables (prettier formats them later). */
import {
  EXPORT_FORMATS,
  type DynamoPerThousandRows,
  type ExportsReport,
  type FormatFigures,
  type ScaleFigures,
} from './exports-document';
import { formatNumber, formatRatio } from './format';

const row = (out: string[], cells: string[]): void => {
  out.push(`| ${cells.join(' | ')} |`);
};

const count = (value: number): string => value.toLocaleString('en-US');

const formatTable = (report: ExportsReport): string[] => {
  const out: string[] = [];
  const f = report.formats;
  row(out, ['', ...EXPORT_FORMATS]);
  row(out, ['---', ...EXPORT_FORMATS.map(() => '---:')]);
  const metric = (label: string, pick: (figures: FormatFigures) => string) =>
    row(out, [label, ...EXPORT_FORMATS.map((format) => pick(f[format]))]);
  metric('rows (rejected)', (x) => `${count(x.rows)} (${count(x.rowsRejected)})`);
  metric(
    'files, MiB, tasks',
    (x) => `${x.files}, ${formatNumber(x.bytes / 2 ** 20, 1)}, ${x.tasks}`,
  );
  metric('parse + aggregate, rows/s (one core, local file)', (x) =>
    formatNumber(x.parseAggregate.rowsPerSecond, 0),
  );
  metric('one worker, rows/s (wall)', (x) => formatNumber(x.oneWorker.rowsPerSecond, 0));
  metric('one worker, rows per CPU second', (x) => formatNumber(x.oneWorker.rowsPerCpuSecond, 0));
  metric('one worker, peak RSS MiB', (x) => formatNumber(x.oneWorker.maxRssMiB, 0));
  metric(
    `${report.config.workers} workers, rows/s (wall)`,
    (x) =>
      `${formatNumber(x.parallel.rowsPerSecond, 0)} (${formatRatio(x.parallel.rowsPerSecond, x.oneWorker.rowsPerSecond)})`,
  );
  metric('chunk commits', (x) => count(x.oneWorker.commits));
  metric('S3 requests', (x) => count(x.oneWorker.s3Requests));
  return out;
};

const dynamoRows = (
  out: string[],
  label: string,
  pick: (d: DynamoPerThousandRows) => number,
  columns: DynamoPerThousandRows[],
  digits: number,
) => row(out, [label, ...columns.map((d) => formatNumber(pick(d), digits))]);

const comparisonTable = (report: ExportsReport): string[] => {
  const out: string[] = [];
  const columns = [...EXPORT_FORMATS.map((format) => report.formats[format]), report.stream];
  const dynamo = columns.map((c) => c.dynamo);
  row(out, [
    'per 1,000 rows',
    ...EXPORT_FORMATS.map((format) => `export ${format}`),
    'per-row SNS path',
  ]);
  row(out, ['---', ...columns.map(() => '---:')]);
  dynamoRows(out, 'DynamoDB requests', (d) => d.requests, dynamo, 3);
  dynamoRows(out, '  write requests', (d) => d.writeRequests, dynamo, 3);
  const operations = [...new Set(dynamo.flatMap((d) => Object.keys(d.byOperation)))].sort();
  for (const operation of operations)
    dynamoRows(out, `  ${operation}`, (d) => d.byOperation[operation] ?? 0, dynamo, 3);
  dynamoRows(out, 'WCU (billed model)', (d) => d.wcu.billed, dynamo, 2);
  dynamoRows(out, 'WCU (reported by DynamoDB Local)', (d) => d.wcu.reported, dynamo, 2);
  dynamoRows(out, 'RCU (billed model)', (d) => d.rcu.billed, dynamo, 2);
  row(out, [
    'DynamoDB on-demand $ / million rows',
    ...columns.map((c) => formatNumber(c.costUsdPerMillionRows.total, 4)),
  ]);
  row(out, [
    'per-row path / export',
    ...EXPORT_FORMATS.map((format) =>
      formatRatio(
        report.stream.costUsdPerMillionRows.total,
        report.formats[format].costUsdPerMillionRows.total,
      ),
    ),
    '',
  ]);
  return out;
};

const scaleTable = (scale: ScaleFigures): string[] => {
  const out: string[] = [];
  row(out, ['scale case', 'first export', 'second export (replaces it)']);
  row(out, ['---', '---:', '---:']);
  row(out, [
    'switch, s',
    formatNumber(scale.first.switchSeconds, 1),
    formatNumber(scale.second.switchSeconds, 1),
  ]);
  row(out, [
    'worker (every task + the switch), s',
    formatNumber(scale.first.workerSeconds, 0),
    formatNumber(scale.second.workerSeconds, 0),
  ]);
  row(out, [
    'worker peak RSS MiB',
    formatNumber(scale.first.workerMaxRssMiB, 0),
    formatNumber(scale.second.workerMaxRssMiB, 0),
  ]);
  out.push(
    '',
    `${count(scale.rows)} rows, ${count(scale.accounts)} accounts, ${count(scale.accountCurrencies)} account-currencies, ${scale.tasks} tasks. ` +
      `The second diff: ${count(scale.diffAccountCurrencies)} account-currencies in ${count(scale.diffPages)} pages. ` +
      `Largest item written: ${count(scale.largestItemBytes)} bytes (${scale.largestItem}); largest transaction: ${count(scale.largestTransactionBytes)} bytes; ` +
      `largest item in the table afterwards: ${count(scale.largestStoredItemBytes)} bytes (DynamoDB's limit: 409,600).`,
  );
  return out;
};

export const renderExportsMarkdown = (report: ExportsReport): string => {
  const { config } = report;
  const out: string[] = [];
  out.push(`## Billing exports — ${report.generatedAt.slice(0, 10)}`, '');
  out.push(
    `A generated FOCUS 1.2 export of ${count(config.rows)} rows (${config.files} files per format; every ${count(config.badRowEvery)}th row bad), ` +
      `uploaded to the S3 emulator, planned (Parquet tasks of about ${count(config.parquetRowsPerTask)} rows, row groups of ${count(config.parquetRowGroupRows)}; CSV committed every ${count(config.subChunkRows)} rows) ` +
      `and run by chunk workers (child processes) on DynamoDB Local; the snapshot equals the generator's ground truth exactly in every run. ` +
      `The per-row SNS path: ${count(report.stream.events)} new cost events (no duplicates) through the stream consumer on the FIFO queue, ${formatNumber(report.stream.eventsPerSecond, 0)} events/s.`,
    '',
  );
  out.push(...formatTable(report), '');
  out.push(...comparisonTable(report), '');
  if (report.scale) out.push(...scaleTable(report.scale), '');
  out.push(
    `Cost is DynamoDB only, on-demand list prices (${report.config.pricing.region}: $${report.config.pricing.writeRequestUnitUsdPerMillion} per million WRU, $${report.config.pricing.readRequestUnitUsdPerMillion} per million RRU); S3, SNS, SQS and Lambda are not included.`,
    '',
  );
  row(out, ['goal', 'target', 'measured', 'met']);
  row(out, ['---', '---:', '---:', ':---:']);
  for (const goal of report.goals)
    row(out, [goal.description, goal.target, goal.measured, goal.met ? 'yes' : 'no']);
  out.push(
    '',
    `Machine: ${report.machine.nproc} cores (${report.machine.cpuModel}), ${report.machine.memory}, Node ${report.machine.node}. \`${report.command}\`, ${formatNumber(report.durationSeconds, 0)} s.`,
    '',
  );
  return out.join('\n');
};
