/**
 * The completeness records of a reconciliation run: one per account-period and export source whose
 * counted snapshot (the ledger total rule's: pinned once closed, else current, authoritative or shadowed)
 * recorded its completeness at its switch. Every such record is final — the execution's tasks were all
 * committed, nothing more will be read — so an incomplete one pages.
 */
import { countedSnapshots, type CurrentSnapshot, type PeriodInfo } from '../ledger-total';
import type { Completeness } from './completeness';

/** A SNAPSHOT item's scope and the completeness its switch recorded. */
export interface SnapshotCompleteness {
  tenant: string;
  accountId: string;
  period: string;
  source: string;
  executionId: string;
  completeness: Completeness;
}

export interface CompletenessRecord extends SnapshotCompleteness {
  /** Incomplete (always final: the execution is switched). */
  pages: boolean;
}

export const completenessRecords = (
  snapshots: readonly SnapshotCompleteness[],
  current: readonly CurrentSnapshot[],
  periods: readonly PeriodInfo[],
): CompletenessRecord[] =>
  countedSnapshots(
    snapshots.map((snapshot) => ({ ...snapshot, totals: {} })),
    current,
    periods,
  )
    .map(({ totals: _totals, ...snapshot }) => ({
      ...snapshot,
      pages: snapshot.completeness.status === 'incomplete',
    }))
    .sort(
      (a, b) =>
        a.period.localeCompare(b.period) ||
        a.tenant.localeCompare(b.tenant) ||
        a.accountId.localeCompare(b.accountId) ||
        a.source.localeCompare(b.source),
    );
