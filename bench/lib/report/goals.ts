/** The goals of the benchmark, computed from the measurements, never written by hand. */
import type { ImplementationName, QueueKind } from '../harness';
import type { CrashRow, Goal, Measurements } from './document';
import { formatNumber, formatRatio } from './format';
import { crashTotal } from './summary';

export const computeGoals = (report: Measurements): Goal[] => {
  const goals: Goal[] = [];
  const total = (implementation: ImplementationName, pick: (row: CrashRow) => number) =>
    crashTotal(report.crash, pick, { implementation });
  const oursWrong = total(
    'ours',
    (r) => r.doubleApplied + r.lost + r.misapplied + r.cellsWrong + r.unattributed,
  );
  goals.push({
    id: 'crash-correctness',
    description: 'ours: 0 double-applied and 0 lost charges under crash injection (all crash runs)',
    target: '0 / 0',
    measured: `ours ${total('ours', (r) => r.doubleApplied)} double / ${total('ours', (r) => r.lost)} lost (${total('ours', (r) => r.crashes)} crashes); baseline ${total('baseline', (r) => r.doubleApplied)} double / ${total('baseline', (r) => r.lost)} lost (${total('baseline', (r) => r.crashes)} crashes)`,
    met: oursWrong === 0 && total('ours', (r) => r.crashes) > 0,
  });
  for (const queue of Object.keys(report.throughput) as QueueKind[]) {
    const o = report.throughput[queue].ours;
    const b = report.throughput[queue].baseline;
    goals.push({
      id: `throughput-${queue}`,
      description: `${queue}: events/s ≥ 2× the baseline`,
      target: '≥ 2.00×',
      measured: `${formatNumber(o.eventsPerSecond, 0)} vs ${formatNumber(b.eventsPerSecond, 0)} events/s = ${formatRatio(o.eventsPerSecond, b.eventsPerSecond)}`,
      met: o.eventsPerSecond >= 2 * b.eventsPerSecond,
    });
    goals.push({
      id: `requests-${queue}`,
      description: `${queue}: DynamoDB requests per event ≤ 0.5× the baseline`,
      target: '≤ 0.50×',
      measured: `${formatNumber(o.requestsPerEvent, 3)} vs ${formatNumber(b.requestsPerEvent, 3)} = ${formatRatio(o.requestsPerEvent, b.requestsPerEvent)}`,
      met: o.requestsPerEvent <= 0.5 * b.requestsPerEvent,
    });
    goals.push({
      id: `wcu-${queue}`,
      description: `${queue}: billed write units per event ≤ the baseline's`,
      target: '≤ 1.00×',
      measured: `${formatNumber(o.wcuPerEvent.billed, 3)} vs ${formatNumber(b.wcuPerEvent.billed, 3)} WCU/event = ${formatRatio(o.wcuPerEvent.billed, b.wcuPerEvent.billed)} (lower bound ${formatRatio(o.wcuPerEvent.billedLow, b.wcuPerEvent.billedLow)})`,
      met: o.wcuPerEvent.billed <= b.wcuPerEvent.billed,
    });
  }
  goals.push({
    id: 'key-path',
    description: 'key path (decode + parse + RFC 8785 + SHA-256) ≥ 300,000 events/s/core',
    target: '≥ 300,000',
    measured: `${formatNumber(report.keyPath.keyPathEventsPerSecond, 0)} events/s/core (raw SHA-256: ${formatNumber(report.keyPath.sha256EventsPerSecond, 0)})`,
    met: report.keyPath.keyPathEventsPerSecond >= 300_000,
  });
  goals.push({
    id: 'bundle-size',
    description: 'handler bundle, minified, @aws-sdk/* external ≤ 150 KB (150,000 bytes)',
    target: '≤ 150,000 B',
    measured: `${formatNumber(report.bundles.ours.sdkExternalBytes, 0)} B`,
    met: report.bundles.ours.sdkExternalBytes <= 150_000,
  });
  goals.push({
    id: 'init-time',
    description: 'module init (median of cold imports, deployed shape: SDK external) ≤ 50 ms',
    target: '≤ 50 ms',
    measured: `${formatNumber(report.bundles.ours.initSdkExternalMs, 1)} ms (SDK bundled: ${formatNumber(report.bundles.ours.initSdkBundledMs, 1)} ms)`,
    met: report.bundles.ours.initSdkExternalMs <= 50,
  });
  return goals;
};
