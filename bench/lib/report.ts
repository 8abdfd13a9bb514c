/**
 * The report: one JSON document (bench/results/latest.json), a markdown rendering (latest.md) and a
 * hand-built SVG chart (latest.svg). Goals are computed from the measurements, never written by hand.
 */
import type { BundleResult } from './bundle';
import type { ImplementationName, QueueKind, RunResult } from './harness';
import type { KeyPathResult } from './keypath';

export const REPORT_SCHEMA = 'billing-dedup-bench/1';

/** DynamoDB on-demand list prices, us-east-1, as known (not fetched: no network here). */
export const PRICING = {
  region: 'us-east-1',
  writeRequestUnitUsdPerMillion: 0.625,
  readRequestUnitUsdPerMillion: 0.125,
  source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  asOf: 'list price as known (in effect since the 2024-11-01 on-demand price cut), assumed on the run date; not fetched: no network access',
} as const;

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

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
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
    redeliveredRecords: sum((r) => r.receives - r.events),
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

export const crashRow = (run: RunResult, mode: CrashRow['mode'], rate: number): CrashRow => ({
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

const fmt = (value: number, digits = 2): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
    : 'n/a';
const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : `${fmt(a / b)}×`);

export const computeGoals = (report: Omit<Report, 'goals'>): Goal[] => {
  const goals: Goal[] = [];
  const ours = report.crash.filter((row) => row.implementation === 'ours');
  const baseline = report.crash.filter((row) => row.implementation === 'baseline');
  const total = (rows: CrashRow[], pick: (row: CrashRow) => number) =>
    rows.reduce((n, r) => n + pick(r), 0);
  const oursWrong = total(
    ours,
    (r) => r.doubleApplied + r.lost + r.misapplied + r.cellsWrong + r.unattributed,
  );
  goals.push({
    id: 'crash-correctness',
    description: 'ours: 0 double-applied and 0 lost charges under crash injection (all crash runs)',
    target: '0 / 0',
    measured: `ours ${total(ours, (r) => r.doubleApplied)} double / ${total(ours, (r) => r.lost)} lost (${total(ours, (r) => r.crashes)} crashes); baseline ${total(baseline, (r) => r.doubleApplied)} double / ${total(baseline, (r) => r.lost)} lost (${total(baseline, (r) => r.crashes)} crashes)`,
    met: ours.length > 0 && oursWrong === 0 && total(ours, (r) => r.crashes) > 0,
  });
  for (const queue of Object.keys(report.throughput) as QueueKind[]) {
    const o = report.throughput[queue].ours;
    const b = report.throughput[queue].baseline;
    goals.push({
      id: `throughput-${queue}`,
      description: `${queue}: events/s ≥ 2× the baseline`,
      target: '≥ 2.00×',
      measured: `${fmt(o.eventsPerSecond, 0)} vs ${fmt(b.eventsPerSecond, 0)} events/s = ${ratio(o.eventsPerSecond, b.eventsPerSecond)}`,
      met: o.eventsPerSecond >= 2 * b.eventsPerSecond,
    });
    goals.push({
      id: `requests-${queue}`,
      description: `${queue}: DynamoDB requests per event ≤ 0.5× the baseline`,
      target: '≤ 0.50×',
      measured: `${fmt(o.requestsPerEvent, 3)} vs ${fmt(b.requestsPerEvent, 3)} = ${ratio(o.requestsPerEvent, b.requestsPerEvent)}`,
      met: o.requestsPerEvent <= 0.5 * b.requestsPerEvent,
    });
    goals.push({
      id: `wcu-${queue}`,
      description: `${queue}: billed write units per event ≤ the baseline's`,
      target: '≤ 1.00×',
      measured: `${fmt(o.wcuPerEvent.billed, 3)} vs ${fmt(b.wcuPerEvent.billed, 3)} WCU/event = ${ratio(o.wcuPerEvent.billed, b.wcuPerEvent.billed)} (lower bound ${ratio(o.wcuPerEvent.billedLow, b.wcuPerEvent.billedLow)})`,
      met: o.wcuPerEvent.billed <= b.wcuPerEvent.billed,
    });
  }
  goals.push({
    id: 'key-path',
    description: 'key path (decode + parse + RFC 8785 + SHA-256) ≥ 300,000 events/s/core',
    target: '≥ 300,000',
    measured: `${fmt(report.keyPath.keyPathEventsPerSecond, 0)} events/s/core (raw SHA-256: ${fmt(report.keyPath.sha256EventsPerSecond, 0)})`,
    met: report.keyPath.keyPathEventsPerSecond >= 300_000,
  });
  goals.push({
    id: 'bundle-size',
    description: 'handler bundle, minified, @aws-sdk/* external ≤ 150 KB (150,000 bytes)',
    target: '≤ 150,000 B',
    measured: `${fmt(report.bundles.ours.sdkExternalBytes, 0)} B`,
    met: report.bundles.ours.sdkExternalBytes <= 150_000,
  });
  goals.push({
    id: 'init-time',
    description: 'module init (median of cold imports, deployed shape: SDK external) ≤ 50 ms',
    target: '≤ 50 ms',
    measured: `${fmt(report.bundles.ours.initSdkExternalMs, 1)} ms (SDK bundled: ${fmt(report.bundles.ours.initSdkBundledMs, 1)} ms)`,
    met: report.bundles.ours.initSdkExternalMs <= 50,
  });
  return goals;
};

const QUEUES: QueueKind[] = ['standard', 'fifo'];

export const renderMarkdown = (report: Report): string => {
  const t = report.throughput;
  const lines: string[] = [];
  const row = (cells: string[]) => lines.push(`| ${cells.join(' | ')} |`);
  lines.push(`## Ours vs Powertools baseline — ${report.generatedAt.slice(0, 10)}`, '');
  lines.push(
    `${report.config.events.toLocaleString('en-US')} events per implementation and queue kind (${report.config.repetitions} repetitions × ${report.config.eventsPerRepetition.toLocaleString('en-US')}, fresh tables each), ` +
      `${report.config.consumers} concurrent consumers, batches of ${report.config.batchSize}; ` +
      `${report.config.workload.duplicateShare * 100}% duplicate deliveries, ${report.config.workload.restatementShare * 100}% restatements, ${report.config.workload.poisonShare * 100}% poison; ` +
      `DynamoDB Local; ${report.config.feed}; DLQ: ${report.config.dlq}.`,
    '',
  );
  row(['', ...QUEUES.flatMap((q) => [`ours (${q})`, `baseline (${q})`, 'ours / baseline'])]);
  row(['---', ...QUEUES.flatMap(() => ['---:', '---:', '---:'])]);
  const metric = (label: string, pick: (s: ImplementationSummary) => number, digits: number) =>
    row([
      label,
      ...QUEUES.flatMap((q) => [
        fmt(pick(t[q].ours), digits),
        fmt(pick(t[q].baseline), digits),
        ratio(pick(t[q].ours), pick(t[q].baseline)),
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
  const crashTotal = (
    queue: QueueKind,
    implementation: ImplementationName,
    pick: (r: CrashRow) => number,
  ) =>
    report.crash
      .filter((r) => r.queue === queue && r.implementation === implementation)
      .reduce((n, r) => n + pick(r), 0);
  row([
    'under crashes: double-applied / lost (crashes)',
    ...QUEUES.flatMap((q) => [
      `${crashTotal(q, 'ours', (r) => r.doubleApplied)} / ${crashTotal(q, 'ours', (r) => r.lost)} (${crashTotal(q, 'ours', (r) => r.crashes)})`,
      `${crashTotal(q, 'baseline', (r) => r.doubleApplied)} / ${crashTotal(q, 'baseline', (r) => r.lost)} (${crashTotal(q, 'baseline', (r) => r.crashes)})`,
      '',
    ]),
  ]);
  lines.push('');
  lines.push(
    `Prices: DynamoDB on-demand ${report.config.pricing.region}, $${report.config.pricing.writeRequestUnitUsdPerMillion}/M write units, $${report.config.pricing.readRequestUnitUsdPerMillion}/M read units (${report.config.pricing.asOf}; ${report.config.pricing.source}). Storage not included.`,
    '',
  );

  lines.push('### Crash injection', '');
  lines.push(
    `Events per run: ${[...new Set(report.crash.map((r) => `${r.events.toLocaleString('en-US')} at ${r.rate * 100}%`))].join(', ')}. Powertools in-progress lease = ${report.config.leaseMs} ms (Lambda context remaining time); a crashed batch comes back after ${report.config.crashRedeliveryMs} ms. ` +
      '`ack-lost`: every effect of the invocation happened, the response is lost, the whole batch is redelivered. `mid-batch`: the process dies right after the k-th successful DynamoDB write of the invocation (k uniform over the writes an invocation makes), the whole batch is redelivered.',
    '',
  );
  row([
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
  row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
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
    row([
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
  lines.push('');

  lines.push('### Key path, bundle, init', '');
  const k = report.keyPath;
  row(['measure', 'ours', 'baseline']);
  row(['---', '---:', '---:']);
  row([
    'key path events/s/core (decode + parse + RFC 8785 + SHA-256; shared by both)',
    fmt(k.keyPathEventsPerSecond, 0),
    'same code',
  ]);
  row([
    '  stages, cumulative: decode / + parse / + canonicalize',
    `${fmt(k.stages.decode, 0)} / ${fmt(k.stages.parse, 0)} / ${fmt(k.stages.canonicalize, 0)}`,
    '',
  ]);
  row([
    `  raw crypto SHA-256 of the canonical bytes (${fmt(k.canonicalBytes, 0)} B mean)`,
    fmt(k.sha256EventsPerSecond, 0),
    '',
  ]);
  const b = report.bundles;
  row([
    'bundle, minified, @aws-sdk/* external (bytes)',
    fmt(b.ours.sdkExternalBytes, 0),
    fmt(b.baseline.sdkExternalBytes, 0),
  ]);
  row([
    'bundle, minified, SDK bundled (bytes)',
    fmt(b.ours.sdkBundledBytes, 0),
    fmt(b.baseline.sdkBundledBytes, 0),
  ]);
  row([
    `module init, SDK external, median of ${b.ours.samples} cold imports (ms)`,
    fmt(b.ours.initSdkExternalMs, 1),
    fmt(b.baseline.initSdkExternalMs, 1),
  ]);
  row([
    `module init, SDK bundled, median of ${b.ours.samples} cold imports (ms)`,
    fmt(b.ours.initSdkBundledMs, 1),
    fmt(b.baseline.initSdkBundledMs, 1),
  ]);
  lines.push('');

  lines.push('### Goals', '');
  row(['goal', 'target', 'measured', 'met']);
  row(['---', '---', '---', '---']);
  for (const goal of report.goals)
    row([goal.description, goal.target, goal.measured, goal.met ? '✅ yes' : '❌ no']);
  lines.push('');
  lines.push(
    `Machine: ${report.machine.cpuModel}, ${report.machine.nproc} cores (nproc), ${report.machine.memory} RAM, Node ${report.machine.node}, ${report.machine.platform}. ` +
      `Command: \`${report.command}\` (${fmt(report.durationSeconds, 0)} s).`,
  );
  return `${lines.join('\n')}\n`;
};

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Four panels of side-by-side bars: throughput, requests/event, WCU/event, double-applies under crashes. */
export const renderSvg = (report: Report): string => {
  const panelWidth = 300;
  const panelHeight = 240;
  const width = panelWidth * 4 + 40;
  const height = panelHeight + 110;
  const colors: Record<ImplementationName, string> = { ours: '#1b7f5b', baseline: '#c0563b' };
  const crash = (queue: QueueKind, implementation: ImplementationName) =>
    report.crash
      .filter((r) => r.queue === queue && r.implementation === implementation)
      .reduce((n, r) => n + r.doubleApplied, 0);
  const panels: {
    title: string;
    value: (q: QueueKind, i: ImplementationName) => number;
    digits: number;
  }[] = [
    {
      title: 'events/s (higher is better)',
      value: (q, i) => report.throughput[q][i].eventsPerSecond,
      digits: 0,
    },
    {
      title: 'DynamoDB requests / event',
      value: (q, i) => report.throughput[q][i].requestsPerEvent,
      digits: 2,
    },
    {
      title: 'WCU / event (billed model)',
      value: (q, i) => report.throughput[q][i].wcuPerEvent.billed,
      digits: 2,
    },
    { title: 'double-applied under crashes', value: crash, digits: 0 },
  ];
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  parts.push(
    `<text x="20" y="24" font-size="15" font-weight="bold">${escape(`billing-dedup vs Powertools idempotency + batch — ${report.generatedAt.slice(0, 10)}, ${report.config.events.toLocaleString('en-US')} events, DynamoDB Local`)}</text>`,
  );
  panels.forEach((panel, p) => {
    const x0 = 20 + p * panelWidth;
    const y0 = 50;
    const bars = QUEUES.flatMap((q) =>
      (['ours', 'baseline'] as ImplementationName[]).map((i) => ({ q, i, v: panel.value(q, i) })),
    );
    const max = Math.max(...bars.map((b) => b.v), 1e-9);
    const chartTop = y0 + 30;
    const chartHeight = panelHeight - 70;
    parts.push(
      `<text x="${x0 + 10}" y="${y0 + 12}" font-weight="bold">${escape(panel.title)}</text>`,
    );
    parts.push(
      `<line x1="${x0 + 10}" y1="${chartTop + chartHeight}" x2="${x0 + panelWidth - 20}" y2="${chartTop + chartHeight}" stroke="#888"/>`,
    );
    bars.forEach((bar, index) => {
      const barWidth = 48;
      const gap = index >= 2 ? 24 : 0;
      const x = x0 + 16 + index * (barWidth + 8) + gap;
      const h = (bar.v / max) * chartHeight;
      const y = chartTop + chartHeight - h;
      parts.push(
        `<rect x="${x}" y="${y.toFixed(1)}" width="${barWidth}" height="${h.toFixed(1)}" fill="${colors[bar.i]}"/>`,
      );
      parts.push(
        `<text x="${x + barWidth / 2}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${escape(fmt(bar.v, panel.digits))}</text>`,
      );
      parts.push(
        `<text x="${x + barWidth / 2}" y="${chartTop + chartHeight + 14}" text-anchor="middle" font-size="10">${bar.i}</text>`,
      );
    });
    parts.push(
      `<text x="${x0 + 16 + 52}" y="${chartTop + chartHeight + 28}" text-anchor="middle" font-size="10" fill="#555">standard</text>`,
    );
    parts.push(
      `<text x="${x0 + 16 + 24 + 2 * 56 + 52}" y="${chartTop + chartHeight + 28}" text-anchor="middle" font-size="10" fill="#555">FIFO</text>`,
    );
  });
  const legendY = height - 24;
  parts.push(
    `<rect x="20" y="${legendY - 10}" width="12" height="12" fill="${colors.ours}"/><text x="38" y="${legendY}">ours (one TransactWriteItems per record / group, BatchGetItem pre-read)</text>`,
  );
  parts.push(
    `<rect x="520" y="${legendY - 10}" width="12" height="12" fill="${colors.baseline}"/><text x="538" y="${legendY}">baseline (Powertools BatchProcessor + makeIdempotent, plain Put/Update)</text>`,
  );
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
};

/** Checks the documented shape of latest.json (docs/benchmarks.md); returns the problems found. */
export const reportProblems = (value: unknown): string[] => {
  const problems: string[] = [];
  const at = (object: unknown, keyPath: string): unknown =>
    keyPath
      .split('.')
      .reduce<unknown>(
        (o, key) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined),
        object,
      );
  const expect = (keyPath: string, type: 'number' | 'string' | 'boolean' | 'object' | 'array') => {
    const found = at(value, keyPath);
    const ok = type === 'array' ? Array.isArray(found) : typeof found === type && found !== null;
    if (!ok) problems.push(`${keyPath}: expected ${type}`);
  };
  if (at(value, 'schema') !== REPORT_SCHEMA) problems.push(`schema: expected ${REPORT_SCHEMA}`);
  expect('generatedAt', 'string');
  expect('command', 'string');
  expect('durationSeconds', 'number');
  for (const key of ['nproc']) expect(`machine.${key}`, 'number');
  for (const key of ['memory', 'cpuModel', 'node', 'platform']) expect(`machine.${key}`, 'string');
  for (const key of [
    'events',
    'repetitions',
    'eventsPerRepetition',
    'consumers',
    'batchSize',
    'crashEvents',
    'leaseMs',
  ])
    expect(`config.${key}`, 'number');
  expect('config.crashRates', 'array');
  expect('config.pricing.writeRequestUnitUsdPerMillion', 'number');
  expect('config.pricing.readRequestUnitUsdPerMillion', 'number');
  expect('config.pricing.source', 'string');
  for (const queue of QUEUES)
    for (const implementation of ['ours', 'baseline']) {
      const base = `throughput.${queue}.${implementation}`;
      for (const key of [
        'eventsPerSecond',
        'events',
        'requestsPerEvent',
        'failedConditionalWrites',
        'cancelledTransactions',
      ])
        expect(`${base}.${key}`, 'number');
      expect(`${base}.repetitions`, 'array');
      expect(`${base}.requestsPerEventByOperation`, 'object');
      for (const key of ['reported', 'billed', 'billedLow'])
        expect(`${base}.wcuPerEvent.${key}`, 'number');
      for (const key of ['reported', 'billed']) expect(`${base}.rcuPerEvent.${key}`, 'number');
      for (const key of ['write', 'read', 'total'])
        expect(`${base}.costUsdPerMillionEvents.${key}`, 'number');
      for (const key of ['doubleApplied', 'lost', 'misapplied', 'cellsWrong', 'unattributed'])
        expect(`${base}.faultFree.${key}`, 'number');
    }
  expect('crash', 'array');
  for (const [index, row] of ((at(value, 'crash') as unknown[]) ?? []).entries()) {
    for (const key of [
      'rate',
      'events',
      'invocations',
      'crashes',
      'doubleApplied',
      'lost',
      'misapplied',
      'unattributed',
      'cellsWrong',
    ])
      if (typeof (row as Record<string, unknown>)[key] !== 'number')
        problems.push(`crash[${index}].${key}: expected number`);
    for (const key of ['queue', 'implementation', 'mode', 'moneyError'])
      if (typeof (row as Record<string, unknown>)[key] !== 'string')
        problems.push(`crash[${index}].${key}: expected string`);
  }
  for (const key of [
    'keyPathEventsPerSecond',
    'sha256EventsPerSecond',
    'canonicalBytes',
    'stages.decode',
    'stages.parse',
    'stages.canonicalize',
  ])
    expect(`keyPath.${key}`, 'number');
  for (const implementation of ['ours', 'baseline'])
    for (const key of [
      'sdkExternalBytes',
      'sdkBundledBytes',
      'initSdkExternalMs',
      'initSdkBundledMs',
      'samples',
    ])
      expect(`bundles.${implementation}.${key}`, 'number');
  expect('goals', 'array');
  for (const [index, goal] of ((at(value, 'goals') as unknown[]) ?? []).entries()) {
    const g = goal as Record<string, unknown>;
    if (typeof g.id !== 'string' || typeof g.measured !== 'string' || typeof g.met !== 'boolean')
      problems.push(`goals[${index}]: expected { id, description, target, measured, met }`);
  }
  return problems;
};
