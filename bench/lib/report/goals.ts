/** The goals of the benchmark, computed from the measurements, never written by hand. */
import { deployedOf, shapeName } from '../shapes';
import type { ImplementationName, QueueKind } from '../harness';
import {
  QUEUES,
  type CrashRow,
  type Goal,
  type ImplementationSummary,
  type Measurements,
  type WorkloadName,
} from './document';
import { formatNumber, formatRatio } from './format';
import { crashTotal } from './summary';

/** Events/s of ours at least this many times the baseline's, per workload. */
export const THROUGHPUT_TARGET: Record<WorkloadName, number> = { default: 2, hot: 3 };
/** Transaction cancellations per 1,000 events on the hot account, at most. */
export const HOT_CANCELLATIONS_TARGET = 5;
export const INIT_TARGET_MS = 50;

export const perThousand = (count: number, events: number): number =>
  events > 0 ? (1000 * count) / events : 0;

const crashGoal = (report: Measurements): Goal => {
  const total = (implementation: ImplementationName, pick: (row: CrashRow) => number) =>
    crashTotal(report.crash, pick, { implementation });
  const oursWrong = total(
    'ours',
    (r) => r.doubleApplied + r.lost + r.misapplied + r.cellsWrong + r.unattributed,
  );
  return {
    id: 'crash-correctness',
    description:
      'ours: 0 double-applied and 0 lost charges under crash injection (all crash runs, both workloads)',
    target: '0 / 0',
    measured: `ours ${total('ours', (r) => r.doubleApplied)} double / ${total('ours', (r) => r.lost)} lost (${total('ours', (r) => r.crashes)} crashes); baseline ${total('baseline', (r) => r.doubleApplied)} double / ${total('baseline', (r) => r.lost)} lost (${total('baseline', (r) => r.crashes)} crashes)`,
    met: oursWrong === 0 && total('ours', (r) => r.crashes) > 0,
  };
};

const workloadGoals = (
  workload: WorkloadName,
  queue: QueueKind,
  o: ImplementationSummary,
  b: ImplementationSummary,
): Goal[] => {
  const goals: Goal[] = [];
  const at = `${workload}, ${queue}`;
  const target = THROUGHPUT_TARGET[workload];
  goals.push({
    id: `throughput-${workload}-${queue}`,
    description: `${at}: events/s ≥ ${target}× the baseline`,
    target: `≥ ${formatNumber(target)}×`,
    measured: `${formatNumber(o.eventsPerSecond, 0)} vs ${formatNumber(b.eventsPerSecond, 0)} events/s = ${formatRatio(o.eventsPerSecond, b.eventsPerSecond)}`,
    met: o.eventsPerSecond >= target * b.eventsPerSecond,
  });
  if (workload === 'hot') {
    const cancelled = perThousand(o.cancelledTransactions, o.events);
    goals.push({
      id: `cancellations-${workload}-${queue}`,
      description: `${at}: ours, transaction cancellations per 1,000 events ≤ ${HOT_CANCELLATIONS_TARGET}`,
      target: `≤ ${HOT_CANCELLATIONS_TARGET}`,
      measured: `${formatNumber(cancelled, 1)} (contention only: ${formatNumber(perThousand(o.contendedTransactions, o.events), 1)})`,
      met: cancelled <= HOT_CANCELLATIONS_TARGET,
    });
    return goals;
  }
  goals.push({
    id: `requests-${workload}-${queue}`,
    description: `${at}: DynamoDB requests per event ≤ 0.5× the baseline`,
    target: '≤ 0.50×',
    measured: `${formatNumber(o.requestsPerEvent, 3)} vs ${formatNumber(b.requestsPerEvent, 3)} = ${formatRatio(o.requestsPerEvent, b.requestsPerEvent)}`,
    met: o.requestsPerEvent <= 0.5 * b.requestsPerEvent,
  });
  goals.push({
    id: `wcu-${workload}-${queue}`,
    description: `${at}: billed write units per event ≤ the baseline's`,
    target: '≤ 1.00×',
    measured: `${formatNumber(o.wcuPerEvent.billed, 3)} vs ${formatNumber(b.wcuPerEvent.billed, 3)} WCU/event = ${formatRatio(o.wcuPerEvent.billed, b.wcuPerEvent.billed)} (lower bound ${formatRatio(o.wcuPerEvent.billedLow, b.wcuPerEvent.billedLow)})`,
    met: o.wcuPerEvent.billed <= b.wcuPerEvent.billed,
  });
  goals.push({
    id: `cpu-${workload}-${queue}`,
    description: `${at}: handler CPU ms per 1,000 events ≤ the baseline's`,
    target: '≤ 1.00×',
    measured: `${formatNumber(o.cpuMsPerThousandEvents, 0)} vs ${formatNumber(b.cpuMsPerThousandEvents, 0)} ms = ${formatRatio(o.cpuMsPerThousandEvents, b.cpuMsPerThousandEvents)}`,
    met: o.cpuMsPerThousandEvents <= b.cpuMsPerThousandEvents,
  });
  return goals;
};

const initGoal = (report: Measurements): Goal => {
  const { init } = report;
  const deployed = deployedOf(init, 'ours');
  return {
    id: 'init-time',
    description: `module init, deployed shape (${shapeName(init.deployed)}; ${init.runtime}), median of cold loads ≤ ${INIT_TARGET_MS} ms`,
    target: `≤ ${INIT_TARGET_MS} ms`,
    measured: `${formatNumber(deployed.initMs, 1)} ms wall, ${formatNumber(deployed.initCpuMs, 1)} ms CPU (Node ${init.node})`,
    met: deployed.initMs <= INIT_TARGET_MS,
  };
};

export const computeGoals = (report: Measurements): Goal[] => [
  crashGoal(report),
  ...(Object.keys(report.throughput) as WorkloadName[]).flatMap((workload) =>
    QUEUES.flatMap((queue) =>
      workloadGoals(
        workload,
        queue,
        report.throughput[workload][queue].ours,
        report.throughput[workload][queue].baseline,
      ),
    ),
  ),
  initGoal(report),
];
