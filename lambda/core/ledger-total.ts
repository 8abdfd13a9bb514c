/**
 * The ledger total rule — the only place that decides what a statement shows:
 *
 *   total(tenant, account, period, currency) = the stream total
 *     + Σ over export sources of that source's CURRENT snapshot for the account.
 *
 * Charges add up the same way (stream charges + the current snapshot's valid rows). A snapshot item
 * of any other execution of its source (an older or a superseded one) counts for nothing.
 */
import { addDecimals } from './decimal';

export interface StatementRow {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  total: string;
  charges: number;
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

/** The execution that is current for a (tenant, source, period). */
export interface CurrentSnapshot {
  tenant: string;
  source: string;
  period: string;
  executionId: string;
}

const sourceKey = (tenant: string, source: string, period: string): string =>
  JSON.stringify([tenant, source, period]);
const rowKey = (row: Pick<StatementRow, 'tenant' | 'accountId' | 'period' | 'currency'>): string =>
  JSON.stringify([row.tenant, row.accountId, row.period, row.currency]);

const compareRows = (a: StatementRow, b: StatementRow): number =>
  a.tenant.localeCompare(b.tenant) ||
  a.accountId.localeCompare(b.accountId) ||
  a.period.localeCompare(b.period) ||
  a.currency.localeCompare(b.currency);

export const statementRows = (
  streamTotals: readonly StatementRow[],
  snapshots: readonly SnapshotPart[],
  current: readonly CurrentSnapshot[],
): StatementRow[] => {
  const currentIds = new Map(
    current.map((pointer) => [
      sourceKey(pointer.tenant, pointer.source, pointer.period),
      pointer.executionId,
    ]),
  );
  const rows = new Map<string, StatementRow>();
  const add = (row: StatementRow): void => {
    const key = rowKey(row);
    const found = rows.get(key);
    rows.set(
      key,
      found
        ? {
            ...found,
            total: addDecimals(found.total, row.total),
            charges: found.charges + row.charges,
          }
        : { ...row },
    );
  };
  streamTotals.forEach(add);
  for (const part of snapshots) {
    if (currentIds.get(sourceKey(part.tenant, part.source, part.period)) !== part.executionId)
      continue;
    for (const [currency, totals] of Object.entries(part.totals)) {
      add({
        tenant: part.tenant,
        accountId: part.accountId,
        period: part.period,
        currency,
        total: totals.total,
        charges: totals.charges,
      });
    }
  }
  return [...rows.values()].sort(compareRows);
};
