/** bench/results/latest.md: the tables quoted in docs/benchmarks.md (prettier formats them later). */
import type { ImplementationName, QueueKind } from '../harness';
import { sameShape, shapeName } from '../shapes';
import {
  QUEUES,
  WORKLOADS,
  type CrashRow,
  type ImplementationSummary,
  type Report,
  type WorkloadName,
} from './document';
import { formatNumber, formatRatio } from './format';
import { perThousand } from './goals';
import { crashTotal } from './summary';

const row = (out: string[], cells: string[]): void => {
  out.push(`| ${cells.join(' | ')} |`);
};

const WORKLOAD_TITLES: Record<WorkloadName, string> = {
  default: 'Default workload',
  hot: 'Hot account: every charge on one tenant, account, month and currency',
};

const intro = (report: Report): string[] => {
  const out: string[] = [];
  const { config } = report;
  out.push(`## Ours vs Powertools baseline — ${report.generatedAt.slice(0, 10)}`, '');
  const workloads = WORKLOADS.filter((w) => config.workloads[w]).map((w) => {
    const c = config.workloads[w];
    return `${w}: ${c.events.toLocaleString('en-US')} events per implementation and queue kind (${c.repetitions} repetitions × ${c.eventsPerRepetition.toLocaleString('en-US')}, fresh tables each), ${c.tenants * c.accountsPerTenant} account(s), ${c.consumers} concurrent consumers`;
  });
  out.push(
    `${workloads.join('; ')}. Batches of ${config.batchSize}; ` +
      `${config.workload.duplicateShare * 100}% duplicate deliveries, ${config.workload.restatementShare * 100}% restatements, ${config.workload.poisonShare * 100}% poison; ` +
      `DynamoDB Local; ${config.feed}; DLQ: ${config.dlq}.`,
    '',
  );
  return out;
};

const throughputTable = (report: Report, workload: WorkloadName): string[] => {
  const out: string[] = [];
  const t = report.throughput[workload];
  const config = report.config.workloads[workload];
  out.push(`### ${WORKLOAD_TITLES[workload]}`, '');
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
  metric(`events/s (median of ${config.repetitions})`, (s) => s.eventsPerSecond, 0);
  metric('handler CPU ms / 1,000 events', (s) => s.cpuMsPerThousandEvents, 0);
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
    (s) => perThousand(s.failedConditionalWrites, s.events),
    1,
  );
  metric(
    'cancelled transactions (each retried) / 1k events',
    (s) => perThousand(s.cancelledTransactions, s.events),
    1,
  );
  metric(
    '  of which contention only / 1k events',
    (s) => perThousand(s.contendedTransactions, s.events),
    1,
  );
  metric(
    '  their billed WCU / event (billed model)',
    (s) => s.wcuPerEvent.billed - s.wcuPerEvent.billedLow,
    3,
  );
  metric('redelivered records / 1k events', (s) => perThousand(s.redeliveredRecords, s.events), 1);
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
      crashTotal(report.crash, pick, { workload, queue, implementation });
    return `${total((r) => r.doubleApplied)} / ${total((r) => r.lost)} (${total((r) => r.crashes)})`;
  };
  row(out, [
    'under crashes: double-applied / lost (crashes)',
    ...QUEUES.flatMap((q) => [underCrashes(q, 'ours'), underCrashes(q, 'baseline'), '']),
  ]);
  out.push('');
  const reasons = QUEUES.flatMap((q) => {
    const found = Object.entries(t[q].ours.cancellationReasons ?? {});
    return found.length > 0
      ? [`${q}: ${found.map(([reason, n]) => `${reason} ${formatNumber(n, 0)}`).join(', ')}`]
      : [];
  });
  if (reasons.length > 0)
    out.push(
      `Ours, cancelled transactions by reason (item that refused): ${reasons.join('; ')}.`,
      '',
    );
  return out;
};

const pricingLine = (report: Report): string[] => {
  const { pricing } = report.config;
  return [
    `Prices: DynamoDB on-demand ${pricing.region}, $${pricing.writeRequestUnitUsdPerMillion}/M write units, $${pricing.readRequestUnitUsdPerMillion}/M read units (${pricing.asOf}; ${pricing.source}). Storage not included. ` +
      'Handler CPU: user + system CPU time of the process running the handlers while at least one invocation was in flight (the SDK, the metering middleware and the queue model included, the same for both).',
    '',
  ];
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
    'workload',
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
  row(out, ['---', '---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
  const keys = [
    ...new Set(report.crash.map((r) => `${r.workload}|${r.queue}|${r.mode}|${r.rate}`)),
  ];
  for (const key of keys) {
    const [workload, queue, mode, rate] = key.split('|');
    const find = (implementation: ImplementationName) =>
      report.crash.find(
        (r) =>
          r.workload === workload &&
          r.queue === queue &&
          r.mode === mode &&
          String(r.rate) === rate &&
          r.implementation === implementation,
      );
    const o = find('ours');
    const b = find('baseline');
    const wrong = (r?: CrashRow) => (r ? r.misapplied + r.unattributed : 0);
    row(out, [
      workload,
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

const initTable = (report: Report): string[] => {
  const out: string[] = [];
  const { init } = report;
  out.push('### Cold start: bundle and module init', '');
  out.push(
    `Each bundle built with the construct's esbuild settings (minified, source maps), loaded ${init.samples} times in a fresh \`node\` (${init.node}; the stack's runtime is ${init.runtime}) with NODE_OPTIONS=\`${init.nodeOptions}\`: \`import()\` for ESM, \`require\` for CommonJS. Medians. Deployed: ${shapeName(init.deployed)}.`,
    '',
  );
  row(out, [
    'shape',
    'ours: bytes',
    'ours: init ms (wall)',
    'ours: init ms (CPU)',
    'baseline: bytes',
    'baseline: init ms (wall)',
    'baseline: init ms (CPU)',
  ]);
  row(out, ['---', '---:', '---:', '---:', '---:', '---:', '---:']);
  init.handlers.ours.shapes.forEach((shape, index) => {
    const baseline = init.handlers.baseline.shapes[index];
    row(out, [
      `${shapeName(shape)}${sameShape(shape, init.deployed) ? ' (deployed)' : ''}`,
      formatNumber(shape.bytes, 0),
      formatNumber(shape.initMs, 1),
      formatNumber(shape.initCpuMs, 1),
      baseline ? formatNumber(baseline.bytes, 0) : '–',
      baseline ? formatNumber(baseline.initMs, 1) : '–',
      baseline ? formatNumber(baseline.initCpuMs, 1) : '–',
    ]);
  });
  const bare = init.bareClient;
  row(out, [
    `the DynamoDB client alone (${shapeName(init.deployed)})`,
    formatNumber(bare.bytes, 0),
    formatNumber(bare.initMs, 1),
    formatNumber(bare.initCpuMs, 1),
    '',
    '',
    '',
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

const SECTIONS: ((report: Report) => string[])[] = [
  intro,
  (report) => WORKLOADS.flatMap((workload) => throughputTable(report, workload)),
  pricingLine,
  crashTable,
  initTable,
  goalsTable,
  machineLine,
];

export const renderMarkdown = (report: Report): string =>
  `${SECTIONS.flatMap((section) => section(report)).join('\n')}\n`;
