import type { Goal, Measurements } from '../../bench/lib/report/document';
import { computeGoals } from '../../bench/lib/report/goals';
import { crashRowOf, measurements, summaryOf } from './support/report-fixture';

const goal = (report: Measurements, id: string): Goal => {
  const found = computeGoals(report).find((g) => g.id === id);
  if (!found) throw new Error(`no goal ${id}`);
  return found;
};

/** The fixture with one figure of ours on the standard queue replaced. */
const withOursStandard = (overrides: Parameters<typeof summaryOf>[0]): Measurements => {
  const report = measurements();
  report.throughput.standard.ours = { ...report.throughput.standard.ours, ...overrides };
  return report;
};

describe('bench report: goals', () => {
  it('lists every goal in a stable order, all met by the fixture', () => {
    const goals = computeGoals(measurements());
    expect(goals.map((g) => g.id)).toEqual([
      'crash-correctness',
      'throughput-standard',
      'requests-standard',
      'wcu-standard',
      'throughput-fifo',
      'requests-fifo',
      'wcu-fifo',
      'key-path',
      'bundle-size',
      'init-time',
    ]);
    expect(goals.filter((g) => !g.met)).toEqual([]);
  });

  it('says what was measured, with both sides', () => {
    const report = measurements();
    expect(goal(report, 'crash-correctness').measured).toBe(
      'ours 0 double / 0 lost (7 crashes); baseline 3 double / 0 lost (6 crashes)',
    );
    expect(goal(report, 'throughput-standard').measured).toBe('2,000 vs 1,000 events/s = 2.00×');
    expect(goal(report, 'requests-fifo').measured).toBe('1.000 vs 2.000 = 0.50×');
    expect(goal(report, 'wcu-standard').measured).toBe(
      '3.000 vs 3.000 WCU/event = 1.00× (lower bound 0.80×)',
    );
    expect(goal(report, 'key-path').measured).toBe(
      '400,000 events/s/core (raw SHA-256: 1,500,000)',
    );
    expect(goal(report, 'bundle-size').measured).toBe('120,000 B');
    expect(goal(report, 'init-time').measured).toBe('20.0 ms (SDK bundled: 40.0 ms)');
  });

  it('crash correctness: any wrong effect of ours fails it, the baseline never does', () => {
    for (const wrong of ['doubleApplied', 'lost', 'misapplied', 'cellsWrong', 'unattributed']) {
      const report = measurements();
      report.crash.push(crashRowOf({ queue: 'fifo', [wrong]: 1 }));
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

  it('throughput: at least 2× the baseline', () => {
    expect(goal(withOursStandard({ eventsPerSecond: 2000 }), 'throughput-standard').met).toBe(true);
    expect(goal(withOursStandard({ eventsPerSecond: 1999 }), 'throughput-standard').met).toBe(
      false,
    );
  });

  it('requests: at most half of the baseline', () => {
    expect(goal(withOursStandard({ requestsPerEvent: 1 }), 'requests-standard').met).toBe(true);
    expect(goal(withOursStandard({ requestsPerEvent: 1.001 }), 'requests-standard').met).toBe(
      false,
    );
  });

  it('write units: billed model at most the baseline', () => {
    const wcu = (billed: number) => ({ reported: 1, billed, billedLow: 1 });
    expect(goal(withOursStandard({ wcuPerEvent: wcu(3) }), 'wcu-standard').met).toBe(true);
    expect(goal(withOursStandard({ wcuPerEvent: wcu(3.001) }), 'wcu-standard').met).toBe(false);
  });

  it('a zero baseline gives n/a ratios instead of Infinity', () => {
    const report = measurements();
    report.throughput.fifo.baseline = summaryOf({ eventsPerSecond: 0 });
    expect(goal(report, 'throughput-fifo').measured).toBe('2,000 vs 0 events/s = n/a');
  });

  it('key path, bundle size and init time at their thresholds', () => {
    const at = (keyPath: number, bytes: number, initMs: number) => {
      const report = measurements();
      report.keyPath.keyPathEventsPerSecond = keyPath;
      report.bundles.ours.sdkExternalBytes = bytes;
      report.bundles.ours.initSdkExternalMs = initMs;
      return ['key-path', 'bundle-size', 'init-time'].map((id) => goal(report, id).met);
    };
    expect(at(300_000, 150_000, 50)).toEqual([true, true, true]);
    expect(at(299_999, 150_001, 50.1)).toEqual([false, false, false]);
  });
});
