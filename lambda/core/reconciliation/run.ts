/**
 * One reconciliation run, over ports: read the ledger's in-scope figures, ask the provider for each
 * period of them (and the current one), compare, store every record, notify each record that pages;
 * beside them the completeness of the counted export snapshots, an incomplete one notified once per
 * execution.
 * The same orchestration serves the scheduled function, `billing-dedup reconcile --run` and the local run.
 */
import {
  reconcile,
  summarize,
  type LedgerFigure,
  type PeriodSummary,
  type ProviderAnswer,
  type ReconciliationRecord,
} from './reconcile';
import { DEFAULT_TOLERANCE, type Tolerance } from './compare';
import { driftKey, driftMessage, type DriftMessage } from './message';
import { providerPeriods } from './scope';
import { incompleteKey, incompleteMessage } from './completeness-message';
import type { CompletenessRecord } from './completeness-records';

export interface ReconciliationPorts {
  /** The ledger's statement rows of the account-periods in scope (core/reconciliation/scope.ts). */
  ledgerFigures(): Promise<LedgerFigure[]>;
  /** The provider's answers for one period (one per payer). */
  providerAnswers(period: string): Promise<ProviderAnswer[]>;
  store(records: readonly ReconciliationRecord[], checkedAt: string): Promise<void>;
  /** Publish once per key; a key already notified is a `duplicate`. */
  notifyOnce(key: string, message: DriftMessage): Promise<'notified' | 'duplicate'>;
  /**
   * The completeness records of the counted snapshots of the account-periods in scope
   * (completeness-records.ts); none are compared when absent.
   */
  snapshotCompleteness?(): Promise<CompletenessRecord[]>;
  storeCompleteness?(records: readonly CompletenessRecord[], checkedAt: string): Promise<void>;
}

export interface RunOptions {
  now: number;
  tolerance?: Tolerance;
  /** As configured, for the message text. */
  tolerancePercent?: string;
  /** Only these periods (the CLI's `--period`); default: the in-scope ones and the current one. */
  periods?: readonly string[];
  /** Only this tenant's records (the CLI's `--tenant`). */
  tenant?: string;
}

export interface RunResult {
  checkedAt: string;
  periods: string[];
  records: ReconciliationRecord[];
  /** Completeness of the counted export snapshots of the run's periods (one per account and source). */
  completeness: CompletenessRecord[];
  summaries: PeriodSummary[];
  /** Notifications sent: drifts and incomplete snapshots (each once). */
  notified: number;
  unattributed: number;
  unasked: number;
}

export const runReconciliation = async (
  ports: ReconciliationPorts,
  options: RunOptions,
): Promise<RunResult> => {
  const checkedAt = new Date(options.now).toISOString();
  const ledger = (await ports.ledgerFigures()).filter(
    (row) =>
      (options.tenant === undefined || row.tenant === options.tenant) &&
      (options.periods === undefined || options.periods.includes(row.period)),
  );
  const periods = options.periods
    ? [...options.periods]
    : providerPeriods(
        ledger.map((row) => row.period),
        options.now,
      );
  const answers: ProviderAnswer[] = [];
  for (const period of periods) answers.push(...(await ports.providerAnswers(period)));
  const run = reconcile(ledger, answers, options.tolerance ?? DEFAULT_TOLERANCE);
  const records = run.records.filter(
    (record) => options.tenant === undefined || record.tenant === options.tenant,
  );
  await ports.store(records, checkedAt);
  const completeness = (
    ports.snapshotCompleteness ? await ports.snapshotCompleteness() : []
  ).filter(
    (record) =>
      periods.includes(record.period) &&
      (options.tenant === undefined || record.tenant === options.tenant),
  );
  await ports.storeCompleteness?.(completeness, checkedAt);
  let notified = 0;
  for (const record of records.filter((r) => r.pages)) {
    const outcome = await ports.notifyOnce(
      driftKey(record),
      driftMessage(record, options.tolerancePercent ?? '0.1'),
    );
    if (outcome === 'notified') notified++;
  }
  const incomplete = new Map<string, CompletenessRecord[]>();
  for (const record of completeness.filter((r) => r.pages))
    incomplete.set(incompleteKey(record), [
      ...(incomplete.get(incompleteKey(record)) ?? []),
      record,
    ]);
  for (const [key, execution] of incomplete)
    if ((await ports.notifyOnce(key, incompleteMessage(execution))) === 'notified') notified++;
  return {
    checkedAt,
    periods,
    records,
    completeness,
    summaries: summarize(records),
    notified,
    unattributed: run.unattributed,
    unasked: run.unasked,
  };
};
