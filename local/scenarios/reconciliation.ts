/**
 * The provider's own totals for one month of the sample, told to the local stand-in once everything
 * else settled, then that month reconciled (local/reconciliation/stand-in.ts). Built from the sample's
 * final ledger truth of its first month (the eventId conflicts, whose winner the run decides, are in the
 * second): the largest account total is reported 0.05 % higher (within the 0.1 % tolerance),
 * the second largest 2 % higher (drift), one account is left out (missing-at-provider), the provider
 * names an account the ledger never saw (missing-in-ledger), and every other account matches exactly.
 * The expected status of every row is part of the truth, so the verdict checks them, not a rule.
 */
import Big from 'big.js';
import type { ReconciliationStatus } from '../../lambda/core/reconciliation/compare';
import type { ProviderTotalLine } from '../reconciliation/stand-in';
import type { GroundTruth } from './sample';
import { MONTHS } from './tenants';

/** A row the report's `reconciliation` list must hold at the end of the run. */
export interface ExpectedReconciliation {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  /** Exact decimal; '0' for an account the ledger lacks. */
  ledger: string;
  /** Exact decimal; '0' for an account the provider lacks. */
  provider: string;
  status: ReconciliationStatus;
}

export interface SampleReconciliation {
  /** The provider's figures, told to the stand-in in this order. */
  totals: ProviderTotalLine[];
  /** The month reconciled after them. */
  period: string;
}

/** An account id no sample scenario books: the provider's figure the ledger lacks. */
export const UNBOOKED_ACCOUNT = '999000000001';
const WITHIN = '1.0005';
const DRIFT = '1.02';

const scaled = (total: string, factor: string): string =>
  new Big(total).times(factor).round(2, Big.roundHalfUp).toFixed(2);

export const providerReconciliation = (
  truth: Pick<GroundTruth, 'ledger' | 'conflicts'>,
  period: string = MONTHS[0],
): { reconciliation: SampleReconciliation; expected: ExpectedReconciliation[] } => {
  // Which copy of an eventId conflict wins is up to the run, so its total is not known in advance.
  if (truth.conflicts.some((pair) => pair.first.effect.period === period))
    throw new Error(`the sample's eventId conflicts are in ${period}: reconcile another month`);
  const { ledger } = truth;
  const rows = ledger
    .filter((row) => row.period === period)
    .sort(
      (a, b) =>
        new Big(b.total).cmp(a.total) ||
        a.tenant.localeCompare(b.tenant) ||
        a.accountId.localeCompare(b.accountId) ||
        a.currency.localeCompare(b.currency),
    );
  const [within, drift] = rows;
  // The smallest total well above the comparison's absolute floor: left out by the provider.
  const missing = rows
    .slice(2)
    .reverse()
    .find((row) => new Big(row.total).gte(1));
  if (!within || !drift || !missing || new Big(drift.total).lt(10))
    throw new Error(`the sample's ${period} ledger is too small to reconcile`);
  const totals: ProviderTotalLine[] = [];
  const expected: ExpectedReconciliation[] = [];
  for (const row of rows) {
    const { tenant, accountId, currency, total } = row;
    if (row === missing) {
      expected.push({
        tenant,
        accountId,
        period,
        currency,
        ledger: total,
        provider: '0',
        status: 'missing-at-provider',
      });
      continue;
    }
    const amount =
      row === within ? scaled(total, WITHIN) : row === drift ? scaled(total, DRIFT) : total;
    totals.push({ tenant, accountId, period, currency, amount });
    expected.push({
      tenant,
      accountId,
      period,
      currency,
      ledger: total,
      provider: amount,
      status: row === drift ? 'drift' : 'ok',
    });
  }
  const unbooked: ProviderTotalLine = {
    tenant: within.tenant,
    accountId: UNBOOKED_ACCOUNT,
    period,
    currency: within.currency,
    amount: '42.00',
  };
  totals.push(unbooked);
  expected.push({
    ...unbooked,
    ledger: '0',
    provider: unbooked.amount,
    status: 'missing-in-ledger',
  });
  return { reconciliation: { totals, period }, expected };
};
