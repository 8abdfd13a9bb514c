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

/**
 * The goals, as plain data: ours against the baseline in the same run. Throughput: events/s of ours at
 * least this many times the baseline's; write units and cost: at most this many times the baseline's.
 */
type Cell = `${WorkloadName}-${QueueKind}`;
export const THROUGHPUT_TARGET: Record<Cell, number> = {
  'default-standard': 2,
  'default-fifo': 2,
  'hot-standard': 2,
  'hot-fifo': 3,
};
export const WCU_TARGET: Partial<Record<Cell, number>> = {
  'default-standard': 1,
  'default-fifo': 1,
  'hot-standard': 1,
};
export const COST_TARGET: Partial<Record<Cell, number>> = { 'default-standard': 1 };
/** Figures kept as goals on the default workload: DynamoDB requests per event and handler CPU. */
export const REQUESTS_TARGET = 0.5;
export const CPU_TARGET = 1;
/** Module init of the deployed bundle minus the bare DynamoDB client's, ms. */
export const INIT_OVERHEAD_TARGET_MS = 10;

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
  const cell: Cell = `${workload}-${queue}`;
  const throughput = THROUGHPUT_TARGET[cell];
  goals.push({
    id: `throughput-${cell}`,
    description: `${at}: events/s ≥ ${throughput}× the baseline`,
    target: `≥ ${formatNumber(throughput)}×`,
    measured: `${formatNumber(o.eventsPerSecond, 0)} vs ${formatNumber(b.eventsPerSecond, 0)} events/s = ${formatRatio(o.eventsPerSecond, b.eventsPerSecond)}`,
    met: o.eventsPerSecond >= throughput * b.eventsPerSecond,
  });
  if (workload === 'default')
    goals.push({
      id: `requests-${cell}`,
      description: `${at}: DynamoDB requests per event ≤ ${REQUESTS_TARGET}× the baseline`,
      target: `≤ ${formatNumber(REQUESTS_TARGET, 2)}×`,
      measured: `${formatNumber(o.requestsPerEvent, 3)} vs ${formatNumber(b.requestsPerEvent, 3)} = ${formatRatio(o.requestsPerEvent, b.requestsPerEvent)}`,
      met: o.requestsPerEvent <= REQUESTS_TARGET * b.requestsPerEvent,
    });
  const wcu = WCU_TARGET[cell];
  if (wcu !== undefined)
    goals.push({
      id: `wcu-${cell}`,
      description: `${at}: billed write units per event ≤ ${wcu}× the baseline's`,
      target: `≤ ${formatNumber(wcu, 2)}×`,
      measured: `${formatNumber(o.wcuPerEvent.billed, 3)} vs ${formatNumber(b.wcuPerEvent.billed, 3)} WCU/event = ${formatRatio(o.wcuPerEvent.billed, b.wcuPerEvent.billed)} (lower bound ${formatRatio(o.wcuPerEvent.billedLow, b.wcuPerEvent.billedLow)})`,
      met: o.wcuPerEvent.billed <= wcu * b.wcuPerEvent.billed,
    });
  const cost = COST_TARGET[cell];
  if (cost !== undefined)
    goals.push({
      id: `cost-${cell}`,
      description: `${at}: on-demand $ per million events ≤ ${cost}× the baseline's`,
      target: `≤ ${formatNumber(cost, 2)}×`,
      measured: `$${formatNumber(o.costUsdPerMillionEvents.total, 3)} vs $${formatNumber(b.costUsdPerMillionEvents.total, 3)} = ${formatRatio(o.costUsdPerMillionEvents.total, b.costUsdPerMillionEvents.total)}`,
      met: o.costUsdPerMillionEvents.total <= cost * b.costUsdPerMillionEvents.total,
    });
  if (workload === 'default')
    goals.push({
      id: `cpu-${cell}`,
      description: `${at}: handler CPU ms per 1,000 events ≤ the baseline's`,
      target: `≤ ${formatNumber(CPU_TARGET, 2)}×`,
      measured: `${formatNumber(o.cpuMsPerThousandEvents, 0)} vs ${formatNumber(b.cpuMsPerThousandEvents, 0)} ms = ${formatRatio(o.cpuMsPerThousandEvents, b.cpuMsPerThousandEvents)}`,
      met: o.cpuMsPerThousandEvents <= CPU_TARGET * b.cpuMsPerThousandEvents,
    });
  return goals;
};

const initOverheadGoal = (report: Measurements): Goal => {
  const { init } = report;
  const deployed = deployedOf(init, 'ours');
  const overhead = deployed.initMs - init.bareClient.initMs;
  return {
    id: 'init-overhead',
    description: `module init minus the bare DynamoDB client's, deployed shape (${shapeName(init.deployed)}; ${init.runtime}), medians of cold loads ≤ ${INIT_OVERHEAD_TARGET_MS} ms`,
    target: `≤ ${INIT_OVERHEAD_TARGET_MS} ms`,
    measured: `${formatNumber(overhead, 1)} ms: ${formatNumber(deployed.initMs, 1)} − ${formatNumber(init.bareClient.initMs, 1)} ms wall (CPU ${formatNumber(deployed.initCpuMs - init.bareClient.initCpuMs, 1)} ms; Node ${init.node})`,
    met: overhead <= INIT_OVERHEAD_TARGET_MS,
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
  initOverheadGoal(report),
];
