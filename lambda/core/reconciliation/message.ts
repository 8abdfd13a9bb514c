/**
 * The notification of a final provider figure above the tolerance (kind `reconciliation-drift`), and its
 * key: one notification per (tenant, account, period, currency) and pair of figures — the same drift found
 * again the next night is not sent again; a drift that changes is.
 */
import type { ReconciliationRecord } from './reconcile';

export const RECONCILIATION_DRIFT_KIND = 'reconciliation-drift';
const SUBJECT_LIMIT = 100;

export interface DriftMessage {
  subject: string;
  body: string;
  attributes: Record<string, string>;
}

export const driftKey = (record: ReconciliationRecord): string =>
  [
    RECONCILIATION_DRIFT_KIND,
    record.tenant,
    record.accountId,
    record.period,
    record.currency,
    record.ledger,
    record.provider,
  ].join('#');

export const driftMessage = (
  record: ReconciliationRecord,
  tolerancePercent: string,
): DriftMessage => ({
  subject:
    `Billing reconciliation ${record.status}: ${record.tenant} ${record.period} ${record.accountId} ${record.currency}`
      .replace(/[^\x20-\x7E]/g, '?')
      .slice(0, SUBJECT_LIMIT),
  body: [
    `The ledger and the provider's final figure differ by more than ${tolerancePercent} %.`,
    '',
    `tenant: ${record.tenant}`,
    `account: ${record.accountId}`,
    `billing period: ${record.period}`,
    `currency: ${record.currency}`,
    `status: ${record.status}`,
    `ledger: ${record.ledger}`,
    `provider: ${record.provider}`,
    `difference (ledger − provider): ${record.difference}`,
    `ratio: ${record.ratio ?? '(no provider figure)'}`,
    '',
    'Runbook: docs/operations.md "Reconciliation drift".',
  ].join('\n'),
  attributes: {
    kind: RECONCILIATION_DRIFT_KIND,
    tenant: record.tenant,
    account: record.accountId,
  },
});
