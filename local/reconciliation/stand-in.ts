/**
 * The local run's stand-in for the provider's own totals (there is no Cost Explorer emulator):
 * input lines `{"providerTotal": {"tenant", "accountId", "period", "currency", "amount"}}` feed it, and
 * `{"reconcile": {"period": "YYYY-MM"}}` runs the reconciliation through the same orchestration as the
 * nightly function (core/reconciliation/run.ts) against the local ledger table. Its figures are final
 * (a local run has no estimated months), and every tenant named by a line claims its accounts, so an
 * account with a provider total and no ledger row is `missing-in-ledger`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readLedgerInScope } from '../../lambda/adapters/reconciliation-ledger';
import { writeReconciliations } from '../../lambda/adapters/reconciliation-records';
import { toAmount } from '../../lambda/core/decimal';
import { isPeriod } from '../../lambda/core/periods';
import type { ReconciliationStatus } from '../../lambda/core/reconciliation/compare';
import type { ProviderAnswer } from '../../lambda/core/reconciliation/reconcile';
import { runReconciliation } from '../../lambda/core/reconciliation/run';
import { normalizeTenant } from '../../lambda/core/formats/scope';

export interface ProviderTotalLine {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  amount: string;
}

/** One row of the report's `reconciliation` list. */
export interface ReconciliationRow {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  ledger: string;
  provider: string;
  difference: string;
  status: ReconciliationStatus;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: Record<string, unknown>, field: string): string => {
  const found = value[field];
  if (typeof found !== 'string' || found.trim() === '')
    throw new Error(`providerTotal.${field} must be a non-empty string`);
  return found.trim();
};

/** `{"providerTotal": {...}}` → its figure; throws with the field at fault. */
export const parseProviderTotal = (value: unknown): ProviderTotalLine => {
  if (!isObject(value)) throw new Error('providerTotal must be an object');
  const period = text(value, 'period');
  if (!isPeriod(period)) throw new Error('providerTotal.period must be YYYY-MM');
  return {
    tenant: normalizeTenant(value.tenant, 'providerTotal.tenant'),
    accountId: text(value, 'accountId'),
    period,
    currency: text(value, 'currency').toUpperCase(),
    amount: toAmount(value.amount, 'providerTotal.amount'),
  };
};

/** `{"reconcile": {"period": "YYYY-MM"}}` → the period. */
export const parseReconcile = (value: unknown): string => {
  const period = isObject(value) ? value.period : undefined;
  if (typeof period !== 'string' || !isPeriod(period))
    throw new Error('reconcile.period must be YYYY-MM');
  return period;
};

/** The provider's totals as the local run was told them: a later line for the same key replaces. */
export class ProviderStandIn {
  private readonly totals = new Map<string, ProviderTotalLine>();

  add(line: ProviderTotalLine): void {
    this.totals.set(
      JSON.stringify([line.tenant, line.accountId, line.period, line.currency]),
      line,
    );
  }

  /** One final answer per tenant that has totals for the period (each claims its accounts). */
  answers(period: string): ProviderAnswer[] {
    const byTenant = new Map<string, ProviderAnswer>();
    for (const line of this.totals.values()) {
      if (line.period !== period) continue;
      const answer = byTenant.get(line.tenant) ?? {
        period,
        final: true,
        claimedBy: line.tenant,
        figures: [],
      };
      answer.figures.push({
        accountId: line.accountId,
        period,
        currency: line.currency,
        amount: line.amount,
      });
      byTenant.set(line.tenant, answer);
    }
    return [...byTenant.values()];
  }
}

/** Runs the reconciliation of one period against the local ledger; records are written like the function's. */
export const reconcileLocally = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  standIn: ProviderStandIn,
  period: string,
  now: number,
): Promise<ReconciliationRow[]> => {
  const result = await runReconciliation(
    {
      ledgerFigures: () => readLedgerInScope(dynamo, ledgerTable, now, 100_000),
      providerAnswers: (asked) => Promise.resolve(standIn.answers(asked)),
      store: (records, checkedAt) => writeReconciliations(dynamo, ledgerTable, records, checkedAt),
      notifyOnce: () => Promise.resolve('duplicate' as const),
    },
    { now, periods: [period] },
  );
  return result.records.map(
    ({ tenant, accountId, period: p, currency, ledger, provider, difference, status }) => ({
      tenant,
      accountId,
      period: p,
      currency,
      ledger,
      provider,
      difference,
      status,
    }),
  );
};

/** The sample's verdict check: one row within tolerance, one drifting, one missing. */
export const reconciliationCheck = (
  rows: readonly ReconciliationRow[],
): { ok: boolean; detail: string } => {
  const has = (status: ReconciliationStatus | 'missing') =>
    rows.some((row) =>
      status === 'missing' ? row.status.startsWith('missing') : row.status === status,
    );
  const ok = has('ok') && has('drift') && has('missing');
  return {
    ok,
    detail: `${rows.length} row(s): ${['ok', 'drift', 'missing-in-ledger', 'missing-at-provider']
      .map((status) => `${status} ${rows.filter((row) => row.status === status).length}`)
      .join(', ')}`,
  };
};
