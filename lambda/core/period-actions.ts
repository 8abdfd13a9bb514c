/**
 * Decisions of closing, reopening and voiding over plain values (docs/ledger.md#periods): what a request
 * must name, what a close pins, which corrections a period's status shows and what a void books. The
 * adapter (adapters/period-close.ts, period-void.ts) writes them as conditional transactions.
 */
import { subtractDecimals } from './decimal';
import { PeriodError } from './errors';
import { authoritativeSource, sourceRank } from './export-authority';
import type { StatementRow } from './ledger-total';
import { isPeriod, type BookingTarget } from './periods';
import type { PeriodKey, PeriodStatus } from './ports';

export const describePeriod = (key: PeriodKey): string =>
  `period ${key.period} of tenant ${key.tenant}, account ${key.accountId}`;

export const checkPeriodKey = (key: PeriodKey): void => {
  if (!isPeriod(key.period)) {
    throw new PeriodError(
      'invalid-period',
      `${JSON.stringify(key.period)} is not a yyyy-mm period`,
    );
  }
  if (key.tenant === '' || key.accountId === '') {
    throw new PeriodError('invalid-period', 'tenant and account are required');
  }
};

export const checkReason = (reason: string, action: string): string => {
  const trimmed = reason.trim();
  if (trimmed === '') throw new PeriodError('reason-required', `a reason is required to ${action}`);
  return trimmed;
};

/** Corrections of `of` held by these (later) statement rows. */
export const correctionsOf = (
  of: string,
  rows: readonly StatementRow[],
): PeriodStatus['correctionsBookedLater'] =>
  rows.flatMap((row) =>
    (row.corrections ?? [])
      .filter((correction) => correction.of === of)
      .map((correction) => ({
        bookedIn: row.period,
        currency: row.currency,
        total: correction.total,
        charges: correction.charges,
      })),
  );

/** A CURRENT pointer as a close reads it. */
export interface PointerAtClose {
  tenant: string;
  period: string;
  source: string;
  executionId: string;
  firstSwitchedAt?: string;
  precedence?: number;
}

export interface ClosePins {
  /** Source → the execution the close pins; a source with no current execution is absent. */
  pinned: Record<string, string>;
  /** The best ranked pinned source (core/export-authority.ts), fixed by the first close. */
  authoritative?: string;
  /** Each source with a snapshot in the partition: its pointer must still name this execution (or none). */
  checks: { source: string; executionId?: string }[];
}

/**
 * What the first close of an account-period pins: the current execution of each source with a
 * snapshot in the partition, the authoritative one among them, and the pointers the close checks
 * unchanged. Later closes keep the first close's pins (the adapter reads them from the PERIOD item).
 */
export const pinsAtFirstClose = (
  key: PeriodKey,
  snapshotSources: readonly string[],
  pointers: readonly PointerAtClose[],
): ClosePins => {
  const mine = pointers.filter(
    (pointer) => pointer.tenant === key.tenant && pointer.period === key.period,
  );
  const pinned = Object.fromEntries(mine.map((pointer) => [pointer.source, pointer.executionId]));
  const authoritative = authoritativeSource(
    mine.map((pointer) => sourceRank(pointer.source, pointer)),
  );
  const checks = [...new Set(snapshotSources)].map((source) => ({
    source,
    ...(pinned[source] === undefined ? {} : { executionId: pinned[source] }),
  }));
  return { pinned, ...(authoritative ? { authoritative } : {}), checks };
};

/**
 * The change a void makes to the totals of the period it is booked in: minus the charge, one charge fewer;
 * booked in a later period (its own is closed) it is a correction of its own. A charge whose amount is in
 * its source's per-source totals (`attributed`) leaves them too.
 */
export const voidDelta = (
  charge: { amount: string; currency: string; source?: string; attributed?: boolean },
  ownPeriod: string,
  target: Exclude<BookingTarget, { kind: 'rejected' }>,
): {
  currency: string;
  delta: string;
  charges: number;
  correctionOf?: string;
  bySource?: { source: string; delta: string; charges: number };
} => {
  const delta = subtractDecimals('0', charge.amount);
  return {
    currency: charge.currency,
    delta,
    charges: -1,
    ...(target.kind === 'rolled' ? { correctionOf: ownPeriod } : {}),
    ...(charge.attributed && charge.source !== undefined
      ? { bySource: { source: charge.source, delta, charges: -1 } }
      : {}),
  };
};
