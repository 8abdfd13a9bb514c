/**
 * Where our lost races come from: one fault-free run of ours on the hot-account standard queue (same
 * harness, meter and workload as `bench/run.ts`, after a warm-up), every request traced
 * (`requestTrace` in `lib/meter.ts`). For each charge that lost its race it prints when the winning
 * transaction completed, against the loser's pre-read and send; and which attempt each cancelled
 * transaction was. Writes nothing under bench/results/.
 *
 *   npx tsx bench/race-trace.ts [--events 1200] [--workload hot|default]
 */
import { runImplementation } from './lib/harness';
import { requestTrace, type TraceEntry } from './lib/meter';
import { quietHandlers, withDynamoDb } from './lib/session';
import { DEFAULT_WORKLOAD, HOT_WORKLOAD, generateWorkload } from './lib/workload';

const flag = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const events = Number(flag('events', '1200'));
const hot = flag('workload', 'hot') === 'hot';
const preset = hot ? HOT_WORKLOAD : DEFAULT_WORKLOAD;

const percentiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return sorted.length === 0 ? {} : { p10: at(0.1), p50: at(0.5), p90: at(0.9) };
};

/** What came before a cancelled transaction in its environment: its pre-read, or a cancelled try. */
const attemptOf = (previous: TraceEntry | undefined): string => {
  if (previous?.operation === 'BatchGetItem') return 'first, right after the pre-read';
  if (previous?.operation === 'TransactWriteItems' && !previous.ok)
    return 'retry after a cancellation';
  if (previous?.operation === 'PutItem') return 'after leases';
  return `after ${previous?.operation ?? 'nothing'}`;
};

quietHandlers();
void withDynamoDb(
  undefined,
  () => undefined,
  async (endpoint) => {
    const run = (size: number, seed: number) =>
      runImplementation({
        endpoint,
        consumers: hot ? 16 : 4,
        leaseMs: 30_000,
        retryDelayMs: 250,
        crashRedeliveryMs: 1_200,
        maxReceives: 25,
        batchSize: 10,
        implementation: 'ours',
        queue: 'standard',
        workload: generateWorkload({ ...preset, events: size, seed }),
      });
    await run(300, preset.seed + 999);
    requestTrace.enabled = true;
    const result = await run(events, preset.seed);
    requestTrace.enabled = false;
    const entries = requestTrace.entries;
    const committedAt = new Map<string, number>();
    for (const entry of entries)
      if (entry.operation === 'TransactWriteItems' && entry.ok)
        for (const key of entry.charges)
          committedAt.set(key, Math.min(committedAt.get(key) ?? Infinity, entry.doneAt));
    const byEnvironment = new Map<object, TraceEntry[]>();
    for (const entry of entries)
      byEnvironment.set(entry.environment, [
        ...(byEnvironment.get(entry.environment) ?? []),
        entry,
      ]);
    const winners: Record<string, number> = {};
    const attempts: Record<string, number> = {};
    for (const own of byEnvironment.values()) {
      own.sort((a, b) => a.sentAt - b.sentAt);
      let preRead: TraceEntry | undefined;
      own.forEach((entry, index) => {
        if (entry.operation === 'BatchGetItem') preRead = entry;
        if (entry.operation !== 'TransactWriteItems' || entry.ok || entry.losers.length === 0)
          return;
        const attempt = attemptOf(own[index - 1]);
        attempts[attempt] = (attempts[attempt] ?? 0) + 1;
        for (const key of entry.losers) {
          const at = committedAt.get(key);
          const when =
            at === undefined
              ? 'winner not seen (a restatement or void)'
              : at < (preRead?.sentAt ?? -Infinity)
                ? 'committed before our pre-read'
                : at < entry.sentAt
                  ? 'committed between our pre-read and our send'
                  : 'in flight with ours (committed after our send)';
          winners[when] = (winners[when] ?? 0) + 1;
        }
      });
    }
    const transactions = entries.filter((entry) => entry.operation === 'TransactWriteItems');
    console.log(
      JSON.stringify(
        {
          workload: hot ? 'hot' : 'default',
          events,
          eventsPerSecond: Math.round(result.eventsPerSecond),
          billedWcuPerEvent: Number((result.billedWcu / events).toFixed(3)),
          cancelledTransactions: result.cancelledTransactions,
          redeliveredRecords: result.receives - events,
          requests: result.requests,
          losingChargesByWhenTheWinnerCommitted: winners,
          lostRacesByAttempt: attempts,
          transactionMs: percentiles(transactions.map((entry) => entry.doneAt - entry.sentAt)),
        },
        null,
        2,
      ),
    );
  },
);
