/**
 * The one back-off between attempts in lambda/ (adapters reach it through `adapters/dynamo-kit/backoff.ts`): full jitter over `baseMs · 2^attempt`, at most `capMs`, and —
 * when the caller knows its invocation's remaining time — never past that time less `reserveMs`
 * (then the pause is as long as fits, possibly none, and the caller's attempt limit ends the loop).
 */
export type Backoff = (attempt: number) => Promise<void>;

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  /** The invocation's remaining time (Lambda `context.getRemainingTimeInMillis`). */
  remainingMs?: () => number;
  /** Time kept for the work after the pause (default 1 s). */
  reserveMs?: number;
  /** Injected by tests: a number in [0, 1). */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_RESERVE_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest pause of `attempt` (0-based) within the cap and the remaining time. */
export const pauseCeilingMs = (attempt: number, options: BackoffOptions): number => {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** attempt);
  if (!options.remainingMs) return ceiling;
  const left = options.remainingMs() - (options.reserveMs ?? DEFAULT_RESERVE_MS);
  return Math.max(0, Math.min(ceiling, left));
};

export const jitteredBackoff =
  (options: BackoffOptions): Backoff =>
  async (attempt) => {
    const ms = (options.random ?? Math.random)() * pauseCeilingMs(attempt, options);
    if (ms > 0) await (options.sleep ?? sleep)(ms);
  };
