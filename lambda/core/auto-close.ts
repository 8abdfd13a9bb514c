/**
 * Which billing periods the scheduled auto-close closes: a `yyyy-mm` period ends at the first instant
 * of the next month (UTC, as AWS bills); it is due `afterDays` whole days later. A period that was ever
 * closed is left alone: closed ones are done, and a reopened one belongs to the operator who reopened it.
 */
import { holdsBillingData, type PartitionItemKind } from './period-close-rule';
import { periodEnd } from './periods';
import type { PeriodKey, PeriodState } from './ports';

const DAY_MS = 86_400_000;

export interface AutoCloseCandidate extends PeriodKey {
  state: PeriodState;
  /** How many times the period was closed so far (0: never). */
  closeCount: number;
}

/** What the candidate scan saw of one account-period: the kinds of item it holds, its PERIOD state. */
export interface ScannedPartition extends AutoCloseCandidate {
  kinds: ReadonlySet<PartitionItemKind>;
}

/**
 * The account-periods up to `latestPeriod` (inclusive) with data of any kind — stream totals, export
 * snapshots or both: the same data rule a close applies (`closeRefusal`).
 */
export const autoCloseCandidates = (
  partitions: Iterable<ScannedPartition>,
  latestPeriod: string,
): AutoCloseCandidate[] =>
  [...partitions]
    .filter((partition) => partition.period <= latestPeriod && holdsBillingData(partition.kinds))
    .map(({ tenant, accountId, period, state, closeCount }) => ({
      tenant,
      accountId,
      period,
      state,
      closeCount,
    }));

export interface AutoClosePlan {
  /** Never closed and due: close these, oldest period first. */
  due: PeriodKey[];
  /** Due, but reopened by an operator: only an operator closes them again. */
  reopened: PeriodKey[];
}

export { periodEnd };

/** Epoch ms from which the period may be auto-closed. */
export const closableFrom = (period: string, afterDays: number): number =>
  periodEnd(period) + afterDays * DAY_MS;

export const isDue = (period: string, now: number, afterDays: number): boolean =>
  now >= closableFrom(period, afterDays);

/** The latest period that is due at `now`: every period up to it (inclusive) is due too. */
export const latestDuePeriod = (now: number, afterDays: number): string => {
  const cutoff = new Date(now - afterDays * DAY_MS);
  // The period before the cutoff's month has ended by the cutoff; the cutoff's own month has not.
  const year = cutoff.getUTCFullYear();
  const month = cutoff.getUTCMonth(); // 0-based: the previous month's 1-based number
  return month === 0 ? `${year - 1}-12` : `${year}-${String(month).padStart(2, '0')}`;
};

const compareKeys = (a: PeriodKey, b: PeriodKey): number =>
  a.period.localeCompare(b.period) ||
  a.tenant.localeCompare(b.tenant) ||
  a.accountId.localeCompare(b.accountId);

const keyOf = ({ tenant, accountId, period }: PeriodKey): PeriodKey => ({
  tenant,
  accountId,
  period,
});

export const planAutoClose = (
  candidates: readonly AutoCloseCandidate[],
  now: number,
  afterDays: number,
): AutoClosePlan => {
  const dueOnes = candidates.filter((c) => isDue(c.period, now, afterDays));
  return {
    due: dueOnes
      .filter((c) => c.closeCount === 0)
      .map(keyOf)
      .sort(compareKeys),
    reopened: dueOnes
      .filter((c) => c.closeCount > 0 && c.state === 'open')
      .map(keyOf)
      .sort(compareKeys),
  };
};

/** The close reason an auto-closed period records. */
export const autoCloseReason = (period: string, afterDays: number): string =>
  `auto-close: ${afterDays} day(s) after the period ended (${new Date(periodEnd(period)).toISOString()})`;
