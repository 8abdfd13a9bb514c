/**
 * One reconciliation run over plain values: the ledger's statement rows of the account-periods in
 * scope, joined with the provider's figures, each pair compared by `compareTotals`.
 *
 * - A provider figure names its account, period and currency; its tenant is the one that claims the
 *   whole payer (`claimedBy` of the answer), else every tenant whose ledger holds that account in that
 *   period (an account under no tenant's ledger is `unattributed`: counted, not recorded — a payer can
 *   hold accounts that never report to this ledger).
 * - A ledger row is compared only when the provider answered for its period (`answers`); otherwise it
 *   is `unasked` (no provider total can be known, so no status).
 * - Like with like: one currency per record, never converted.
 */
import {
  compareTotals,
  DEFAULT_TOLERANCE,
  RECONCILIATION_STATUSES,
  type Comparison,
  type ReconciliationStatus,
  type Tolerance,
} from './compare';
import Big from 'big.js';
import { addDecimals } from '../decimal';

export interface LedgerFigure {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  total: string;
}

export interface ProviderFigure {
  accountId: string;
  period: string;
  currency: string;
  amount: string;
}

/** The provider's answer for one period (of one payer): whether it is final, who owns its accounts. */
export interface ProviderAnswer {
  period: string;
  final: boolean;
  /** The tenant that owns every account of this answer (a payer dedicated to one tenant). */
  claimedBy?: string;
  figures: ProviderFigure[];
}

export interface ReconciliationRecord extends Comparison {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
}

export interface ReconciliationRun {
  records: ReconciliationRecord[];
  /** Provider figures of accounts no tenant's ledger holds (and no tenant claims). */
  unattributed: number;
  /** Ledger rows of periods the provider was not asked about. */
  unasked: number;
}

const key = (...parts: string[]): string => JSON.stringify(parts);

export const reconcile = (
  ledger: readonly LedgerFigure[],
  answers: readonly ProviderAnswer[],
  tolerance: Tolerance = DEFAULT_TOLERANCE,
): ReconciliationRun => {
  const byPeriod = new Map<string, ProviderAnswer[]>();
  for (const answer of answers)
    byPeriod.set(answer.period, [...(byPeriod.get(answer.period) ?? []), answer]);
  const ledgerRows = new Map(
    ledger.map((row) => [key(row.tenant, row.accountId, row.period, row.currency), row]),
  );
  const tenantsOf = new Map<string, Set<string>>();
  for (const row of ledger) {
    const k = key(row.accountId, row.period);
    tenantsOf.set(k, (tenantsOf.get(k) ?? new Set()).add(row.tenant));
  }
  const provider = new Map<string, { amount: string; final: boolean }>();
  let unattributed = 0;
  for (const answer of answers) {
    for (const figure of answer.figures) {
      const tenants = answer.claimedBy
        ? [answer.claimedBy]
        : [...(tenantsOf.get(key(figure.accountId, figure.period)) ?? [])];
      if (tenants.length === 0) unattributed++;
      for (const tenant of tenants) {
        const k = key(tenant, figure.accountId, figure.period, figure.currency);
        const found = provider.get(k);
        provider.set(k, {
          amount: found ? addDecimals(found.amount, figure.amount) : figure.amount,
          final: (found?.final ?? true) && answer.final,
        });
      }
    }
  }
  const records: ReconciliationRecord[] = [];
  let unasked = 0;
  for (const [k, row] of ledgerRows) {
    const periodAnswers = byPeriod.get(row.period);
    if (!periodAnswers) {
      unasked++;
      continue;
    }
    const figure = provider.get(k);
    const final = figure?.final ?? periodAnswers.every((answer) => answer.final);
    records.push({
      tenant: row.tenant,
      accountId: row.accountId,
      period: row.period,
      currency: row.currency,
      ...compareTotals(
        { ledger: row.total, ...(figure ? { provider: figure.amount } : {}), final },
        tolerance,
      ),
    });
  }
  for (const [k, figure] of provider) {
    if (ledgerRows.has(k)) continue;
    const [tenant, accountId, period, currency] = JSON.parse(k) as string[];
    records.push({
      tenant,
      accountId,
      period,
      currency,
      ...compareTotals({ provider: figure.amount, final: figure.final }, tolerance),
    });
  }
  records.sort(
    (a, b) =>
      a.period.localeCompare(b.period) ||
      a.tenant.localeCompare(b.tenant) ||
      a.accountId.localeCompare(b.accountId) ||
      a.currency.localeCompare(b.currency),
  );
  return { records, unattributed, unasked };
};

export interface PeriodSummary {
  period: string;
  counts: Record<ReconciliationStatus, number>;
  /** Records that page (final, not ok). */
  paging: number;
  /** The record with the largest |difference| among those not ok (any currency), if any. */
  largest?: ReconciliationRecord;
}

/** Per period: how many records of each status, how many page, the largest drift. */
export const summarize = (records: readonly ReconciliationRecord[]): PeriodSummary[] => {
  const byPeriod = new Map<string, PeriodSummary>();
  for (const record of records) {
    const summary = byPeriod.get(record.period) ?? {
      period: record.period,
      counts: Object.fromEntries(RECONCILIATION_STATUSES.map((s) => [s, 0])) as Record<
        ReconciliationStatus,
        number
      >,
      paging: 0,
    };
    summary.counts[record.status]++;
    if (record.pages) summary.paging++;
    if (
      record.status !== 'ok' &&
      (!summary.largest ||
        new Big(record.difference).abs().gt(new Big(summary.largest.difference).abs()))
    )
      summary.largest = record;
    byPeriod.set(record.period, summary);
  }
  return [...byPeriod.values()].sort((a, b) => a.period.localeCompare(b.period));
};
