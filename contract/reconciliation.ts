/**
 * The nightly reconciliation's settings as they cross from lib/ (config keys `reconciliation*`) to the
 * function's environment and back (docs/reconciliation.md). Kept apart from contract/environment.ts:
 * only the reconciliation function reads them.
 */
export const RECONCILIATION_ENV = {
  tolerancePercent: 'RECONCILIATION_TOLERANCE_PERCENT',
  floor: 'RECONCILIATION_FLOOR',
  lookbackDays: 'RECONCILIATION_LOOKBACK_DAYS',
  payerTenant: 'RECONCILIATION_PAYER_TENANT',
  /** Where the provider's figures come from (`RECONCILIATION_PROVIDERS`). */
  provider: 'RECONCILIATION_PROVIDER',
  /** Comma-separated billing accounts whose invoices are summed (provider `invoicing`). */
  invoiceAccounts: 'RECONCILIATION_INVOICE_ACCOUNTS',
  /** A role in the payer (or management) account the function assumes to ask the provider. */
  roleArn: 'RECONCILIATION_ROLE_ARN',
  /** The ExternalId the role's trust policy requires. */
  externalId: 'RECONCILIATION_EXTERNAL_ID',
} as const;

/** Cost Explorer per linked account (every night), or the invoices per billing account (closed periods). */
export const RECONCILIATION_PROVIDERS = ['cost-explorer', 'invoicing'] as const;
export type ReconciliationProvider = (typeof RECONCILIATION_PROVIDERS)[number];
export const DEFAULT_RECONCILIATION_PROVIDER: ReconciliationProvider = 'cost-explorer';

export const DEFAULT_RECONCILIATION_TOLERANCE_PERCENT = '0.1';
export const DEFAULT_RECONCILIATION_FLOOR = '0.01';
export const DEFAULT_RECONCILIATION_LOOKBACK_DAYS = 45;
export const DEFAULT_RECONCILIATION_TIME_UTC = '04:30';
/** CloudWatch metrics of a run (namespace contract/telemetry.ts METRIC_NAMESPACE, dimension service). */
export const RECONCILIATION_METRICS = {
  /** Final figures above the tolerance, plus incomplete counted export snapshots, in the run: the alarm's metric. */
  paging: 'reconciliationPaging',
  /** Account-period records whose counted export snapshot did not read every row of its files. */
  incomplete: 'reconciliationIncomplete',
  /** Records per status (dimension `status`). */
  records: 'reconciliationRecords',
  /** |difference| of the largest drift of the run, in its own currency (display only). */
  largestDifference: 'reconciliationLargestDifference',
  /** Billed Cost Explorer requests of the run. */
  providerRequests: 'reconciliationProviderRequests',
} as const;

/** `HH:MM` (UTC) → the hour and minute a schedule expression needs. */
export const parseTimeUtc = (text: string): { hour: number; minute: number } => {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!match) throw new Error(`not a HH:MM time (UTC): ${JSON.stringify(text)}`);
  return { hour: Number(match[1]), minute: Number(match[2]) };
};
