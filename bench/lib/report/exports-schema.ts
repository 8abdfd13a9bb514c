/** Checks a parsed bench/results/exports.json against the documented shape: one problem per line. */
import { EXPORT_FORMATS, EXPORTS_REPORT_SCHEMA } from './exports-document';

const at = (object: unknown, keyPath: string): unknown =>
  keyPath
    .split('.')
    .reduce<unknown>(
      (o, key) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined),
      object,
    );

const DYNAMO_NUMBERS = [
  'requests',
  'writeRequests',
  'wcu.reported',
  'wcu.billed',
  'rcu.reported',
  'rcu.billed',
];
const FORMAT_NUMBERS = [
  'rows',
  'rowsAccepted',
  'rowsRejected',
  'files',
  'bytes',
  'tasks',
  'parseAggregate.rowsPerSecond',
  'parseAggregate.rowsPerCpuSecond',
  'oneWorker.seconds',
  'oneWorker.rowsPerSecond',
  'oneWorker.rowsPerCpuSecond',
  'oneWorker.maxRssMiB',
  'oneWorker.commits',
  'oneWorker.s3Requests',
  'parallel.workers',
  'parallel.rowsPerSecond',
  'costUsdPerMillionRows.total',
  ...DYNAMO_NUMBERS.map((key) => `dynamo.${key}`),
];
const STREAM_NUMBERS = [
  'events',
  'eventsPerSecond',
  'costUsdPerMillionRows.total',
  ...DYNAMO_NUMBERS.map((key) => `dynamo.${key}`),
];

const SCALE_NUMBERS = [
  'rows',
  'accountCurrencies',
  'first.switchSeconds',
  'first.workerMaxRssMiB',
  'second.switchSeconds',
  'second.workerMaxRssMiB',
  'diffAccountCurrencies',
  'diffPages',
  'largestItemBytes',
  'largestTransactionBytes',
  'largestStoredItemBytes',
];

/** The problems found, one line each naming the key path; empty when the shape is right. Never throws. */
export const exportsReportProblems = (value: unknown): string[] => {
  const problems: string[] = [];
  const expect = (keyPath: string, type: 'number' | 'string' | 'boolean' | 'object' | 'array') => {
    const found = at(value, keyPath);
    const ok = type === 'array' ? Array.isArray(found) : typeof found === type && found !== null;
    if (!ok) problems.push(`${keyPath}: expected ${type}`);
  };
  if (at(value, 'schema') !== EXPORTS_REPORT_SCHEMA)
    problems.push(`schema: expected ${JSON.stringify(EXPORTS_REPORT_SCHEMA)}`);
  ['generatedAt', 'command'].forEach((key) => expect(key, 'string'));
  ['durationSeconds', 'config.rows', 'config.workers', 'config.streamEvents'].forEach((key) =>
    expect(key, 'number'),
  );
  expect('machine', 'object');
  for (const format of EXPORT_FORMATS) {
    const base = `formats.${format}`;
    // `csv.gz` contains a dot: read the format's object by its key, then the paths below it.
    const figures = (at(value, 'formats') as Record<string, unknown> | undefined)?.[format];
    if (typeof figures !== 'object' || figures === null) {
      problems.push(`${base}: expected object`);
      continue;
    }
    for (const key of FORMAT_NUMBERS)
      if (typeof at(figures, key) !== 'number') problems.push(`${base}.${key}: expected number`);
    if (at(figures, 'exact') !== true) problems.push(`${base}.exact: expected true`);
  }
  STREAM_NUMBERS.forEach((key) => expect(`stream.${key}`, 'number'));
  if (at(value, 'scale') !== undefined) {
    SCALE_NUMBERS.forEach((key) => expect(`scale.${key}`, 'number'));
    if (at(value, 'scale.exact') !== true) problems.push('scale.exact: expected true');
  }
  expect('goals', 'array');
  const goals = at(value, 'goals');
  (Array.isArray(goals) ? goals : []).forEach((goal: unknown, index) => {
    const g = goal as Record<string, unknown> | null;
    if (
      !g ||
      typeof g !== 'object' ||
      typeof g.id !== 'string' ||
      typeof g.measured !== 'string' ||
      typeof g.met !== 'boolean'
    )
      problems.push(`goals[${index}]: expected { id, description, target, measured, met }`);
  });
  return problems;
};
