/** Folds raw runs into the figures of the report: one summary per implementation and queue kind,
 * one row per crash run. */
import type { ImplementationName, QueueKind, RunResult } from '../harness';
import { median } from '../median';
import type { CrashRow, ImplementationSummary, WorkloadName } from './document';
import { PRICING } from './pricing';

/** Adds up counts by key, keys sorted. */
export const sumCounts = (counts: readonly Record<string, number>[]): Record<string, number> => {
  const total: Record<string, number> = {};
  for (const count of counts)
    for (const [key, n] of Object.entries(count)) total[key] = (total[key] ?? 0) + n;
  return Object.fromEntries(Object.entries(total).sort(([a], [b]) => a.localeCompare(b)));
};

/** Folds the repetitions of one implementation on one queue kind. */
export const summarize = (runs: RunResult[]): ImplementationSummary => {
  const events = runs.reduce((n, r) => n + r.events, 0);
  const sum = (pick: (r: RunResult) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const byOperation: Record<string, number> = {};
  for (const run of runs)
    for (const [operation, count] of Object.entries(run.requests))
      byOperation[operation] = (byOperation[operation] ?? 0) + count;
  const wcu = {
    reported: sum((r) => r.reportedWcu) / events,
    billed: sum((r) => r.billedWcu) / events,
    billedLow: sum((r) => r.billedWcu - r.cancelledTransactionWcu) / events,
  };
  const rcu = {
    reported: sum((r) => r.reportedRcu) / events,
    billed: sum((r) => r.billedRcu) / events,
  };
  const write = wcu.billed * PRICING.writeRequestUnitUsdPerMillion;
  const read = rcu.billed * PRICING.readRequestUnitUsdPerMillion;
  return {
    eventsPerSecond: median(runs.map((r) => r.eventsPerSecond)),
    repetitions: runs.map((r) => r.eventsPerSecond),
    events,
    requestsPerEvent: sum((r) => r.totalRequests) / events,
    requestsPerEventByOperation: Object.fromEntries(
      Object.entries(byOperation)
        .sort()
        .map(([operation, count]) => [operation, count / events]),
    ),
    rcuPerEvent: rcu,
    wcuPerEvent: wcu,
    costUsdPerMillionEvents: { write, read, total: write + read },
    failedConditionalWrites: sum((r) => r.failedConditionalWrites),
    cancelledTransactions: sum((r) => r.cancelledTransactions),
    contendedTransactions: sum((r) => r.contendedTransactions),
    cancellationReasons: sumCounts(runs.map((r) => r.cancellationReasons)),
    redeliveredRecords: sum((r) => r.receives - r.events),
    cpuMsPerThousandEvents: (1000 * sum((r) => r.handlerCpuMs)) / events,
    writesPerInvocation:
      sum((r) => r.writesPerInvocation * r.invocations) / sum((r) => r.invocations),
    faultFree: {
      doubleApplied: sum((r) => r.correctness.doubleApplied),
      lost: sum((r) => r.correctness.lost),
      misapplied: sum((r) => r.correctness.misapplied),
      cellsWrong: sum((r) => r.correctness.cellsWrong),
      unattributed: sum((r) => r.correctness.unattributed),
    },
  };
};

export const crashRow = (
  run: RunResult,
  workload: WorkloadName,
  mode: CrashRow['mode'],
  rate: number,
): CrashRow => ({
  workload,
  queue: run.queue,
  implementation: run.implementation,
  mode,
  rate,
  events: run.events,
  invocations: run.invocations,
  crashes: run.crashes,
  doubleApplied: run.correctness.doubleApplied,
  lost: run.correctness.lost,
  misapplied: run.correctness.misapplied,
  unattributed: run.correctness.unattributed,
  cellsWrong: run.correctness.cellsWrong,
  moneyError: run.correctness.moneyError,
  journalMatchesLedger: run.correctness.journalMatchesLedger,
  overLease: run.overLease,
  redriven: run.redriven,
});

/** One figure summed over the crash rows, optionally only those of one workload, queue kind and/or
 * implementation. */
export const crashTotal = (
  rows: readonly CrashRow[],
  pick: (row: CrashRow) => number,
  only: { workload?: WorkloadName; queue?: QueueKind; implementation?: ImplementationName } = {},
): number =>
  rows
    .filter(
      (row) =>
        (only.workload === undefined || row.workload === only.workload) &&
        (only.queue === undefined || row.queue === only.queue) &&
        (only.implementation === undefined || row.implementation === only.implementation),
    )
    .reduce((n, row) => n + pick(row), 0);
