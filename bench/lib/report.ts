/**
 * The report of the stream section (bench/results/latest.json and latest.md): harness runs folded
 * into figures, the goals as a table of data, and the figures as plain Markdown tables (prettier
 * aligns them when they are written).
 */
import type { ImplementationName, QueueKind, RunResult } from './harness';
import { median } from './median';
import { deployedOf, sameShape, shapeName, type InitMeasurements } from './shapes';

export const REPORT_SCHEMA = 'billing-dedup-bench/2';
export const QUEUES: QueueKind[] = ['standard', 'fifo'];
/** `default`: 6 tenants × 8 accounts, two months; `hot`: every charge on one account, month and currency. */
export type WorkloadName = 'default' | 'hot';
export const WORKLOADS: WorkloadName[] = ['default', 'hot'];

/** DynamoDB on-demand list prices, us-east-1, as known (not fetched: no network here). */
export const PRICING = {
  region: 'us-east-1',
  writeRequestUnitUsdPerMillion: 0.625,
  readRequestUnitUsdPerMillion: 0.125,
  source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  asOf: 'list price as known (in effect since the 2024-11-01 on-demand price cut), assumed on the run date; not fetched: no network access',
} as const;

// ---- numbers and tables -------------------------------------------------------------------------

/** en-US with fixed digits; `n/a` for a non-finite value. */
export const num = (value: number, digits = 2): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
    : 'n/a';
/** `a / b` as `1.23×`; `n/a` when there is nothing to divide by. */
export const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : `${num(a / b)}×`);
export const perThousand = (count: number, events: number): number =>
  events > 0 ? (1000 * count) / events : 0;
/** A Markdown table: header, alignment row (`r` right-aligns every column but the first), rows. */
export const table = (header: string[], rows: string[][], right = true): string[] => [
  `| ${header.join(' | ')} |`,
  `| ${header.map((_, i) => (right && i > 0 ? '---:' : '---')).join(' | ')} |`,
  ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  '',
];

// ---- figures ------------------------------------------------------------------------------------

/** Adds up counts by key, keys sorted. */
export const sumCounts = (counts: readonly Record<string, number>[]): Record<string, number> => {
  const total: Record<string, number> = {};
  for (const count of counts)
    for (const [key, n] of Object.entries(count)) total[key] = (total[key] ?? 0) + n;
  return Object.fromEntries(Object.entries(total).sort(([a], [b]) => a.localeCompare(b)));
};

/** Folds the repetitions of one implementation on one queue kind. */
export const summarize = (runs: RunResult[]) => {
  const events = runs.reduce((n, r) => n + r.events, 0);
  const sum = (pick: (r: RunResult) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const wcu = {
    reported: sum((r) => r.reportedWcu) / events,
    billed: sum((r) => r.billedWcu) / events,
    /** Cancelled transactions free (the billed figure bills them like committed ones). */
    billedLow: sum((r) => r.billedWcu - r.cancelledTransactionWcu) / events,
  };
  const rcu = {
    reported: sum((r) => r.reportedRcu) / events,
    billed: sum((r) => r.billedRcu) / events,
  };
  const write = wcu.billed * PRICING.writeRequestUnitUsdPerMillion;
  const read = rcu.billed * PRICING.readRequestUnitUsdPerMillion;
  const byOperation = sumCounts(runs.map((r) => r.requests));
  return {
    eventsPerSecond: median(runs.map((r) => r.eventsPerSecond)),
    repetitions: runs.map((r) => r.eventsPerSecond),
    events,
    requestsPerEvent: sum((r) => r.totalRequests) / events,
    requestsPerEventByOperation: Object.fromEntries(
      Object.entries(byOperation).map(([operation, count]) => [operation, count / events]),
    ),
    rcuPerEvent: rcu,
    wcuPerEvent: wcu,
    costUsdPerMillionEvents: { write, read, total: write + read },
    failedConditionalWrites: sum((r) => r.failedConditionalWrites),
    cancelledTransactions: sum((r) => r.cancelledTransactions),
    /** Cancelled by contention alone (TransactionConflict, no condition failed). */
    contendedTransactions: sum((r) => r.contendedTransactions),
    cancellationReasons: sumCounts(runs.map((r) => r.cancellationReasons)),
    redeliveredRecords: sum((r) => r.receives - r.events),
    /** User + system CPU of the process running the handlers per 1,000 events, ms. */
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
export type Summary = ReturnType<typeof summarize>;

export const crashRow = (
  run: RunResult,
  workload: WorkloadName,
  mode: 'ack-lost' | 'mid-batch',
  rate: number,
) => {
  const { doubleApplied, lost, misapplied, unattributed, cellsWrong } = run.correctness;
  return {
    workload,
    queue: run.queue,
    implementation: run.implementation,
    mode,
    rate,
    events: run.events,
    invocations: run.invocations,
    crashes: run.crashes,
    doubleApplied,
    lost,
    misapplied,
    unattributed,
    cellsWrong,
    moneyError: run.correctness.moneyError,
    journalMatchesLedger: run.correctness.journalMatchesLedger,
    overLease: run.overLease,
    redriven: run.redriven,
  };
};
export type CrashRow = ReturnType<typeof crashRow>;

/** One figure summed over the crash rows that match `only`. */
export const crashTotal = (
  rows: readonly CrashRow[],
  pick: (row: CrashRow) => number,
  only: Partial<Pick<CrashRow, 'workload' | 'queue' | 'implementation'>> = {},
): number =>
  rows
    .filter((row) =>
      Object.entries(only).every(([key, value]) => row[key as keyof typeof only] === value),
    )
    .reduce((n, row) => n + pick(row), 0);

export interface Measurements {
  schema: typeof REPORT_SCHEMA;
  generatedAt: string;
  command: string;
  durationSeconds: number;
  machine: { nproc: number; memory: string; cpuModel: string; node: string; platform: string };
  config: {
    workloads: Record<
      WorkloadName,
      {
        events: number;
        repetitions: number;
        eventsPerRepetition: number;
        consumers: number;
        tenants: number;
        accountsPerTenant: number;
      }
    >;
    batchSize: number;
    crashEvents: number;
    crashRates: number[];
    leaseMs: number;
    cleanLeaseMs: number;
    retryDelayMs: number;
    crashRedeliveryMs: number;
    seed: number;
    workload: { duplicateShare: number; restatementShare: number; poisonShare: number };
    dlq: string;
    feed: string;
    pricing: typeof PRICING;
  };
  throughput: Record<WorkloadName, Record<QueueKind, Record<ImplementationName, Summary>>>;
  crash: CrashRow[];
  init: InitMeasurements;
}
export interface Goal {
  id: string;
  description: string;
  target: string;
  measured: string;
  met: boolean;
}
export type Report = Measurements & { goals: Goal[] };

// ---- goals: a table of data ---------------------------------------------------------------------

/** The figures a goal compares, ours against the baseline of the same run. */
const METRICS = {
  throughput: {
    label: 'events/s',
    unit: 'events/s',
    digits: 0,
    of: (s: Summary) => s.eventsPerSecond,
  },
  requests: {
    label: 'DynamoDB requests per event',
    unit: 'requests/event',
    digits: 3,
    of: (s: Summary) => s.requestsPerEvent,
  },
  wcu: {
    label: 'billed write units per event',
    unit: 'WCU/event',
    digits: 3,
    of: (s: Summary) => s.wcuPerEvent.billed,
  },
  cost: {
    label: 'on-demand $ per million events',
    unit: '$/million',
    digits: 3,
    of: (s: Summary) => s.costUsdPerMillionEvents.total,
  },
  cpu: {
    label: 'handler CPU ms per 1,000 events',
    unit: 'ms',
    digits: 0,
    of: (s: Summary) => s.cpuMsPerThousandEvents,
  },
};

/** [metric, workload, queue, ≥ or ≤, times the baseline]: the goal's id is `metric-workload-queue`. */
export const RATIO_GOALS: [keyof typeof METRICS, WorkloadName, QueueKind, '≥' | '≤', number][] = [
  ['throughput', 'default', 'standard', '≥', 2],
  ['requests', 'default', 'standard', '≤', 0.5],
  ['wcu', 'default', 'standard', '≤', 1],
  ['cost', 'default', 'standard', '≤', 1],
  ['cpu', 'default', 'standard', '≤', 1],
  ['throughput', 'default', 'fifo', '≥', 2],
  ['requests', 'default', 'fifo', '≤', 0.5],
  ['wcu', 'default', 'fifo', '≤', 1],
  ['cpu', 'default', 'fifo', '≤', 1],
  ['throughput', 'hot', 'standard', '≥', 2],
  ['wcu', 'hot', 'standard', '≤', 1],
  ['throughput', 'hot', 'fifo', '≥', 3],
];
/** Module init of the deployed bundle minus the bare DynamoDB client's, ms. */
export const INIT_OVERHEAD_TARGET_MS = 10;

const ratioGoal = (
  [metric, workload, queue, cmp, times]: (typeof RATIO_GOALS)[number],
  report: Measurements,
): Goal => {
  const { label, unit, digits, of } = METRICS[metric];
  const ours = of(report.throughput[workload][queue].ours);
  const baseline = of(report.throughput[workload][queue].baseline);
  return {
    id: `${metric}-${workload}-${queue}`,
    description: `${workload}, ${queue}: ${label} ${cmp} ${times}× the baseline's`,
    target: `${cmp} ${num(times)}×`,
    measured: `${num(ours, digits)} vs ${num(baseline, digits)} ${unit} = ${ratio(ours, baseline)}`,
    met: cmp === '≥' ? ours >= times * baseline : ours <= times * baseline,
  };
};

const crashGoal = (report: Measurements): Goal => {
  const side = (implementation: ImplementationName) => {
    const total = (pick: (row: CrashRow) => number) =>
      crashTotal(report.crash, pick, { implementation });
    return {
      text: `${implementation} ${total((r) => r.doubleApplied)} double / ${total((r) => r.lost)} lost (${total((r) => r.crashes)} crashes)`,
      wrong: total((r) => r.doubleApplied + r.lost + r.misapplied + r.cellsWrong + r.unattributed),
      crashes: total((r) => r.crashes),
    };
  };
  const [ours, baseline] = [side('ours'), side('baseline')];
  return {
    id: 'crash-correctness',
    description:
      'ours: 0 double-applied and 0 lost charges under crash injection (all crash runs, both workloads)',
    target: '0 / 0',
    measured: `${ours.text}; ${baseline.text}`,
    // Runs where nothing crashed prove nothing.
    met: ours.wrong === 0 && ours.crashes > 0,
  };
};

const initGoal = ({ init }: Measurements): Goal => {
  const deployed = deployedOf(init, 'ours');
  const overhead = deployed.initMs - init.bareClient.initMs;
  return {
    id: 'init-overhead',
    description: `module init minus the bare DynamoDB client's, deployed shape (${shapeName(init.deployed)}; ${init.runtime}), medians of cold loads ≤ ${INIT_OVERHEAD_TARGET_MS} ms`,
    target: `≤ ${INIT_OVERHEAD_TARGET_MS} ms`,
    measured: `${num(overhead, 1)} ms: ${num(deployed.initMs, 1)} − ${num(init.bareClient.initMs, 1)} ms wall (CPU ${num(deployed.initCpuMs - init.bareClient.initCpuMs, 1)} ms; Node ${init.node})`,
    met: overhead <= INIT_OVERHEAD_TARGET_MS,
  };
};

export const computeGoals = (report: Measurements): Goal[] => [
  crashGoal(report),
  ...RATIO_GOALS.map((goal) => ratioGoal(goal, report)),
  initGoal(report),
];

// ---- latest.md ----------------------------------------------------------------------------------

/** The rows of each workload's table: label, figure, digits. */
const FIGURES: [string, (s: Summary) => number, number][] = [
  ['handler CPU ms / 1,000 events', (s) => s.cpuMsPerThousandEvents, 0],
  ['DynamoDB requests / event', (s) => s.requestsPerEvent, 3],
  ['WCU / event (billed model)', (s) => s.wcuPerEvent.billed, 3],
  ['  lower bound: cancelled transactions free', (s) => s.wcuPerEvent.billedLow, 3],
  ['WCU / event (reported by DynamoDB Local)', (s) => s.wcuPerEvent.reported, 3],
  ['RCU / event (billed model)', (s) => s.rcuPerEvent.billed, 3],
  ['RCU / event (reported by DynamoDB Local)', (s) => s.rcuPerEvent.reported, 3],
  ['on-demand $ / million events', (s) => s.costUsdPerMillionEvents.total, 3],
  [
    'failed conditional writes / 1k events',
    (s) => perThousand(s.failedConditionalWrites, s.events),
    1,
  ],
  [
    'cancelled transactions (each retried) / 1k events',
    (s) => perThousand(s.cancelledTransactions, s.events),
    1,
  ],
  [
    '  of which contention only / 1k events',
    (s) => perThousand(s.contendedTransactions, s.events),
    1,
  ],
  [
    '  their billed WCU / event (billed model)',
    (s) => s.wcuPerEvent.billed - s.wcuPerEvent.billedLow,
    3,
  ],
  ['redelivered records / 1k events', (s) => perThousand(s.redeliveredRecords, s.events), 1],
  [
    'double-applied + lost, fault-free',
    (s) =>
      s.faultFree.doubleApplied +
      s.faultFree.lost +
      s.faultFree.misapplied +
      s.faultFree.cellsWrong,
    0,
  ],
];

const workloadSection = (report: Report, workload: WorkloadName): string[] => {
  const t = report.throughput[workload];
  const c = report.config.workloads[workload];
  const sides = QUEUES.flatMap((q) => [t[q].ours, t[q].baseline]);
  const operations = [
    ...new Set(sides.flatMap((s) => Object.keys(s.requestsPerEventByOperation))),
  ].sort();
  const rows: [string, (s: Summary) => number, number][] = [
    [`events/s (median of ${c.repetitions})`, (s) => s.eventsPerSecond, 0],
    ...FIGURES.slice(0, 2),
    ...operations.map((op): [string, (s: Summary) => number, number] => [
      `  ${op} / event`,
      (s) => s.requestsPerEventByOperation[op] ?? 0,
      3,
    ]),
    ...FIGURES.slice(2),
  ];
  const underCrashes = (queue: QueueKind, implementation: ImplementationName) => {
    const total = (pick: (r: CrashRow) => number) =>
      crashTotal(report.crash, pick, { workload, queue, implementation });
    return `${total((r) => r.doubleApplied)} / ${total((r) => r.lost)} (${total((r) => r.crashes)})`;
  };
  const reasons = QUEUES.flatMap((q) => {
    const found = Object.entries(t[q].ours.cancellationReasons);
    return found.length
      ? [`${q}: ${found.map(([reason, n]) => `${reason} ${num(n, 0)}`).join(', ')}`]
      : [];
  });
  return [
    `### ${workload} workload: ${c.events.toLocaleString('en-US')} events per implementation and queue kind (${c.repetitions} × ${c.eventsPerRepetition.toLocaleString('en-US')}), ${c.tenants * c.accountsPerTenant} account(s), ${c.consumers} consumers`,
    '',
    ...table(
      ['', ...QUEUES.flatMap((q) => [`ours (${q})`, `baseline (${q})`, 'ours / baseline'])],
      [
        ...rows.map(([label, of, digits]) => [
          label,
          ...QUEUES.flatMap((q) => [
            num(of(t[q].ours), digits),
            num(of(t[q].baseline), digits),
            ratio(of(t[q].ours), of(t[q].baseline)),
          ]),
        ]),
        [
          'under crashes: double-applied / lost (crashes)',
          ...QUEUES.flatMap((q) => [underCrashes(q, 'ours'), underCrashes(q, 'baseline'), '']),
        ],
      ],
    ),
    ...(reasons.length
      ? [`Ours, cancelled transactions by reason (item that refused): ${reasons.join('; ')}.`, '']
      : []),
  ];
};

export const renderMarkdown = (report: Report): string => {
  const { config, init, machine } = report;
  const { pricing } = config;
  const lines = [
    `## Ours vs Powertools baseline — ${report.generatedAt.slice(0, 10)}`,
    '',
    `Batches of ${config.batchSize}; ${config.workload.duplicateShare * 100}% duplicate deliveries, ${config.workload.restatementShare * 100}% restatements, ${config.workload.poisonShare * 100}% poison; fresh tables per repetition; DynamoDB Local; ${config.feed}; DLQ: ${config.dlq}. ` +
      `Prices: DynamoDB on-demand ${pricing.region}, $${pricing.writeRequestUnitUsdPerMillion}/M write units, $${pricing.readRequestUnitUsdPerMillion}/M read units (${pricing.asOf}; ${pricing.source}), storage not included. ` +
      'Handler CPU: user + system CPU of the process running the handlers while an invocation was in flight (SDK, metering and queue model included, the same for both).',
    '',
    ...WORKLOADS.flatMap((workload) => workloadSection(report, workload)),
    '### Crash injection',
    '',
    `Lease (Lambda remaining time) ${config.leaseMs} ms; a crashed batch comes back after ${config.crashRedeliveryMs} ms. ` +
      '`ack-lost`: every effect happened, the response is lost, the batch is redelivered. `mid-batch`: the process dies right after the k-th successful DynamoDB write of the invocation (k uniform), the batch is redelivered.',
    '',
    ...table(
      [
        'workload',
        'queue',
        'crash',
        'rate',
        'implementation',
        'events',
        'crashes',
        'double',
        'lost',
        'misapplied',
        'money error',
      ],
      report.crash.map((r) => [
        r.workload,
        r.queue,
        r.mode,
        `${r.rate * 100}%`,
        r.implementation,
        String(r.events),
        String(r.crashes),
        String(r.doubleApplied),
        String(r.lost),
        String(r.misapplied + r.unattributed),
        r.moneyError,
      ]),
    ),
    '### Cold start: bundle and module init',
    '',
    `Each bundle built with the construct's esbuild settings, loaded ${init.samples} times in a fresh \`node\` (${init.node}; runtime ${init.runtime}) with NODE_OPTIONS=\`${init.nodeOptions}\`. Medians, ms.`,
    '',
    ...table(
      [
        'shape',
        'ours: bytes',
        'ours: init (wall)',
        'ours: init (CPU)',
        'baseline: bytes',
        'baseline: init (wall)',
        'baseline: init (CPU)',
      ],
      [
        ...init.handlers.ours.shapes.map((shape, index) => {
          const b = init.handlers.baseline.shapes[index];
          return [
            `${shapeName(shape)}${sameShape(shape, init.deployed) ? ' (deployed)' : ''}`,
            num(shape.bytes, 0),
            num(shape.initMs, 1),
            num(shape.initCpuMs, 1),
            ...(b ? [num(b.bytes, 0), num(b.initMs, 1), num(b.initCpuMs, 1)] : ['–', '–', '–']),
          ];
        }),
        [
          `the DynamoDB client alone (${shapeName(init.deployed)})`,
          num(init.bareClient.bytes, 0),
          num(init.bareClient.initMs, 1),
          num(init.bareClient.initCpuMs, 1),
          '',
          '',
          '',
        ],
      ],
    ),
    '### Goals',
    '',
    ...goalsTable(report.goals),
    `Machine: ${machine.cpuModel}, ${machine.nproc} cores (nproc), ${machine.memory} RAM, Node ${machine.node}, ${machine.platform}. Command: \`${report.command}\` (${num(report.durationSeconds, 0)} s).`,
  ];
  return `${lines.join('\n')}\n`;
};

export const goalsTable = (goals: Goal[]): string[] =>
  table(
    ['goal', 'target', 'measured', 'met'],
    goals.map((g) => [g.description, g.target, g.measured, g.met ? '✅ yes' : '❌ no']),
    false,
  );
