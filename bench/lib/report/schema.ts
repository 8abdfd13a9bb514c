/** Checks a parsed latest.json against the documented shape (docs/benchmarks.md). */
import { QUEUES, REPORT_SCHEMA, WORKLOADS } from './document';

type Expected = 'number' | 'string' | 'boolean' | 'object' | 'array';

const at = (object: unknown, keyPath: string): unknown =>
  keyPath
    .split('.')
    .reduce<unknown>(
      (o, key) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined),
      object,
    );

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const CRASH_NUMBERS = [
  'rate',
  'events',
  'invocations',
  'crashes',
  'doubleApplied',
  'lost',
  'misapplied',
  'unattributed',
  'cellsWrong',
];
const CRASH_STRINGS = ['workload', 'queue', 'implementation', 'mode', 'moneyError'];

const crashRowProblems = (row: unknown, index: number): string[] => {
  if (!isRecord(row)) return [`crash[${index}]: expected object`];
  return [
    ...CRASH_NUMBERS.filter((key) => typeof row[key] !== 'number').map(
      (key) => `crash[${index}].${key}: expected number`,
    ),
    ...CRASH_STRINGS.filter((key) => typeof row[key] !== 'string').map(
      (key) => `crash[${index}].${key}: expected string`,
    ),
  ];
};

const goalProblems = (goal: unknown, index: number): string[] =>
  isRecord(goal) &&
  typeof goal.id === 'string' &&
  typeof goal.measured === 'string' &&
  typeof goal.met === 'boolean'
    ? []
    : [`goals[${index}]: expected { id, description, target, measured, met }`];

/** The problems found, one line each naming the key path; empty when the shape is right. */
export const reportProblems = (value: unknown): string[] => {
  const problems: string[] = [];
  const expect = (keyPath: string, type: Expected) => {
    const found = at(value, keyPath);
    const ok = type === 'array' ? Array.isArray(found) : typeof found === type && found !== null;
    if (!ok) problems.push(`${keyPath}: expected ${type}`);
  };
  const each = (keyPath: string): unknown[] => {
    const found = at(value, keyPath);
    return Array.isArray(found) ? found : [];
  };
  if (at(value, 'schema') !== REPORT_SCHEMA) problems.push(`schema: expected ${REPORT_SCHEMA}`);
  expect('generatedAt', 'string');
  expect('command', 'string');
  expect('durationSeconds', 'number');
  for (const key of ['nproc']) expect(`machine.${key}`, 'number');
  for (const key of ['memory', 'cpuModel', 'node', 'platform']) expect(`machine.${key}`, 'string');
  for (const workload of WORKLOADS)
    for (const key of [
      'events',
      'repetitions',
      'eventsPerRepetition',
      'consumers',
      'tenants',
      'accountsPerTenant',
    ])
      expect(`config.workloads.${workload}.${key}`, 'number');
  for (const key of ['batchSize', 'crashEvents', 'leaseMs']) expect(`config.${key}`, 'number');
  expect('config.crashRates', 'array');
  expect('config.pricing.writeRequestUnitUsdPerMillion', 'number');
  expect('config.pricing.readRequestUnitUsdPerMillion', 'number');
  expect('config.pricing.source', 'string');
  for (const workload of WORKLOADS)
    for (const queue of QUEUES)
      for (const implementation of ['ours', 'baseline']) {
        const base = `throughput.${workload}.${queue}.${implementation}`;
        for (const key of [
          'eventsPerSecond',
          'events',
          'requestsPerEvent',
          'failedConditionalWrites',
          'cancelledTransactions',
          'contendedTransactions',
          'cpuMsPerThousandEvents',
        ])
          expect(`${base}.${key}`, 'number');
        expect(`${base}.repetitions`, 'array');
        expect(`${base}.requestsPerEventByOperation`, 'object');
        for (const key of ['reported', 'billed', 'billedLow'])
          expect(`${base}.wcuPerEvent.${key}`, 'number');
        for (const key of ['reported', 'billed']) expect(`${base}.rcuPerEvent.${key}`, 'number');
        for (const key of ['write', 'read', 'total'])
          expect(`${base}.costUsdPerMillionEvents.${key}`, 'number');
        for (const key of ['doubleApplied', 'lost', 'misapplied', 'cellsWrong', 'unattributed'])
          expect(`${base}.faultFree.${key}`, 'number');
      }
  expect('crash', 'array');
  problems.push(...each('crash').flatMap(crashRowProblems));
  for (const key of ['node', 'runtime', 'nodeOptions', 'deployed.format', 'deployed.sdk'])
    expect(`init.${key}`, 'string');
  expect('init.samples', 'number');
  for (const key of ['bytes', 'initMs', 'initCpuMs']) expect(`init.bareClient.${key}`, 'number');
  for (const implementation of ['ours', 'baseline']) {
    expect(`init.handlers.${implementation}.shapes`, 'array');
    each(`init.handlers.${implementation}.shapes`).forEach((shape, index) => {
      for (const key of ['bytes', 'initMs', 'initCpuMs'])
        if (typeof at(shape, key) !== 'number')
          problems.push(`init.handlers.${implementation}.shapes[${index}].${key}: expected number`);
    });
  }
  expect('goals', 'array');
  problems.push(...each('goals').flatMap(goalProblems));
  return problems;
};
