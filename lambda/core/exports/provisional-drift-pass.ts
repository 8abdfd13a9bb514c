/**
 * The drift pass of one switch whose snapshots supersede a provider's stream charges: for every account
 * of the new snapshot that has stream charges of that provider in the period, record once what the
 * stream said and what the export says (core/exports/provisional-drift.ts), and notify the account-period
 * once when it is above the threshold.
 *
 * Idempotent under redelivery: the record of a (switch, account) is written only if absent, and the
 * notification is decided from the stored record (not from a stream that may have moved since) and sent
 * through the notifier's once-per-key claim.
 */
import { mapWithConcurrency } from '../concurrency';
import type { Tolerance } from '../reconciliation/compare';
import type { ChargeTotals } from './charge-totals';
import type { ExecutionRef } from './execution';
import {
  accountDrift,
  hasStreamCharges,
  summarizeDrifts,
  type CurrencyFigures,
  type DriftSummary,
} from './provisional-drift';
import {
  provisionalDriftKey,
  provisionalDriftMessage,
  type DriftRecord,
} from './provisional-drift-message';
import type { DiffNotifierPort } from './task-batch';

export interface DriftStorePort {
  /** The exact totals of an execution, per account and currency. */
  readSnapshotTotals(ref: ExecutionRef): Promise<ChargeTotals>;
  /** The period's own stream charges of `provider` in (tenant, account, period), per currency. */
  readProviderStream(
    tenant: string,
    accountId: string,
    period: string,
    provider: string,
  ): Promise<CurrencyFigures>;
  /** Writes the record unless one of its switch and account exists; returns the stored one. */
  recordDriftOnce(record: DriftRecord): Promise<DriftRecord>;
}

export interface DriftPassDeps {
  store: DriftStorePort;
  notifier: DiffNotifierPort;
  threshold: Tolerance;
  /** Accounts read and recorded at once. */
  concurrency: number;
}

const exportedOf = (totals: ChargeTotals, accountId: string): CurrencyFigures =>
  Object.fromEntries(
    Object.entries(totals[accountId]).map(([currency, { total, charges }]) => [
      currency,
      { total, charges },
    ]),
  );

export const recordProvisionalDrift = async (
  deps: DriftPassDeps,
  ref: ExecutionRef,
  switch_: { switchedAt: string; provider: string; shadowedBy?: string },
): Promise<DriftSummary> => {
  const totals = await deps.store.readSnapshotTotals(ref);
  const accounts = Object.keys(totals).sort();
  const results = await mapWithConcurrency(accounts, deps.concurrency, async (accountId) => {
    const stream = await deps.store.readProviderStream(
      ref.tenant,
      accountId,
      ref.period,
      switch_.provider,
    );
    if (!hasStreamCharges(stream)) return undefined;
    const stored = await deps.store.recordDriftOnce({
      ...accountDrift(accountId, stream, exportedOf(totals, accountId), deps.threshold),
      tenant: ref.tenant,
      period: ref.period,
      source: ref.source,
      executionId: ref.executionId,
      switchedAt: switch_.switchedAt,
      provider: switch_.provider,
      threshold: deps.threshold,
    });
    const notified =
      stored.above &&
      (await deps.notifier.notifyOnce(
        provisionalDriftKey(stored),
        provisionalDriftMessage(stored, switch_.shadowedBy),
      )) === 'notified';
    return { stored, notified };
  });
  const recorded = results.filter((result) => result !== undefined);
  return summarizeDrifts(
    recorded.map((result) => result.stored),
    recorded.filter((result) => result.notified).length,
  );
};
