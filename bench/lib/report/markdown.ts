/** bench/results/latest.md: the tables quoted in docs/benchmarks.md (prettier formats them later). */
import type { ImplementationName, QueueKind } from '../harness';
import { QUEUES, type CrashRow, type ImplementationSummary, type Report } from './document';
import { formatNumber, formatRatio } from './format';
import { crashTotal } from './summary';

const row = (out: string[], cells: string[]): void => {
  out.push(`| ${cells.join(' | ')} |`);
};

const intro = (report: Report): string[] => {
  const out: string[] = [];
  const { config } = report;
  out.push(`## Ours vs Powertools baseline — ${report.generatedAt.slice(0, 10)}`, '');
  out.push(
    `${config.events.toLocaleString('en-US')} events per implementation and queue kind (${config.repetitions} repetitions × ${config.eventsPerRepetition.toLocaleString('en-US')}, fresh tables each), ` +
      `${config.consumers} concurrent consumers, batches of ${config.batchSize}; ` +
      `${config.workload.duplicateShare * 100}% duplicate deliveries, ${config.workload.restatementShare * 100}% restatements, ${config.workload.poisonShare * 100}% poison; ` +
      `DynamoDB Local; ${config.feed}; DLQ: ${config.dlq}.`,
    '',
  );
  return out;
};

const throughputTable = (report: Report): string[] => {
  const out: string[] = [];
  const t = report.throughput;
  row(out, ['', ...QUEUES.flatMap((q) => [`ours (${q})`, `baseline (${q})`, 'ours / baseline'])]);
  row(out, ['---', ...QUEUES.flatMap(() => ['---:', '---:', '---:'])]);
  const metric = (label: string, pick: (s: ImplementationSummary) => number, digits: number) =>
    row(out, [
      label,
      ...QUEUES.flatMap((q) => [
        formatNumber(pick(t[q].ours), digits),
        formatNumber(pick(t[q].baseline), digits),
        formatRatio(pick(t[q].ours), pick(t[q].baseline)),
      ]),
    ]);
  metric(`events/s (median of ${report.config.repetitions})`, (s) => s.eventsPerSecond, 0);
  metric('DynamoDB requests / event', (s) => s.requestsPerEvent, 3);
  const operations = [
    ...new Set(
      QUEUES.flatMap((q) =>
        [t[q].ours, t[q].baseline].flatMap((s) => Object.keys(s.requestsPerEventByOperation)),
      ),
    ),
  ].sort();
  for (const operation of operations)
    metric(`  ${operation} / event`, (s) => s.requestsPerEventByOperation[operation] ?? 0, 3);
  metric('WCU / event (billed model)', (s) => s.wcuPerEvent.billed, 3);
  metric('  lower bound: cancelled transactions free', (s) => s.wcuPerEvent.billedLow, 3);
  metric('WCU / event (reported by DynamoDB Local)', (s) => s.wcuPerEvent.reported, 3);
  metric('RCU / event (billed model)', (s) => s.rcuPerEvent.billed, 3);
  metric('RCU / event (reported by DynamoDB Local)', (s) => s.rcuPerEvent.reported, 3);
  metric('on-demand $ / million events', (s) => s.costUsdPerMillionEvents.total, 3);
  metric(
    'failed conditional writes / 1k events',
    (s) => (1000 * s.failedConditionalWrites) / s.events,
    1,
  );
  metric(
    'cancelled transactions / 1k events',
    (s) => (1000 * s.cancelledTransactions) / s.events,
    1,
  );
  metric('redelivered records / 1k events', (s) => (1000 * s.redeliveredRecords) / s.events, 1);
  metric(
    'double-applied + lost, fault-free',
    (s) =>
      s.faultFree.doubleApplied +
      s.faultFree.lost +
      s.faultFree.misapplied +
      s.faultFree.cellsWrong,
    0,
  );
  const underCrashes = (queue: QueueKind, implementation: ImplementationName) => {
    const total = (pick: (r: CrashRow) => number) =>
      crashTotal(report.crash, pick, { queue, implementation });
    return `${total((r) => r.doubleApplied)} / ${total((r) => r.lost)} (${total((r) => r.crashes)})`;
  };
  row(out, [
    'under crashes: double-applied / lost (crashes)',
    ...QUEUES.flatMap((q) => [underCrashes(q, 'ours'), underCrashes(q, 'baseline'), '']),
  ]);
  out.push('');
  const { pricing } = report.config;
  out.push(
    `Prices: DynamoDB on-demand ${pricing.region}, $${pricing.writeRequestUnitUsdPerMillion}/M write units, $${pricing.readRequestUnitUsdPerMillion}/M read units (${pricing.asOf}; ${pricing.source}). Storage not included.`,
    '',
  );
  return out;
};

const crashTable = (report: Report): string[] => {
  const out: string[] = [];
  out.push('### Crash injection', '');
  out.push(
    `Events per run: ${[...new Set(report.crash.map((r) => `${r.events.toLocaleString('en-US')} at ${r.rate * 100}%`))].join(', ')}. Powertools in-progress lease = ${report.config.leaseMs} ms (Lambda context remaining time); a crashed batch comes back after ${report.config.crashRedeliveryMs} ms. ` +
      '`ack-lost`: every effect of the invocation happened, the response is lost, the whole batch is redelivered. `mid-batch`: the process dies right after the k-th successful DynamoDB write of the invocation (k uniform over the writes an invocation makes), the whole batch is redelivered.',
    '',
  );
  row(out, [
    'queue',
    'crash',
    'rate',
    'ours: crashes',
    'ours: double',
    'ours: lost',
    'baseline: crashes',
    'baseline: double',
    'baseline: lost',
    'baseline: money error',
  ]);
  row(out, ['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
  const keys = [...new Set(report.crash.map((r) => `${r.queue}|${r.mode}|${r.rate}`))];
  for (const key of keys) {
    const [queue, mode, rate] = key.split('|');
    const find = (implementation: ImplementationName) =>
      report.crash.find(
        (r) =>
          r.queue === queue &&
          r.mode === mode &&
          String(r.rate) === rate &&
          r.implementation === implementation,
      );
    const o = find('ours');
    const b = find('baseline');
    const wrong = (r?: CrashRow) => (r ? r.misapplied + r.unattributed : 0);
    row(out, [
      queue,
      mode,
      `${Number(rate) * 100}%`,
      String(o?.crashes ?? '–'),
      String(o?.doubleApplied ?? '–'),
      `${o?.lost ?? '–'}${wrong(o) ? ` (+${wrong(o)} misapplied)` : ''}`,
      String(b?.crashes ?? '–'),
      String(b?.doubleApplied ?? '–'),
      `${b?.lost ?? '–'}${wrong(b) ? ` (+${wrong(b)} misapplied)` : ''}`,
      b?.moneyError ?? '–',
    ]);
  }
  out.push('');
  return out;
};

const keyPathBundleInitTable = (report: Report): string[] => {
  const out: string[] = [];
  out.push('### Key path, bundle, init', '');
  const k = report.keyPath;
  row(out, ['measure', 'ours', 'baseline']);
  row(out, ['---', '---:', '---:']);
  row(out, [
    'key path events/s/core (decode + parse + RFC 8785 + SHA-256; shared by both)',
    formatNumber(k.keyPathEventsPerSecond, 0),
    'same code',
  ]);
  row(out, [
    '  stages, cumulative: decode / + parse / + canonicalize',
    `${formatNumber(k.stages.decode, 0)} / ${formatNumber(k.stages.parse, 0)} / ${formatNumber(k.stages.canonicalize, 0)}`,
    '',
  ]);
  row(out, [
    `  raw crypto SHA-256 of the canonical bytes (${formatNumber(k.canonicalBytes, 0)} B mean)`,
    formatNumber(k.sha256EventsPerSecond, 0),
    '',
  ]);
  const b = report.bundles;
  row(out, [
    'bundle, minified, @aws-sdk/* external (bytes)',
    formatNumber(b.ours.sdkExternalBytes, 0),
    formatNumber(b.baseline.sdkExternalBytes, 0),
  ]);
  row(out, [
    'bundle, minified, SDK bundled (bytes)',
    formatNumber(b.ours.sdkBundledBytes, 0),
    formatNumber(b.baseline.sdkBundledBytes, 0),
  ]);
  row(out, [
    `module init, SDK external, median of ${b.ours.samples} cold imports (ms)`,
    formatNumber(b.ours.initSdkExternalMs, 1),
    formatNumber(b.baseline.initSdkExternalMs, 1),
  ]);
  row(out, [
    `module init, SDK bundled, median of ${b.ours.samples} cold imports (ms)`,
    formatNumber(b.ours.initSdkBundledMs, 1),
    formatNumber(b.baseline.initSdkBundledMs, 1),
  ]);
  out.push('');
  return out;
};

const goalsTable = (report: Report): string[] => {
  const out: string[] = [];
  out.push('### Goals', '');
  row(out, ['goal', 'target', 'measured', 'met']);
  row(out, ['---', '---', '---', '---']);
  for (const goal of report.goals)
    row(out, [goal.description, goal.target, goal.measured, goal.met ? '✅ yes' : '❌ no']);
  out.push('');
  return out;
};

const machineLine = (report: Report): string[] => {
  const out: string[] = [];
  const { machine } = report;
  out.push(
    `Machine: ${machine.cpuModel}, ${machine.nproc} cores (nproc), ${machine.memory} RAM, Node ${machine.node}, ${machine.platform}. ` +
      `Command: \`${report.command}\` (${formatNumber(report.durationSeconds, 0)} s).`,
  );
  return out;
};

const SECTIONS = [
  intro,
  throughputTable,
  crashTable,
  keyPathBundleInitTable,
  goalsTable,
  machineLine,
];

export const renderMarkdown = (report: Report): string =>
  `${SECTIONS.flatMap((section) => section(report)).join('\n')}\n`;
