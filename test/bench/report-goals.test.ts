import {
  computeGoals,
  type Goal,
  type Measurements,
  type Summary,
  type WorkloadName,
} from '../../bench/lib/report';
import { crashRowOf, measurements, summaryOf } from './support/report-fixture';

const goal = (report: Measurements, id: string): Goal => {
  const found = computeGoals(report).find((g) => g.id === id);
  if (!found) throw new Error(`no goal ${id}`);
  return found;
};

/** The fixture with figures of ours on the standard queue of one workload replaced. */
const withOurs = (
  overrides: Partial<Summary>,
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
      'cost-default-standard',
      'cpu-default-standard',
      'throughput-default-fifo',
      'requests-default-fifo',
      'wcu-default-fifo',
      'cpu-default-fifo',
      'throughput-hot-standard',
      'wcu-hot-standard',
      'throughput-hot-fifo',
      'init-overhead',
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
    expect(goal(report, 'requests-default-fifo').measured).toBe(
      '1.000 vs 2.000 requests/event = 0.50×',
    );
    expect(goal(report, 'wcu-default-standard').measured).toBe('3.000 vs 3.000 WCU/event = 1.00×');
    expect(goal(report, 'cpu-default-standard').measured).toBe('400 vs 800 ms = 0.50×');
    expect(goal(report, 'cost-default-standard').measured).toBe('1.938 vs 1.938 $/million = 1.00×');
    expect(goal(report, 'init-overhead').description).toBe(
      "module init minus the bare DynamoDB client's, deployed shape (CJS, SDK bundled; nodejs24.x), medians of cold loads ≤ 10 ms",
    );
    expect(goal(report, 'init-overhead').measured).toBe(
      '5.0 ms: 20.0 − 15.0 ms wall (CPU 2.0 ms; Node v24.0.0)',
    );
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

  it('throughput: at least 2× the baseline on the standard queue of both workloads, 3× on the hot FIFO', () => {
    const met = (eventsPerSecond: number, workload: WorkloadName) =>
      goal(withOurs({ eventsPerSecond }, workload), `throughput-${workload}-standard`).met;
    expect([met(2000, 'default'), met(1999, 'default')]).toEqual([true, false]);
    expect([met(2000, 'hot'), met(1999, 'hot')]).toEqual([true, false]);
    const hotFifo = (eventsPerSecond: number) => {
      const report = measurements();
      report.throughput.hot.fifo.ours.eventsPerSecond = eventsPerSecond;
      return goal(report, 'throughput-hot-fifo').met;
    };
    expect([hotFifo(3000), hotFifo(2999)]).toEqual([true, false]);
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
    expect(goal(withOurs({ wcuPerEvent: wcu(3.001) }, 'hot'), 'wcu-hot-standard').met).toBe(false);
  });

  it('cost: on-demand $ per million events at most the baseline', () => {
    const cost = (total: number) => ({ write: total, read: 0, total });
    expect(
      goal(withOurs({ costUsdPerMillionEvents: cost(1.9375) }), 'cost-default-standard').met,
    ).toBe(true);
    expect(
      goal(withOurs({ costUsdPerMillionEvents: cost(1.94) }), 'cost-default-standard').met,
    ).toBe(false);
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

  it("init overhead: the deployed shape of ours minus the bare DynamoDB client's, at most 10 ms", () => {
    const at = (initMs: number, bareMs: number) => {
      const report = measurements();
      const shape = report.init.handlers.ours.shapes.find(
        (s) => s.format === 'cjs' && s.sdk === 'bundled',
      );
      if (shape) shape.initMs = initMs;
      report.init.bareClient.initMs = bareMs;
      return goal(report, 'init-overhead').met;
    };
    expect([at(58, 48), at(58.1, 48), at(40, 31)]).toEqual([true, false, true]);
    // Another deployed shape is judged on its own figure (ESM external loads in 4 × 20 ms here).
    const report = measurements();
    report.init.deployed = { format: 'esm', sdk: 'external' };
    expect(goal(report, 'init-overhead').measured).toBe(
      '65.0 ms: 80.0 − 15.0 ms wall (CPU 52.0 ms; Node v24.0.0)',
    );
    expect(goal(report, 'init-overhead').met).toBe(false);
  });
});
