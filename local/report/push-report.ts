/**
 * The report's `push` section: what the local run sent to the push endpoint and how each request was
 * answered — accepted, replayed (the ingest API's `Idempotent-Replayed`), conflicts (409), refused by
 * reason, throttled (429s later accepted) — and the verdict's `push` check: every final answer is the
 * one the sample expects. Whether the accepted requests made one notification per alert and one charge
 * per event, and the refused ones nothing, is the `notifications` and `ledger` checks' business.
 */
import type { Check } from './run-report';

export interface PushRequestOutcome {
  readonly name: string;
  readonly route: 'pubsub' | 'azure' | 'ingest' | 'iam';
  /** The final answer's status. */
  readonly status: number;
  /** A refusal's `error`. */
  readonly reason?: string;
  readonly replayed?: true;
  /** 429 answers before the final one (each retried after its Retry-After). */
  readonly throttled: number;
  /** 5xx answers before the final one (retried). */
  readonly serverErrors: number;
  readonly expected: number;
  readonly expectedReason?: string;
  readonly ok: boolean;
  /** An accepted alert whose key depends on when it was received (Azure AIP budget alert). */
  readonly alertKey?: string;
}

export interface PushRouteCounts {
  /** 2xx, first time (published). */
  accepted: number;
  /** 200 with `Idempotent-Replayed: true`: nothing published. */
  replayed: number;
  /** 409 `key-reused`. */
  conflicts: number;
  /** 401/403/400/413 by `error`. */
  refused: Record<string, number>;
  /** 429 answers (the requests were sent again and are counted by their final answer). */
  throttled: number;
}

export interface PushRunReport {
  readonly requests: number;
  readonly byRoute: Record<string, PushRouteCounts>;
  readonly outcomes: readonly PushRequestOutcome[];
}

const emptyCounts = (): PushRouteCounts => ({
  accepted: 0,
  replayed: 0,
  conflicts: 0,
  refused: {},
  throttled: 0,
});

export const summarizePushRun = (outcomes: readonly PushRequestOutcome[]): PushRunReport => {
  const byRoute: Record<string, PushRouteCounts> = {};
  for (const outcome of outcomes) {
    const counts = (byRoute[outcome.route] ??= emptyCounts());
    counts.throttled += outcome.throttled;
    if (outcome.status >= 200 && outcome.status < 300) {
      if (outcome.replayed) counts.replayed++;
      else counts.accepted++;
    } else if (outcome.status === 409) counts.conflicts++;
    else {
      const reason = outcome.reason ?? String(outcome.status);
      counts.refused[reason] = (counts.refused[reason] ?? 0) + 1;
    }
  }
  return { requests: outcomes.length, byRoute, outcomes };
};

/** Every final answer is the expected one, and the burst met the rate limit at least once. */
export const pushCheck = (report: PushRunReport, expectThrottling: boolean): Check => {
  const wrong = report.outcomes.filter((outcome) => !outcome.ok);
  const throttled = Object.values(report.byRoute).reduce((sum, c) => sum + c.throttled, 0);
  const problems = [
    ...wrong
      .slice(0, 5)
      .map(
        (o) =>
          `${o.name}: ${o.status}${o.reason ? ` ${o.reason}` : ''}, expected ${o.expected}${o.expectedReason ? ` ${o.expectedReason}` : ''}`,
      ),
    ...(wrong.length > 5 ? [`… ${wrong.length - 5} more`] : []),
    ...(expectThrottling && throttled === 0 ? ['the burst was never answered 429'] : []),
  ];
  const ingest = report.byRoute.ingest ?? emptyCounts();
  return {
    name: 'push',
    ok: problems.length === 0,
    detail:
      problems.length > 0
        ? problems.join('; ')
        : `${report.requests} requests answered as expected: ${Object.entries(report.byRoute)
            .map(
              ([route, c]) =>
                `${route} ${c.accepted} accepted, ${c.replayed} replayed, ${c.conflicts} conflicts, ${Object.values(c.refused).reduce((a, b) => a + b, 0)} refused`,
            )
            .join('; ')}; ${ingest.throttled} answered 429 and accepted on retry`,
  };
};

/** The push section of the text summary: counts per route, then every refused or conflicting request. */
export const pushSummaryLines = (report: PushRunReport): string[] => [
  `push endpoint: ${report.requests} requests`,
  ...Object.entries(report.byRoute).map(
    ([route, c]) =>
      `  ${route.padEnd(7)} accepted ${c.accepted}, replayed ${c.replayed}, conflicts ${c.conflicts}, throttled (429, then accepted) ${c.throttled}, refused ${
        Object.entries(c.refused)
          .map(([reason, n]) => `${reason} ${n}`)
          .join(', ') || 'none'
      }`,
  ),
];
