/** The shape of bench/results/latest.json; docs/benchmarks.md documents it, `schema.ts` checks it. */
import type { BundleResult } from '../bundle';
import type { ImplementationName, QueueKind } from '../harness';
import type { KeyPathResult } from '../keypath';
import type { PRICING } from './pricing';

export const REPORT_SCHEMA = 'billing-dedup-bench/1';

/** The order in which every rendering lists the queue kinds. */
export const QUEUES: QueueKind[] = ['standard', 'fifo'];

export interface ImplementationSummary {
  eventsPerSecond: number;
  repetitions: number[];
  events: number;
  requestsPerEvent: number;
  requestsPerEventByOperation: Record<string, number>;
  rcuPerEvent: { reported: number; billed: number };
  /** billed: the model with a cancelled transaction billed like a committed one (upper bound);
   * billedLow: cancelled transactions free (lower bound). */
  wcuPerEvent: { reported: number; billed: number; billedLow: number };
  costUsdPerMillionEvents: { write: number; read: number; total: number };
  failedConditionalWrites: number;
  cancelledTransactions: number;
  redeliveredRecords: number;
  writesPerInvocation: number;
  faultFree: {
    doubleApplied: number;
    lost: number;
    misapplied: number;
    cellsWrong: number;
    unattributed: number;
  };
}

export interface CrashRow {
  queue: QueueKind;
  implementation: ImplementationName;
  mode: 'ack-lost' | 'mid-batch';
  rate: number;
  events: number;
  invocations: number;
  crashes: number;
  doubleApplied: number;
  lost: number;
  misapplied: number;
  unattributed: number;
  cellsWrong: number;
  moneyError: string;
  journalMatchesLedger: boolean;
  overLease: number;
  redriven: number;
}

export interface Goal {
  id: string;
  description: string;
  target: string;
  measured: string;
  met: boolean;
}

export interface Report {
  schema: typeof REPORT_SCHEMA;
  generatedAt: string;
  command: string;
  durationSeconds: number;
  machine: { nproc: number; memory: string; cpuModel: string; node: string; platform: string };
  config: {
    events: number;
    repetitions: number;
    eventsPerRepetition: number;
    consumers: number;
    batchSize: number;
    crashEvents: number;
    crashRates: number[];
    leaseMs: number;
    retryDelayMs: number;
    crashRedeliveryMs: number;
    seed: number;
    workload: {
      duplicateShare: number;
      restatementShare: number;
      poisonShare: number;
      tenants: number;
      accountsPerTenant: number;
    };
    dlq: string;
    feed: string;
    pricing: typeof PRICING;
  };
  throughput: Record<QueueKind, Record<ImplementationName, ImplementationSummary>>;
  crash: CrashRow[];
  keyPath: KeyPathResult;
  bundles: Record<ImplementationName, BundleResult>;
  goals: Goal[];
}

/** A report before its goals are computed from it. */
export type Measurements = Omit<Report, 'goals'>;
