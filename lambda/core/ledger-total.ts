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
 *
 * Provisional stream charges: the counted (authoritative) snapshot of an account-period names the provider
 * whose spend it restates (`supersedes`, recorded at its switch unless the provider is configured
 * additive). The stream charges of that source in the account-period — every currency — are then
 * provisional: left out of `total` and `charges`, listed on the row (`provisional`), never added. The
 * export is the provider's own statement of the month; the stream (a watcher republishing its rows) was
 * the near-real-time view of it. Stream charges of any other source, corrections booked here for closed
 * periods, and the part of a stream total attributed to no source (charges written before per-source
 * totals existed) stay added.
 *
 * Late provisional charges: a stream charge that arrives once its account-period is closed, of the
 * provider that the period's superseding export (`supersessionOf`) restates, is kept in the closed
 * period as provisional (its shards' `provisional@<source>:<cur>`, never in a total): listed on the row
 * under its source's `provisional` entry (`late`), never added, never rolled forward.
 */
import { addDecimals, subtractDecimals } from './decimal';
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
  /**
   * Input only (a stream total): the part of `total` / `charges` made by the period's own charges of
   * each source; what no entry covers is unattributed. Never on a row `statementRows` returns.
   */
  sources?: SourceTotal[];
  /** Stream charges superseded by the counted export of their provider, left out of `total`. */
  provisional?: ProvisionalCharges[];
  /**
   * Input only (a stream total): late stream charges of a closed period kept as provisional, per source
   * (never in `total`). Never on a row `statementRows` returns (they are listed under `provisional`).
   */
  lateProvisional?: SourceTotal[];
}

/** A stream total's part made by one source's charges. */
export interface SourceTotal {
  source: string;
  total: string;
  charges: number;
}

/** Stream charges of one source that the counted export of their provider supersedes. */
export interface ProvisionalCharges extends SourceTotal {
  /** The export source (its id) whose snapshot counts instead. */
  supersededBy: string;
  /**
   * The part of `total` / `charges` that arrived after the period closed (kept in the closed period,
   * never rolled forward); absent when none did.
   */
  late?: { total: string; charges: number };
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
  /**
   * The provider (stream source slug) whose stream charges of the account-period this snapshot, when it
   * counts, makes provisional; absent when its provider is additive or it was switched before this rule.
   */
  supersedes?: string;
}

/**
 * What a snapshot of an export whose rows come from `provider` supersedes: that provider's stream
 * charges, unless config lists the provider in `additiveSources` (its stream charges always add).
 */
export const supersededSource = (
  provider: string | undefined,
  additiveSources: readonly string[],
): string | undefined =>
  provider === undefined || additiveSources.includes(provider) ? undefined : provider;

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

const mergeSources = (
  a: readonly SourceTotal[] = [],
  b: readonly SourceTotal[] = [],
): SourceTotal[] => {
  const bySource = new Map<string, SourceTotal>();
  for (const part of [...a, ...b]) {
    const found = bySource.get(part.source);
    bySource.set(
      part.source,
      found
        ? {
            source: part.source,
            total: addDecimals(found.total, part.total),
            charges: found.charges + part.charges,
          }
        : { ...part },
    );
  }
  return [...bySource.values()];
};

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

/** Which snapshots a statement counts and how their sources rank, given the pointers and PERIOD items. */
const snapshotRules = (current: readonly CurrentSnapshot[], periods: readonly PeriodInfo[]) => {
  const pointers = new Map(
    current.map((pointer) => [sourceKey(pointer.tenant, pointer.source, pointer.period), pointer]),
  );
  const periodInfo = new Map(periods.map((info) => [accountPeriodKey(info), info]));
  const pointerOf = (part: SnapshotPart) =>
    pointers.get(sourceKey(part.tenant, part.source, part.period));
  const isCurrent = (part: SnapshotPart): boolean =>
    pointerOf(part)?.executionId === part.executionId;
  const counted = (part: SnapshotPart): boolean => {
    const info = periodInfo.get(accountPeriodKey(part));
    const pinned = info?.pinned[part.source];
    if (pinned !== undefined) return pinned === part.executionId;
    if (info?.closedOnce) return false;
    return isCurrent(part);
  };
  const rankOf = (part: SnapshotPart): SourceRank => sourceRank(part.source, pointerOf(part));
  /** The authoritative one of an account-period's parts (the source its first close fixed, if there). */
  const authoritativeOf = (parts: readonly SnapshotPart[]): SnapshotPart | undefined => {
    if (parts.length === 0) return undefined;
    const fixed = periodInfo.get(accountPeriodKey(parts[0]))?.authoritative;
    const authoritative = parts.some((part) => part.source === fixed)
      ? fixed
      : authoritativeSource(parts.map(rankOf));
    return parts.find((part) => part.source === authoritative) ?? parts[0];
  };
  return { periodInfo, isCurrent, counted, authoritativeOf };
};

/**
 * The snapshot items a statement counts or lists as shadowed: of each source, the execution pinned on
 * the period (once it has been closed), else its current one.
 */
export const countedSnapshots = <T extends SnapshotPart>(
  parts: readonly T[],
  current: readonly CurrentSnapshot[],
  periods: readonly PeriodInfo[],
): T[] => parts.filter(snapshotRules(current, periods).counted);

/** The export that restates a provider's stream charges in an account-period. */
export interface Supersession {
  /** The provider (stream source slug) whose stream charges are provisional there. */
  provider: string;
  /** The export source (its id) whose snapshot restates them. */
  supersededBy: string;
}

/**
 * Whose stream charges the export of an account-period supersedes, and which export: the counted
 * (authoritative) snapshot's `supersedes`; for a period closed with no snapshot pinned at all, the
 * authoritative one of its CURRENT snapshots (an export that arrived after the close: it corrects the
 * period by its difference from what the close counted, core/exports/late-correction-pass.ts).
 * `parts`: the SNAPSHOT items of the account-period; `info`: its PERIOD item, if any.
 */
export const supersessionOf = (
  parts: readonly SnapshotPart[],
  current: readonly CurrentSnapshot[],
  info?: PeriodInfo,
): Supersession | undefined => {
  const rules = snapshotRules(current, info ? [info] : []);
  const counted = parts.filter(rules.counted);
  const unpinnedClose = info?.closedOnce === true && Object.keys(info.pinned).length === 0;
  const part = rules.authoritativeOf(
    counted.length > 0 || !unpinnedClose ? counted : parts.filter(rules.isCurrent),
  );
  return part?.supersedes === undefined
    ? undefined
    : { provider: part.supersedes, supersededBy: part.source };
};

export const statementRows = (
  streamTotals: readonly StatementRow[],
  snapshots: readonly SnapshotPart[],
  current: readonly CurrentSnapshot[],
  periods: readonly PeriodInfo[] = [],
): StatementRow[] => {
  const { periodInfo, counted, authoritativeOf } = snapshotRules(current, periods);
  const rows = new Map<string, StatementRow>();
  /** Per row: the stream's per-source parts (kept apart from the rows, which never show them). */
  const sources = new Map<string, SourceTotal[]>();
  /** Per row: late provisional charges per source (listed, never added). */
  const late = new Map<string, SourceTotal[]>();
  const add = (row: StatementRow): void => {
    const key = rowKey(row);
    const found = rows.get(key);
    const corrections = mergeCorrections(found?.corrections, row.corrections);
    const shadowed = [...(found?.shadowed ?? []), ...(row.shadowed ?? [])];
    if (row.sources) sources.set(key, mergeSources(sources.get(key), row.sources));
    if (row.lateProvisional) {
      late.set(key, mergeSources(late.get(key), row.lateProvisional));
    }
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
  const superseding: { part: SnapshotPart; provider: string }[] = [];
  for (const parts of byAccountPeriod.values()) {
    const counted = authoritativeOf(parts)!;
    const authoritative = counted.source;
    if (counted.supersedes !== undefined) {
      superseding.push({ part: counted, provider: counted.supersedes });
    }
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
  for (const { part, provider } of superseding) {
    for (const [key, row] of rows) {
      if (accountPeriodKey(row) !== accountPeriodKey(part)) continue;
      const stream = sources.get(key)?.find((entry) => entry.source === provider);
      if (!stream || (stream.total === '0' && stream.charges === 0)) continue;
      rows.set(key, withProvisional(row, { ...stream, supersededBy: part.source }));
    }
  }
  if (late.size > 0) {
    const partsOf = new Map<string, SnapshotPart[]>();
    for (const part of snapshots) {
      const key = accountPeriodKey(part);
      partsOf.set(key, [...(partsOf.get(key) ?? []), part]);
    }
    for (const [key, entries] of late) {
      const row = rows.get(key);
      if (!row) continue;
      const supersession = supersessionOf(
        partsOf.get(accountPeriodKey(row)) ?? [],
        current,
        periodInfo.get(accountPeriodKey(row)),
      );
      rows.set(key, withLateProvisional(row, entries, supersession));
    }
  }
  return [...rows.values()].sort(compareRows);
};

/**
 * `row` with its late provisional charges listed under their source's `provisional` entry (merged with
 * the stream charges the export supersedes there); nothing moves its total.
 */
const withLateProvisional = (
  row: StatementRow,
  entries: readonly SourceTotal[],
  supersession: Supersession | undefined,
): StatementRow => {
  const provisional = [...(row.provisional ?? [])];
  for (const entry of entries) {
    if (entry.total === '0' && entry.charges === 0) continue;
    const late = { total: entry.total, charges: entry.charges };
    const index = provisional.findIndex((found) => found.source === entry.source);
    if (index >= 0) {
      const found = provisional[index];
      provisional[index] = {
        ...found,
        total: addDecimals(found.total, entry.total),
        charges: found.charges + entry.charges,
        late,
      };
    } else {
      provisional.push({
        source: entry.source,
        total: late.total,
        charges: late.charges,
        supersededBy:
          supersession?.provider === entry.source ? supersession.supersededBy : '(export)',
        late,
      });
    }
  }
  return provisional.length > 0 ? { ...row, provisional } : row;
};

/**
 * What a statement counts of `source`'s stream charges, per currency: their per-source totals less the
 * part left out as provisional. A closed period's figure, used when a later export of the provider
 * corrects it (only the difference from what the period counted rolls forward).
 */
export const countedStreamOf = (
  streamTotals: readonly StatementRow[],
  rows: readonly StatementRow[],
  source: string,
): Record<string, string> => {
  const counted: Record<string, string> = {};
  const add = (currency: string, amount: string) => {
    counted[currency] = addDecimals(counted[currency] ?? '0', amount);
  };
  for (const row of streamTotals)
    for (const part of row.sources ?? []) if (part.source === source) add(row.currency, part.total);
  // Late provisional charges were never in the per-source totals: only the rest is taken out.
  for (const row of rows)
    for (const part of row.provisional ?? [])
      if (part.source === source)
        add(row.currency, subtractDecimals(part.late?.total ?? '0', part.total));
  return Object.fromEntries(Object.entries(counted).filter(([, total]) => total !== '0'));
};

/** `row` with `provisional`'s charges taken out of its total and listed apart. */
const withProvisional = (row: StatementRow, provisional: ProvisionalCharges): StatementRow => ({
  ...row,
  total: subtractDecimals(row.total, provisional.total),
  charges: row.charges - provisional.charges,
  provisional: [...(row.provisional ?? []), provisional],
});
