/**
 * `billing-dedup reconcile`: the stored records of a period's latest run, or — with `--run` — a run now
 * for that period, through the same orchestration as the nightly function (core/reconciliation/run.ts):
 * ledger totals by the statement rule, Cost Explorer's figures, the counted snapshots' completeness,
 * records written. A run from the CLI
 * notifies nobody: the nightly function owns notifications.
 */
import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CostExplorerTotals } from '../../lambda/adapters/cost-explorer-totals';
import { readInScope, type LedgerInScope } from '../../lambda/adapters/reconciliation-ledger';
import {
  readReconciliationRun,
  writeCompleteness,
  writeReconciliations,
  type StoredCompleteness,
  type StoredReconciliation,
  type StoredRun,
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
): Promise<{
  records: StoredReconciliation[];
  completeness: StoredCompleteness[];
  providerRequests: number;
}> => {
  const provider = new CostExplorerTotals({
    client: costExplorer,
    ...(options.payerTenant ? { claimedBy: options.payerTenant } : {}),
  });
  let ledger: Promise<LedgerInScope> | undefined;
  const inScope = () => (ledger ??= readInScope(dynamo, table, now, ANY_AGE_DAYS));
  const result = await runReconciliation(
    {
      ledgerFigures: async () => (await inScope()).figures,
      snapshotCompleteness: async () => (await inScope()).completeness,
      providerAnswers: async (period) => [await provider.periodTotals(period)],
      store: (records, checkedAt) => writeReconciliations(dynamo, table, records, checkedAt),
      storeCompleteness: (records, checkedAt) =>
        writeCompleteness(dynamo, table, records, checkedAt),
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
  const stamp = { runDate, checkedAt: result.checkedAt };
  return {
    records: result.records.map((record) => ({ ...record, ...stamp })),
    completeness: result.completeness.map((record) => ({ ...record, ...stamp })),
    providerRequests: provider.requests,
  };
};

export const storedReconciliations = (
  dynamo: DynamoDBClient,
  table: string,
  options: Pick<ReconcileOptions, 'period' | 'tenant'>,
): Promise<StoredRun> =>
  readReconciliationRun(
    dynamo,
    table,
    options.period,
    options.tenant ? { tenant: options.tenant } : {},
  );
