/**
 * The verdict's reconciliation check: the report's `reconciliation` rows must be exactly the rows the
 * sample's truth expects (same accounts, figures and statuses), and they must show a figure within
 * tolerance, a drifting one and a missing one (the stand-in's `reconciliationCheck`).
 */
import Big from 'big.js';
import { reconciliationCheck, type ReconciliationRow } from '../reconciliation/stand-in';
import type { ExpectedReconciliation } from '../scenarios/reconciliation';
import type { Check } from './run-report';

const rowText = (row: Omit<ExpectedReconciliation, 'status'> & { status: string }): string =>
  [
    row.tenant,
    row.accountId,
    row.period,
    row.currency,
    `ledger ${new Big(row.ledger).toString()}`,
    `provider ${new Big(row.provider).toString()}`,
    `difference ${new Big(row.ledger).minus(row.provider).toString()}`,
    row.status,
  ].join(' ');

export const reconciliationAgainstTruth = (
  expected: readonly ExpectedReconciliation[],
  actual: readonly ReconciliationRow[] | undefined,
): Check => {
  const rows = actual ?? [];
  const want = expected.map(rowText);
  const got = rows.map((row) => {
    const text = rowText(row);
    // The row's own difference must be ledger − provider too.
    return new Big(row.difference).eq(new Big(row.ledger).minus(row.provider))
      ? text
      : `${text} (difference given ${row.difference})`;
  });
  const problems = [
    ...(actual === undefined ? ['no reconcile step ran'] : []),
    ...want.filter((text) => !got.includes(text)).map((text) => `missing ${text}`),
    ...got.filter((text) => !want.includes(text)).map((text) => `unexpected ${text}`),
  ];
  const cases = reconciliationCheck(rows);
  if (!cases.ok) problems.push(`not one ok, one drift and one missing row: ${cases.detail}`);
  return {
    name: 'reconciliation',
    ok: problems.length === 0,
    detail:
      problems.length === 0
        ? `${cases.detail}, as the truth expects`
        : `${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}`,
  };
};
