/**
 * `billing-dedup reconcile`: the stored records of a period's latest run, or — with `--run` — a run now
 * for that period, through the same orchestration as the nightly function (core/reconciliation/run.ts):
 * ledger totals by the statement rule, Cost Explorer's figures, records written. A run from the CLI
 * notifies nobody: the nightly function owns notifications.
 */
import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CostExplorerTotals } from '../../lambda/adapters/cost-explorer-totals';
import { readLedgerInScope } from '../../lambda/adapters/reconciliation-ledger';
import {
  readReconciliations,
  writeReconciliations,
  type StoredReconciliation,
} from '../../lambda/adapters/reconciliation-records';
import {
  DEFAULT_TOLERANCE,
  toleranceRatioOfPercent,
  type Tolerance,
} from '../../lambda/core/reconciliation/compare';
import { runReconciliation } from '../../lambda/core/reconciliation/run';

/** An operator's question about a period is in scope whatever its age. */
const ANY_AGE_DAYS = 100_000;

export interface ReconcileOptions {
  period: string;
  tenant?: string;
  tolerancePercent?: string;
  floor?: string;
  payerTenant?: string;
}

export const toleranceOf = (
  options: Pick<ReconcileOptions, 'tolerancePercent' | 'floor'>,
): Tolerance => ({
  ratio: options.tolerancePercent
    ? toleranceRatioOfPercent(options.tolerancePercent)
    : DEFAULT_TOLERANCE.ratio,
  floor: options.floor ?? DEFAULT_TOLERANCE.floor,
});

export const runReconcile = async (
  dynamo: DynamoDBClient,
  costExplorer: CostExplorerClient,
  table: string,
  now: number,
  options: ReconcileOptions,
): Promise<{ records: StoredReconciliation[]; providerRequests: number }> => {
  const provider = new CostExplorerTotals({
    client: costExplorer,
    ...(options.payerTenant ? { claimedBy: options.payerTenant } : {}),
  });
  const result = await runReconciliation(
    {
      ledgerFigures: () => readLedgerInScope(dynamo, table, now, ANY_AGE_DAYS),
      providerAnswers: async (period) => [await provider.periodTotals(period)],
      store: (records, checkedAt) => writeReconciliations(dynamo, table, records, checkedAt),
      notifyOnce: () => Promise.resolve('duplicate' as const),
    },
    {
      now,
      tolerance: toleranceOf(options),
      periods: [options.period],
      ...(options.tenant ? { tenant: options.tenant } : {}),
    },
  );
  const runDate = result.checkedAt.slice(0, 10);
  return {
    records: result.records.map((record) => ({ ...record, runDate, checkedAt: result.checkedAt })),
    providerRequests: provider.requests,
  };
};

export const storedReconciliations = (
  dynamo: DynamoDBClient,
  table: string,
  options: Pick<ReconcileOptions, 'period' | 'tenant'>,
): Promise<StoredReconciliation[]> =>
  readReconciliations(
    dynamo,
    table,
    options.period,
    options.tenant ? { tenant: options.tenant } : {},
  );
