/**
 * The ledger total rule — the only place that decides what a statement shows:
 *
 *   total(tenant, account, period, currency) = Σ the period's stream total items (its shards, and the
 *     per-currency items of earlier versions)
 *     + the snapshot for the account of its authoritative export source (core/export-authority.ts),
 *       where each source's snapshot is the execution pinned on the period when it was first closed;
 *       nothing for a source with no pin once the period has been closed (it had no snapshot then);
 *       the source's CURRENT one while the period was never closed.
 *
 * Two exports of the same account are two views of the same spend: only the authoritative one counts;
 * the snapshots of the other sources are shadowed (listed on the row, never added). Charges add up the
 * same way (stream charges + the snapshot's valid rows). A snapshot item of any other execution of its
 * source counts for nothing. A stream total may carry corrections: the part of
 * it booked here for a closed earlier period (already in the total, listed so statements show it).
 */
import { addDecimals } from './decimal';
import { authoritativeSource, sourceRank, type SourceRank } from './export-authority';
import type { PeriodState } from './ports';

/** Part of a row's total booked in it as a correction of the closed period `of`. */
export interface Correction {
  of: string;
  total: string;
  charges: number;
}

export interface StatementRow {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  total: string;
  charges: number;
  /** Set on every row `statementRows` returns ('open' when the period was never closed). */
  status?: PeriodState;
  /** Corrections included in `total` (by corrected period); absent when there are none. */
  corrections?: Correction[];
  /** Snapshots of other export sources of the account, left out of `total`; absent when none. */
  shadowed?: ShadowedSnapshot[];
}

/** A counted-looking snapshot of a source that is not the account's authoritative one. */
export interface ShadowedSnapshot {
  source: string;
  executionId: string;
  /** Its part in this currency, not in the row's total. */
  total: string;
  charges: number;
  /** The source whose snapshot the row counts instead. */
  authoritative: string;
}

/** One account's part of one export execution. */
export interface SnapshotPart {
  tenant: string;
  accountId: string;
  period: string;
  source: string;
  executionId: string;
  /** currency → exact total and valid rows. */
  totals: Record<string, { total: string; charges: number }>;
}

/** The execution that is current for a (tenant, source, period), with what ranks the source. */
export interface CurrentSnapshot extends Omit<SourceRank, 'source'> {
  tenant: string;
  source: string;
  period: string;
  executionId: string;
}

/** What a statement needs of an account-period's PERIOD item. */
export interface PeriodInfo {
  tenant: string;
  accountId: string;
  period: string;
  state: PeriodState;
  /** Closed at least once (even if reopened since): its snapshots are its pins, and only those. */
  closedOnce: boolean;
  /** Export source → the execution that was current when the period was first closed. */
  pinned: Record<string, string>;
  /** The pinned source the first close found authoritative: it stays so, whatever ranks change later. */
  authoritative?: string;
}

const sourceKey = (tenant: string, source: string, period: string): string =>
  JSON.stringify([tenant, source, period]);
const accountPeriodKey = (row: Pick<StatementRow, 'tenant' | 'accountId' | 'period'>): string =>
  JSON.stringify([row.tenant, row.accountId, row.period]);
const rowKey = (row: Pick<StatementRow, 'tenant' | 'accountId' | 'period' | 'currency'>): string =>
  JSON.stringify([row.tenant, row.accountId, row.period, row.currency]);

const compareRows = (a: StatementRow, b: StatementRow): number =>
  a.tenant.localeCompare(b.tenant) ||
  a.accountId.localeCompare(b.accountId) ||
  a.period.localeCompare(b.period) ||
  a.currency.localeCompare(b.currency);

const mergeCorrections = (
  a: readonly Correction[] = [],
  b: readonly Correction[] = [],
): Correction[] => {
  const byPeriod = new Map<string, Correction>();
  for (const correction of [...a, ...b]) {
    const found = byPeriod.get(correction.of);
    byPeriod.set(
      correction.of,
      found
        ? {
            of: found.of,
            total: addDecimals(found.total, correction.total),
            charges: found.charges + correction.charges,
          }
        : { ...correction },
    );
  }
  return [...byPeriod.values()]
    .filter((correction) => correction.total !== '0' || correction.charges !== 0)
    .sort((x, y) => x.of.localeCompare(y.of));
};

export const statementRows = (
  streamTotals: readonly StatementRow[],
  snapshots: readonly SnapshotPart[],
  current: readonly CurrentSnapshot[],
  periods: readonly PeriodInfo[] = [],
): StatementRow[] => {
  const pointers = new Map(
    current.map((pointer) => [sourceKey(pointer.tenant, pointer.source, pointer.period), pointer]),
  );
  const periodInfo = new Map(periods.map((info) => [accountPeriodKey(info), info]));
  const counted = (part: SnapshotPart): boolean => {
    const info = periodInfo.get(accountPeriodKey(part));
    const pinned = info?.pinned[part.source];
    if (pinned !== undefined) return pinned === part.executionId;
    if (info?.closedOnce) return false;
    return (
      pointers.get(sourceKey(part.tenant, part.source, part.period))?.executionId ===
      part.executionId
    );
  };
  const rankOf = (part: SnapshotPart): SourceRank =>
    sourceRank(part.source, pointers.get(sourceKey(part.tenant, part.source, part.period)));
  const rows = new Map<string, StatementRow>();
  const add = (row: StatementRow): void => {
    const key = rowKey(row);
    const found = rows.get(key);
    const corrections = mergeCorrections(found?.corrections, row.corrections);
    const shadowed = [...(found?.shadowed ?? []), ...(row.shadowed ?? [])];
    rows.set(key, {
      tenant: row.tenant,
      accountId: row.accountId,
      period: row.period,
      currency: row.currency,
      total: found ? addDecimals(found.total, row.total) : addDecimals('0', row.total),
      charges: (found?.charges ?? 0) + row.charges,
      status: periodInfo.get(accountPeriodKey(row))?.state ?? 'open',
      ...(corrections.length > 0 ? { corrections } : {}),
      ...(shadowed.length > 0 ? { shadowed } : {}),
    });
  };
  streamTotals.forEach(add);
  const byAccountPeriod = new Map<string, SnapshotPart[]>();
  for (const part of snapshots.filter(counted)) {
    const key = accountPeriodKey(part);
    byAccountPeriod.set(key, [...(byAccountPeriod.get(key) ?? []), part]);
  }
  for (const parts of byAccountPeriod.values()) {
    const fixed = periodInfo.get(accountPeriodKey(parts[0]))?.authoritative;
    const authoritative = parts.some((part) => part.source === fixed)
      ? fixed
      : authoritativeSource(parts.map(rankOf));
    for (const part of parts) {
      for (const [currency, totals] of Object.entries(part.totals)) {
        const scope = {
          tenant: part.tenant,
          accountId: part.accountId,
          period: part.period,
          currency,
        };
        add(
          part.source === authoritative || authoritative === undefined
            ? { ...scope, total: totals.total, charges: totals.charges }
            : {
                ...scope,
                total: '0',
                charges: 0,
                shadowed: [
                  {
                    source: part.source,
                    executionId: part.executionId,
                    total: totals.total,
                    charges: totals.charges,
                    authoritative,
                  },
                ],
              },
        );
      }
    }
  }
  return [...rows.values()].sort(compareRows);
};
