/**
 * The stream section's standard-queue comparison alone, at a size that fits a quick look: ours vs the
 * Powertools baseline on the default and hot-account workloads (same generator, fault-free, same
 * harness and meter as `bench/run.ts`), one warm-up of each, then `--reps` repetitions taking turns
 * going first. Prints, per workload, the median events/s and the billed write units per event of each
 * side and their ratios, and where our write units go: cancelled transactions per 1,000 events and
 * what they bill. Writes nothing under bench/results/.
 *
 *   npx tsx bench/standard-queue.ts [--events 2000] [--hot-events 1200] [--reps 2] [--only hot]
 */
import { runImplementation, type RunResult } from './lib/harness';
import { median } from './lib/median';
import { quietHandlers, withDynamoDb } from './lib/session';
import { DEFAULT_WORKLOAD, HOT_WORKLOAD, generateWorkload } from './lib/workload';

const flag = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const sizes = { default: Number(flag('events', '2000')), hot: Number(flag('hot-events', '1200')) };
const reps = Number(flag('reps', '2'));
const only = flag('only', '');
const TIMING = {
  leaseMs: 30_000,
  retryDelayMs: 250,
  crashRedeliveryMs: 1_200,
  maxReceives: 25,
  batchSize: 10,
};
const WORKLOADS = [
  { name: 'default', preset: DEFAULT_WORKLOAD, consumers: 4 },
  { name: 'hot', preset: HOT_WORKLOAD, consumers: 16 },
] as const;

const sum = (runs: RunResult[], of: (run: RunResult) => number): number =>
  runs.reduce((total, run) => total + of(run), 0);

const summary = (runs: RunResult[]) => {
  const events = sum(runs, (run) => run.events);
  const round = (value: number) => Number(value.toFixed(3));
  return {
    eventsPerSecond: round(median(runs.map((run) => run.eventsPerSecond))),
    billedWcuPerEvent: round(sum(runs, (run) => run.billedWcu) / events),
    cancelledPerThousandEvents: round(
      (1000 * sum(runs, (run) => run.cancelledTransactions)) / events,
    ),
    cancelledWcuPerEvent: round(sum(runs, (run) => run.cancelledTransactionWcu) / events),
    transactionsPerEvent: round(sum(runs, (run) => run.requests.TransactWriteItems ?? 0) / events),
    requestsPerEvent: round(sum(runs, (run) => run.totalRequests) / events),
    wrong: sum(
      runs,
      (run) => run.correctness.doubleApplied + run.correctness.lost + run.correctness.cellsWrong,
    ),
  };
};

quietHandlers();
void withDynamoDb(
  undefined,
  () => undefined,
  async (endpoint) => {
    for (const { name, preset, consumers } of WORKLOADS) {
      if (only && only !== name) continue;
      const run = (implementation: 'ours' | 'baseline', events: number, seed: number) =>
        runImplementation({
          endpoint,
          consumers,
          ...TIMING,
          implementation,
          queue: 'standard',
          workload: generateWorkload({ ...preset, events, seed }),
        });
      await run('ours', 300, preset.seed + 999);
      await run('baseline', 300, preset.seed + 999);
      const runs = { ours: [] as RunResult[], baseline: [] as RunResult[] };
      for (let rep = 0; rep < reps; rep++) {
        const order =
          rep % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
        for (const implementation of order)
          runs[implementation].push(await run(implementation, sizes[name], preset.seed + rep));
      }
      const [ours, baseline] = [summary(runs.ours), summary(runs.baseline)];
      console.log(
        JSON.stringify({
          workload: name,
          queue: 'standard',
          eventsPerSecondRatio: Number(
            (ours.eventsPerSecond / baseline.eventsPerSecond).toFixed(2),
          ),
          billedWcuRatio: Number((ours.billedWcuPerEvent / baseline.billedWcuPerEvent).toFixed(3)),
          ours,
          baseline,
        }),
      );
    }
  },
);
