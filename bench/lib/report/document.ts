/** The shape of bench/results/latest.json; docs/benchmarks.md documents it, `schema.ts` checks it. */
import type { InitMeasurements } from '../shapes';
import type { ImplementationName, QueueKind } from '../harness';
import type { PRICING } from './pricing';

export const REPORT_SCHEMA = 'billing-dedup-bench/2';

/** The order in which every rendering lists the queue kinds. */
export const QUEUES: QueueKind[] = ['standard', 'fifo'];

/** `default`: 6 tenants × 8 accounts, two months; `hot`: every charge on one account, month and currency. */
export type WorkloadName = 'default' | 'hot';
export const WORKLOADS: WorkloadName[] = ['default', 'hot'];

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
  /** Cancelled by contention alone (TransactionConflict, no condition failed). */
  contendedTransactions: number;
  /** Cancelled transactions by the reasons DynamoDB gave, e.g. `ConditionalCheckFailed@CHARGE`
   * (absent in reports of older versions). */
  cancellationReasons?: Record<string, number>;
  redeliveredRecords: number;
  /** CPU time of the process running the handlers (user + system) per 1,000 events, ms. */
  cpuMsPerThousandEvents: number;
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
  workload: WorkloadName;
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

/** The figures of both implementations on both queue kinds for one workload. */
export type WorkloadFigures = Record<QueueKind, Record<ImplementationName, ImplementationSummary>>;

export interface WorkloadConfig {
  events: number;
  repetitions: number;
  eventsPerRepetition: number;
  consumers: number;
  tenants: number;
  accountsPerTenant: number;
}

export interface Report {
  schema: typeof REPORT_SCHEMA;
  generatedAt: string;
  command: string;
  durationSeconds: number;
  machine: { nproc: number; memory: string; cpuModel: string; node: string; platform: string };
  config: {
    workloads: Record<WorkloadName, WorkloadConfig>;
    batchSize: number;
    crashEvents: number;
    crashRates: number[];
    /** Remaining time of a crash run's invocations (= the Powertools in-progress lease), compressed. */
    leaseMs: number;
    /** Remaining time of a fault-free run's invocations: the function timeout. */
    cleanLeaseMs: number;
    retryDelayMs: number;
    crashRedeliveryMs: number;
    seed: number;
    workload: {
      duplicateShare: number;
      restatementShare: number;
      poisonShare: number;
    };
    dlq: string;
    feed: string;
    pricing: typeof PRICING;
  };
  throughput: Record<WorkloadName, WorkloadFigures>;
  crash: CrashRow[];
  init: InitMeasurements;
  goals: Goal[];
}

/** A report before its goals are computed from it. */
export type Measurements = Omit<Report, 'goals'>;
