/**
 * Which account-periods a reconciliation run compares: every one that is open, and every closed one
 * whose (last) close was at most `lookbackDays` days ago — a provider restates a month for weeks after it
 * ends, and a period closed long ago has been reconciled by the runs before its close. The provider is
 * asked for the periods of those account-periods and for the current month (so accounts the ledger has
 * not heard of yet this month are found).
 */
import { periodEnd, periodOfInstant } from '../periods';
import type { PeriodState } from '../ports';

const DAY_MS = 86_400_000;

export interface PeriodScopeInput {
  tenant: string;
  accountId: string;
  period: string;
  state: PeriodState;
  /** ISO instant of the last close (closed periods). */
  closedAt?: string;
}

export const DEFAULT_LOOKBACK_DAYS = 45;

/**
 * Cost Explorer answers for the last 13 months (38 with multi-year data turned on): an open period that
 * ended more than a year ago is out of scope — it is an operator's to close, not the nightly job's to ask.
 */
export const MAX_OPEN_AGE_DAYS = 366;

export const inScope = (input: PeriodScopeInput, now: number, lookbackDays: number): boolean =>
  input.state === 'open'
    ? periodEnd(input.period) >= now - MAX_OPEN_AGE_DAYS * DAY_MS
    : input.closedAt !== undefined && Date.parse(input.closedAt) >= now - lookbackDays * DAY_MS;

/** The periods the provider is asked about: those of the in-scope account-periods and the current one. */
export const providerPeriods = (inScopePeriods: Iterable<string>, now: number): string[] =>
  [...new Set([...inScopePeriods, periodOfInstant(now)])].sort();
