import type {
  Goal,
  ImplementationSummary,
  Measurements,
  WorkloadName,
} from '../../bench/lib/report/document';
import { computeGoals } from '../../bench/lib/report/goals';
import { crashRowOf, measurements, summaryOf } from './support/report-fixture';

const goal = (report: Measurements, id: string): Goal => {
  const found = computeGoals(report).find((g) => g.id === id);
  if (!found) throw new Error(`no goal ${id}`);
  return found;
};

/** The fixture with figures of ours on the standard queue of one workload replaced. */
const withOurs = (
  overrides: Partial<ImplementationSummary>,
  workload: WorkloadName = 'default',
): Measurements => {
  const report = measurements();
  const figures = report.throughput[workload].standard;
  figures.ours = { ...figures.ours, ...overrides };
  return report;
};

describe('bench report: goals', () => {
  it('lists every goal in a stable order, all met by the fixture', () => {
    const goals = computeGoals(measurements());
    expect(goals.map((g) => g.id)).toEqual([
      'crash-correctness',
      'throughput-default-standard',
      'requests-default-standard',
      'wcu-default-standard',
      'cpu-default-standard',
      'throughput-default-fifo',
      'requests-default-fifo',
      'wcu-default-fifo',
      'cpu-default-fifo',
      'throughput-hot-standard',
      'cancellations-hot-standard',
      'throughput-hot-fifo',
      'cancellations-hot-fifo',
      'init-time',
    ]);
    expect(goals.filter((g) => !g.met)).toEqual([]);
  });

  it('says what was measured, with both sides', () => {
    const report = measurements();
    expect(goal(report, 'crash-correctness').measured).toBe(
      'ours 0 double / 0 lost (7 crashes); baseline 3 double / 0 lost (6 crashes)',
    );
    expect(goal(report, 'throughput-default-standard').measured).toBe(
      '2,000 vs 1,000 events/s = 2.00×',
    );
    expect(goal(report, 'throughput-hot-fifo').measured).toBe('3,000 vs 1,000 events/s = 3.00×');
    expect(goal(report, 'requests-default-fifo').measured).toBe('1.000 vs 2.000 = 0.50×');
    expect(goal(report, 'wcu-default-standard').measured).toBe(
      '3.000 vs 3.000 WCU/event = 1.00× (lower bound 0.80×)',
    );
    expect(goal(report, 'cpu-default-standard').measured).toBe('400 vs 800 ms = 0.50×');
    expect(goal(report, 'cancellations-hot-standard').measured).toBe('0.0 (contention only: 0.0)');
    expect(goal(report, 'init-time').description).toBe(
      'module init, deployed shape (CJS, SDK bundled; nodejs24.x), median of cold loads ≤ 50 ms',
    );
    expect(goal(report, 'init-time').measured).toBe('20.0 ms wall, 10.0 ms CPU (Node v24.0.0)');
  });

  it('crash correctness: any wrong effect of ours fails it, on either workload; the baseline never does', () => {
    for (const wrong of ['doubleApplied', 'lost', 'misapplied', 'cellsWrong', 'unattributed']) {
      const report = measurements();
      report.crash.push(crashRowOf({ workload: 'hot', queue: 'fifo', [wrong]: 1 }));
      expect([wrong, goal(report, 'crash-correctness').met]).toEqual([wrong, false]);
    }
    const report = measurements();
    report.crash.push(crashRowOf({ implementation: 'baseline', lost: 9, misapplied: 9 }));
    expect(goal(report, 'crash-correctness').met).toBe(true);
  });

  it('crash correctness is not met by runs where nothing crashed, or no runs at all', () => {
    const calm = measurements();
    calm.crash = calm.crash.map((row) => ({ ...row, crashes: 0 }));
    expect(goal(calm, 'crash-correctness').met).toBe(false);
    const none = measurements();
    none.crash = [];
    expect(goal(none, 'crash-correctness').met).toBe(false);
  });

  it('throughput: at least 2× the baseline on the default workload, 3× on the hot account', () => {
    const met = (eventsPerSecond: number, workload: WorkloadName) =>
      goal(withOurs({ eventsPerSecond }, workload), `throughput-${workload}-standard`).met;
    expect([met(2000, 'default'), met(1999, 'default')]).toEqual([true, false]);
    expect([met(3000, 'hot'), met(2999, 'hot')]).toEqual([true, false]);
  });

  it('hot account: at most 5 cancelled transactions per 1,000 events, whatever the cause', () => {
    const met = (cancelledTransactions: number) =>
      goal(withOurs({ cancelledTransactions, events: 2000 }, 'hot'), 'cancellations-hot-standard');
    expect(met(10).met).toBe(true);
    expect(met(11).met).toBe(false);
    const contended = goal(
      withOurs({ cancelledTransactions: 11, contendedTransactions: 4, events: 2000 }, 'hot'),
      'cancellations-hot-standard',
    );
    expect(contended.measured).toBe('5.5 (contention only: 2.0)');
  });

  it('requests: at most half of the baseline', () => {
    expect(goal(withOurs({ requestsPerEvent: 1 }), 'requests-default-standard').met).toBe(true);
    expect(goal(withOurs({ requestsPerEvent: 1.001 }), 'requests-default-standard').met).toBe(
      false,
    );
  });

  it('write units: billed model at most the baseline', () => {
    const wcu = (billed: number) => ({ reported: 1, billed, billedLow: 1 });
    expect(goal(withOurs({ wcuPerEvent: wcu(3) }), 'wcu-default-standard').met).toBe(true);
    expect(goal(withOurs({ wcuPerEvent: wcu(3.001) }), 'wcu-default-standard').met).toBe(false);
  });

  it('handler CPU: at most the baseline per 1,000 events', () => {
    const met = (cpuMsPerThousandEvents: number) =>
      goal(withOurs({ cpuMsPerThousandEvents }), 'cpu-default-standard').met;
    expect([met(800), met(800.5)]).toEqual([true, false]);
  });

  it('a zero baseline gives n/a ratios instead of Infinity', () => {
    const report = measurements();
    report.throughput.default.fifo.baseline = summaryOf({ eventsPerSecond: 0 });
    expect(goal(report, 'throughput-default-fifo').measured).toBe('2,000 vs 0 events/s = n/a');
  });

  it('init time: the deployed shape of ours, wall-clock median, at most 50 ms', () => {
    const at = (initMs: number, deployed = measurements().init.deployed) => {
      const report = measurements();
      report.init.deployed = deployed;
      const shape = report.init.handlers.ours.shapes.find(
        (s) => s.format === deployed.format && s.sdk === deployed.sdk,
      );
      if (shape) shape.initMs = initMs;
      return goal(report, 'init-time').met;
    };
    expect([at(50), at(50.1)]).toEqual([true, false]);
    // Another deployed shape is judged on its own figure (ESM external loads in 4 × 20 ms here).
    const report = measurements();
    report.init.deployed = { format: 'esm', sdk: 'external' };
    expect(goal(report, 'init-time').measured).toBe('80.0 ms wall, 60.0 ms CPU (Node v24.0.0)');
    expect(goal(report, 'init-time').met).toBe(false);
  });
});
