/** A small hand-built bench report with round figures, so that tests can assert exact strings. */
import type { RunResult } from '../../../bench/lib/harness';
import {
  computeGoals,
  PRICING,
  type CrashRow,
  type Measurements,
  type Report,
  type Summary,
} from '../../../bench/lib/report';
import type { HandlerBundles } from '../../../bench/lib/shapes';

export const summaryOf = (overrides: Partial<Summary> = {}): Summary => ({
  eventsPerSecond: 1000,
  repetitions: [990, 1000, 1010],
  events: 2000,
  requestsPerEvent: 2,
  requestsPerEventByOperation: { PutItem: 1, UpdateItem: 1 },
  rcuPerEvent: { reported: 0.25, billed: 0.5 },
  wcuPerEvent: { reported: 2, billed: 3, billedLow: 2.5 },
  costUsdPerMillionEvents: { write: 1.875, read: 0.0625, total: 1.9375 },
  failedConditionalWrites: 4,
  cancelledTransactions: 0,
  contendedTransactions: 0,
  cancellationReasons: {},
  redeliveredRecords: 10,
  cpuMsPerThousandEvents: 800,
  writesPerInvocation: 12,
  faultFree: { doubleApplied: 0, lost: 0, misapplied: 0, cellsWrong: 0, unattributed: 0 },
  ...overrides,
});

export const crashRowOf = (overrides: Partial<CrashRow> = {}): CrashRow => ({
  workload: 'default',
  queue: 'standard',
  implementation: 'ours',
  mode: 'ack-lost',
  rate: 0.05,
  events: 1000,
  invocations: 100,
  crashes: 5,
  doubleApplied: 0,
  lost: 0,
  misapplied: 0,
  unattributed: 0,
  cellsWrong: 0,
  moneyError: '0',
  journalMatchesLedger: true,
  overLease: 0,
  redriven: 0,
  ...overrides,
});

/** Four shapes per handler; the deployed one (CJS, SDK bundled) loads in `deployedMs`. */
const handlerBundles = (bytes: number, deployedMs: number): HandlerBundles => ({
  entry: 'handler.ts',
  shapes: [
    { format: 'esm', sdk: 'external', bytes, initMs: deployedMs * 4, initCpuMs: deployedMs * 3 },
    {
      format: 'esm',
      sdk: 'bundled',
      bytes: bytes * 4,
      initMs: deployedMs * 2,
      initCpuMs: deployedMs,
    },
    { format: 'cjs', sdk: 'external', bytes, initMs: deployedMs * 3, initCpuMs: deployedMs * 2 },
    {
      format: 'cjs',
      sdk: 'bundled',
      bytes: bytes * 4,
      initMs: deployedMs,
      initCpuMs: deployedMs / 2,
    },
  ],
  topInputs: [],
});

const oursFaster = (eventsPerSecond: number) =>
  summaryOf({
    eventsPerSecond,
    requestsPerEvent: 1,
    requestsPerEventByOperation: { BatchGetItem: 0.1, TransactWriteItems: 0.9 },
    wcuPerEvent: { reported: 1, billed: 3, billedLow: 2 },
    cpuMsPerThousandEvents: 400,
  });

/** Ours is twice as fast (three times on the hot account), with half the requests and CPU, on both
 * queue kinds; every goal is met. */
export const measurements = (): Measurements => ({
  schema: 'billing-dedup-bench/2',
  generatedAt: '2026-03-04T05:06:07.000Z',
  command: 'npm run bench',
  durationSeconds: 61.4,
  machine: { nproc: 2, memory: '8 GiB', cpuModel: 'Test CPU', node: 'v20.0.0', platform: 'linux' },
  config: {
    workloads: {
      default: {
        events: 2000,
        repetitions: 3,
        eventsPerRepetition: 667,
        consumers: 4,
        tenants: 3,
        accountsPerTenant: 2,
      },
      hot: {
        events: 1000,
        repetitions: 3,
        eventsPerRepetition: 333,
        consumers: 16,
        tenants: 1,
        accountsPerTenant: 1,
      },
    },
    batchSize: 10,
    crashEvents: 1000,
    crashRates: [0.05],
    leaseMs: 1000,
    cleanLeaseMs: 30000,
    retryDelayMs: 50,
    crashRedeliveryMs: 1100,
    seed: 7,
    workload: {
      duplicateShare: 0.3,
      restatementShare: 0.1,
      poisonShare: 0.01,
    },
    dlq: 'in memory',
    feed: 'in-memory queue model',
    pricing: PRICING,
  },
  throughput: {
    default: {
      standard: { ours: oursFaster(2000), baseline: summaryOf() },
      fifo: { ours: oursFaster(2000), baseline: summaryOf() },
    },
    hot: {
      standard: { ours: oursFaster(3000), baseline: summaryOf() },
      fifo: { ours: oursFaster(3000), baseline: summaryOf() },
    },
  },
  crash: [
    crashRowOf({ crashes: 5 }),
    crashRowOf({ implementation: 'baseline', crashes: 6, doubleApplied: 3, moneyError: '12.50' }),
    crashRowOf({ queue: 'fifo', mode: 'mid-batch', crashes: 2 }),
  ],
  init: {
    node: 'v24.0.0',
    runtime: 'nodejs24.x',
    deployed: { format: 'cjs', sdk: 'bundled' },
    nodeOptions: '--enable-source-maps',
    samples: 3,
    handlers: { ours: handlerBundles(100_000, 20), baseline: handlerBundles(130_000, 30) },
    bareClient: { bytes: 90_000, initMs: 15, initCpuMs: 8 },
  },
});

export const reportOf = (base: Measurements = measurements()): Report => ({
  ...base,
  goals: computeGoals(base),
});

/** One harness run; the figures are chosen so that per-event divisions are exact in binary. */
export const runResultOf = (overrides: Partial<RunResult> = {}): RunResult => ({
  implementation: 'ours',
  queue: 'standard',
  events: 100,
  wallMs: 50,
  eventsPerSecond: 2000,
  invocations: 10,
  receives: 104,
  crashes: 0,
  overLease: 0,
  redriven: 0,
  dlqSends: 1,
  requests: { TransactWriteItems: 80, BatchGetItem: 10 },
  totalRequests: 90,
  reportedRcu: 25,
  reportedWcu: 150,
  billedRcu: 50,
  billedWcu: 200,
  cancelledTransactionWcu: 0,
  failedConditionalWrites: 0,
  cancelledTransactions: 0,
  contendedTransactions: 0,
  cancellationReasons: {},
  handlerCpuMs: 40,
  writesPerInvocation: 8,
  correctness: {
    doubleApplied: 0,
    lost: 0,
    misapplied: 0,
    cellsWrong: 0,
    unattributed: 0,
    moneyError: '0',
    journalMatchesLedger: true,
  },
  ...overrides,
});
