/**
 * `npm run bench [-- --events 20000 --hot-events 6000 --reps 5 --crash-events 1000 --consumers 4 --seed N --out dir]`
 * `npm run bench -- --sections exports [--export-rows 1000000 --export-stream-events 20000
 *   --export-scale-rows 1000000 --export-scale-account-currencies 100000]`
 *
 * Ours (lambda/handlers/cost-ledger.ts) vs the Powertools baseline (bench/baseline/), side by side in one
 * run against one DynamoDB Local that this script starts and stops. Writes latest.json and latest.md
 * (and exports.json, exports.md) under bench/results/ (or --out). See docs/benchmarks.md for the method.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs as parseFlags } from 'node:util';
import { measureInit, ROOT } from './lib/bundle';
import { EXPORTS_DEFAULTS, runExportsBench } from './lib/exports-bench';
import {
  computeExportGoals,
  renderExportsMarkdown,
  type ExportsReport,
} from './lib/exports-report';
import {
  runImplementation,
  type ImplementationName,
  type QueueKind,
  type RunOptions,
  type RunResult,
} from './lib/harness';
import {
  computeGoals,
  crashRow,
  PRICING,
  QUEUES,
  renderMarkdown,
  REPORT_SCHEMA,
  summarize,
  WORKLOADS,
  type CrashRow,
  type Measurements,
  type Report,
  type WorkloadName,
} from './lib/report';
import {
  benchCommand,
  benchLogger,
  quietHandlers,
  withDynamoDb,
  writeJsonAndMarkdown,
} from './lib/session';
import {
  DEFAULT_WORKLOAD,
  generateWorkload,
  HOT_WORKLOAD,
  type WorkloadOptions,
} from './lib/workload';

export interface BenchOptions {
  events: number;
  /** Events of the hot-account workload per implementation and queue kind. */
  hotEvents: number;
  reps: number;
  crashEvents: number;
  crashRates: number[];
  consumers: number;
  /** Concurrent execution environments on the hot-account workload. */
  hotConsumers: number;
  seed: number;
  out: string;
  initSamples: number;
  /** The `node` binary that loads the bundles for the init figures (the runtime's major version). */
  initNode?: string;
  quiet: boolean;
  /** Use this DynamoDB endpoint instead of starting (and stopping) a DynamoDB Local. */
  endpoint?: string;
  /** `stream` (ours vs the Powertools baseline) and/or `exports` (billing export files). */
  sections?: BenchSection[];
  exportRows?: number;
  exportStreamEvents?: number;
  /** The exports section's scale case: rows and account-currencies of its export. */
  exportScaleRows?: number;
  exportScaleAccountCurrencies?: number;
}

export type BenchSection = 'stream' | 'exports';
const SECTIONS: BenchSection[] = ['stream', 'exports'];

export const DEFAULTS: BenchOptions = {
  events: 20_000,
  hotEvents: 6_000,
  reps: 5,
  crashEvents: 1_000,
  crashRates: [0.005, 0.05],
  consumers: 4,
  hotConsumers: 16,
  seed: DEFAULT_WORKLOAD.seed,
  out: path.join(ROOT, 'bench', 'results'),
  initSamples: 20,
  quiet: false,
  sections: SECTIONS,
  exportRows: EXPORTS_DEFAULTS.rows,
  exportStreamEvents: EXPORTS_DEFAULTS.streamEvents,
  exportScaleRows: EXPORTS_DEFAULTS.scaleRows,
  exportScaleAccountCurrencies: EXPORTS_DEFAULTS.scaleAccountCurrencies,
};

/** The flags that take a positive integer, and the option each sets. */
const INTEGER_FLAGS = {
  events: 'events',
  'hot-events': 'hotEvents',
  'hot-consumers': 'hotConsumers',
  reps: 'reps',
  'crash-events': 'crashEvents',
  consumers: 'consumers',
  seed: 'seed',
  'init-samples': 'initSamples',
  'export-rows': 'exportRows',
  'export-stream-events': 'exportStreamEvents',
  'export-scale-rows': 'exportScaleRows',
  'export-scale-account-currencies': 'exportScaleAccountCurrencies',
} as const;
const TEXT_FLAGS = ['crash-rates', 'out', 'endpoint', 'init-node', 'sections'] as const;

export const parseArgs = (argv: string[]): BenchOptions => {
  const { values } = parseFlags({
    args: argv,
    options: {
      ...Object.fromEntries(
        [...Object.keys(INTEGER_FLAGS), ...TEXT_FLAGS].map((flag) => [flag, { type: 'string' }]),
      ),
      quiet: { type: 'boolean' },
    },
  });
  const flag = (name: string) => (values as Record<string, string | undefined>)[name];
  const options = { ...DEFAULTS, quiet: values.quiet ?? false };
  for (const [name, key] of Object.entries(INTEGER_FLAGS)) {
    if (flag(name) === undefined) continue;
    const n = Number(flag(name));
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    options[key] = n;
  }
  options.crashRates = flag('crash-rates')?.split(',').map(Number) ?? options.crashRates;
  options.out = path.resolve(flag('out') ?? options.out);
  options.endpoint = flag('endpoint') ?? options.endpoint;
  options.initNode = flag('init-node') ?? options.initNode;
  const sections = flag('sections')?.split(',') ?? SECTIONS;
  const unknown = sections.filter((s) => !SECTIONS.includes(s as BenchSection));
  if (unknown.length > 0)
    throw new Error(`--sections takes ${SECTIONS.join(',')} (not ${unknown.join(',')})`);
  options.sections = sections as BenchSection[];
  return options;
};

const machine = () => {
  const cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ??
    os.cpus()[0]?.model ??
    'unknown';
  let nproc = os.availableParallelism?.() ?? os.cpus().length;
  let memory = `${Math.round(os.totalmem() / 2 ** 30)}Gi`;
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
    memory = /Mem:\s+(\S+)/.exec(execFileSync('free', ['-h'], { encoding: 'utf8' }))?.[1] ?? memory;
  } catch {
    // not Linux: keep the os module's figures
  }
  return {
    nproc,
    memory,
    cpuModel,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
};

/** Rare crash rates get longer runs (up to 3×) so that some crashes actually happen. */
export const crashEventsFor = (crashEvents: number, rate: number): number =>
  Math.round(crashEvents * Math.min(3, Math.max(1, 0.05 / rate)));
const IMPLEMENTATIONS: ImplementationName[] = ['ours', 'baseline'];
/** The consumers' Lambda timeout in the default configuration: the remaining time of a fault-free run. */
const FUNCTION_TIMEOUT_MS = 30_000;
const TIMING = {
  // Crash runs: a compressed timeout, so that a crashed batch comes back after the lease has expired.
  leaseMs: 1000,
  retryDelayMs: 250,
  crashRedeliveryMs: 1200,
  maxReceives: 25,
  batchSize: 10,
};

const WORKLOAD_PRESETS: Record<WorkloadName, Omit<WorkloadOptions, 'events'>> = {
  default: DEFAULT_WORKLOAD,
  hot: HOT_WORKLOAD,
};
type Runs = Record<QueueKind, Record<ImplementationName, RunResult[]>>;
const noRuns = (): Runs => ({
  standard: { ours: [], baseline: [] },
  fifo: { ours: [], baseline: [] },
});

/** Mean DynamoDB writes per invocation over fault-free runs: the range of a mid-batch crash point. */
const writesPerInvocationOf = (clean: RunResult[]): number =>
  clean.reduce((n, r) => n + r.writesPerInvocation * r.invocations, 0) /
  Math.max(
    1,
    clean.reduce((n, r) => n + r.invocations, 0),
  );

export const runBench = async (options: BenchOptions): Promise<Report> => {
  const began = Date.now();
  const log = benchLogger('bench', options.quiet, began);
  quietHandlers();
  const sizes: Record<WorkloadName, { events: number; consumers: number }> = {
    default: { events: options.events, consumers: options.consumers },
    hot: { events: options.hotEvents, consumers: options.hotConsumers },
  };
  const perRepetition = (workload: WorkloadName) =>
    Math.max(1, Math.floor(sizes[workload].events / options.reps));
  const workloadOf = (workload: WorkloadName, events: number, seed: number) =>
    generateWorkload({ ...WORKLOAD_PRESETS[workload], events, seed });

  log(`bundles and ${options.initSamples} cold loads of each shape`);
  const init = await measureInit(options.initSamples, options.initNode);

  return withDynamoDb(options.endpoint, log, async (endpoint) => {
    const run = (
      workload: WorkloadName,
      overrides: Partial<RunOptions> & Pick<RunOptions, 'implementation' | 'queue' | 'workload'>,
    ) =>
      runImplementation({
        endpoint,
        consumers: sizes[workload].consumers,
        ...TIMING,
        ...overrides,
      });

    // Fault-free runs get the real timeout: with a compressed one, invocations slowed down by a busy
    // machine would outlive the Powertools in-progress lease and the baseline would double-apply.
    const clean = { leaseMs: FUNCTION_TIMEOUT_MS };
    log('warm-up (JIT, DynamoDB Local), not measured');
    for (const workload of WORKLOADS) {
      const warmup = workloadOf(
        workload,
        Math.min(400, perRepetition(workload)),
        options.seed + 999,
      );
      for (const queue of QUEUES)
        for (const implementation of IMPLEMENTATIONS)
          await run(workload, { implementation, queue, workload: warmup, ...clean });
    }

    const runs: Record<WorkloadName, Runs> = { default: noRuns(), hot: noRuns() };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const workload of WORKLOADS) {
        const deliveries = workloadOf(workload, perRepetition(workload), options.seed + rep);
        for (const queue of QUEUES) {
          // Alternate who goes first so slow drift on a shared machine does not favour one side.
          const order = rep % 2 === 0 ? IMPLEMENTATIONS : [...IMPLEMENTATIONS].reverse();
          for (const implementation of order) {
            const result = await run(workload, {
              implementation,
              queue,
              workload: deliveries,
              ...clean,
            });
            runs[workload][queue][implementation].push(result);
            log(
              `rep ${rep + 1}/${options.reps} ${workload.padEnd(7)} ${queue.padEnd(8)} ${implementation.padEnd(8)} ${result.eventsPerSecond.toFixed(0).padStart(5)} events/s, ${(result.totalRequests / result.events).toFixed(3)} req/event, ${result.cancelledTransactions} cancelled`,
            );
          }
        }
      }
    }

    const crash: CrashRow[] = [];
    // The hot account crashes at the highest rate only: its point is contention plus crashes.
    const crashPlans: { workload: WorkloadName; rate: number }[] = [
      ...options.crashRates.map((rate) => ({ workload: 'default' as const, rate })),
      { workload: 'hot', rate: Math.max(...options.crashRates) },
    ];
    for (const { workload, rate } of crashPlans) {
      const crashWorkload = workloadOf(
        workload,
        crashEventsFor(options.crashEvents, rate),
        options.seed + 777,
      );
      for (const mode of ['ack-lost', 'mid-batch'] as const) {
        for (const queue of QUEUES) {
          for (const implementation of IMPLEMENTATIONS) {
            const result = await run(workload, {
              implementation,
              queue,
              workload: crashWorkload,
              crash: {
                mode,
                rate,
                writesPerInvocation: writesPerInvocationOf(runs[workload][queue][implementation]),
                // Same crash schedule for both implementations; a different one per rate, mode and queue.
                seed:
                  options.seed +
                  Math.round(rate * 1e4) * 10 +
                  (mode === 'mid-batch' ? 2 : 0) +
                  (queue === 'fifo' ? 1 : 0),
              },
            });
            crash.push(crashRow(result, workload, mode, rate));
            log(
              `crash ${workload.padEnd(7)} ${mode.padEnd(9)} ${(rate * 100).toFixed(1)}% ${queue.padEnd(8)} ${implementation.padEnd(8)} crashes ${result.crashes}, double ${result.correctness.doubleApplied}, lost ${result.correctness.lost}`,
            );
          }
        }
      }
    }

    const workloadConfig = (workload: WorkloadName) => {
      const preset = WORKLOAD_PRESETS[workload];
      return {
        events: perRepetition(workload) * options.reps,
        repetitions: options.reps,
        eventsPerRepetition: perRepetition(workload),
        consumers: sizes[workload].consumers,
        tenants: preset.hotAccount ? 1 : preset.tenants,
        accountsPerTenant: preset.hotAccount ? 1 : preset.accountsPerTenant,
      };
    };
    const figures = (workload: WorkloadName) => ({
      standard: {
        ours: summarize(runs[workload].standard.ours),
        baseline: summarize(runs[workload].standard.baseline),
      },
      fifo: {
        ours: summarize(runs[workload].fifo.ours),
        baseline: summarize(runs[workload].fifo.baseline),
      },
    });
    const partial: Measurements = {
      schema: REPORT_SCHEMA,
      generatedAt: new Date().toISOString(),
      command: benchCommand(),
      durationSeconds: 0,
      machine: machine(),
      config: {
        workloads: { default: workloadConfig('default'), hot: workloadConfig('hot') },
        batchSize: TIMING.batchSize,
        crashEvents: options.crashEvents,
        crashRates: options.crashRates,
        leaseMs: TIMING.leaseMs,
        cleanLeaseMs: FUNCTION_TIMEOUT_MS,
        retryDelayMs: TIMING.retryDelayMs,
        crashRedeliveryMs: TIMING.crashRedeliveryMs,
        seed: options.seed,
        workload: {
          duplicateShare: DEFAULT_WORKLOAD.duplicateShare,
          restatementShare: DEFAULT_WORKLOAD.restatementShare,
          poisonShare: DEFAULT_WORKLOAD.poisonShare,
        },
        dlq: 'counting stub (SQS client middleware answers SendMessage in-process)',
        feed: 'batches fed directly to the handlers (no SQS in the loop; an in-memory queue model redelivers unacknowledged records)',
        pricing: PRICING,
      },
      throughput: { default: figures('default'), hot: figures('hot') },
      crash,
      init,
    };
    partial.durationSeconds = (Date.now() - began) / 1000;
    const report: Report = { ...partial, goals: computeGoals(partial) };
    await writeJsonAndMarkdown(options.out, 'latest', report, renderMarkdown(report));
    log(`wrote ${path.relative(process.cwd(), options.out) || '.'}/latest.{json,md}`);
    return report;
  });
};

/**
 * The exports section: a generated FOCUS export of `exportRows` rows through planner and chunk workers
 * on DynamoDB Local and the S3 emulator (bench/lib/exports-bench.ts). Writes exports.json and
 * exports.md under `out`; a snapshot that differs from the ground truth fails the run.
 */
export const runExportsSection = async (options: BenchOptions): Promise<ExportsReport> => {
  const began = Date.now();
  const log = benchLogger('bench exports', options.quiet, began);
  quietHandlers();
  return withDynamoDb(options.endpoint, log, async (dynamoEndpoint) => {
    const rows = options.exportRows ?? EXPORTS_DEFAULTS.rows;
    const measured = await runExportsBench({
      ...EXPORTS_DEFAULTS,
      rows,
      // About 40 bad rows in a small run, every 10,000th row in the full one.
      badRowEvery: Math.max(2, Math.min(EXPORTS_DEFAULTS.badRowEvery, Math.floor(rows / 40))),
      streamEvents: options.exportStreamEvents ?? EXPORTS_DEFAULTS.streamEvents,
      scaleRows: options.exportScaleRows ?? EXPORTS_DEFAULTS.scaleRows,
      scaleAccountCurrencies:
        options.exportScaleAccountCurrencies ?? EXPORTS_DEFAULTS.scaleAccountCurrencies,
      seed: options.seed,
      dynamoEndpoint,
      log,
    });
    const partial = {
      ...measured,
      generatedAt: new Date().toISOString(),
      command: benchCommand(),
      durationSeconds: (Date.now() - began) / 1000,
      machine: machine(),
    };
    const report: ExportsReport = { ...partial, goals: computeExportGoals(partial) };
    await writeJsonAndMarkdown(options.out, 'exports', report, renderExportsMarkdown(report));
    log(`wrote ${path.relative(process.cwd(), options.out) || '.'}/exports.{json,md}`);
    return report;
  });
};

const main = async (options: BenchOptions): Promise<string> => {
  const rendered: string[] = [];
  const sections = options.sections ?? SECTIONS;
  if (sections.includes('stream')) rendered.push(renderMarkdown(await runBench(options)));
  if (sections.includes('exports'))
    rendered.push(renderExportsMarkdown(await runExportsSection(options)));
  return rendered.join('\n');
};

if (require.main === module) {
  main(parseArgs(process.argv.slice(2)))
    .then((markdown) => {
      process.stdout.write(markdown);
      process.exit(0);
    })
    .catch((error) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    });
}
