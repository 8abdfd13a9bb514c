import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { InvoicingClient } from '@aws-sdk/client-invoicing';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, ScheduledEvent } from 'aws-lambda';
import {
  DEFAULT_DEDUP_TTL_SECONDS,
  ENV,
  readPositiveInteger,
  readRequired,
} from '../../contract/environment';
import {
  DEFAULT_RECONCILIATION_FLOOR,
  DEFAULT_RECONCILIATION_PROVIDER,
  RECONCILIATION_PROVIDERS,
  type ReconciliationProvider,
  DEFAULT_RECONCILIATION_LOOKBACK_DAYS,
  DEFAULT_RECONCILIATION_TOLERANCE_PERCENT,
  RECONCILIATION_ENV,
  RECONCILIATION_METRICS,
} from '../../contract/reconciliation';
import { assumedRoleCredentials } from '../adapters/assumed-role-credentials';
import { CostExplorerTotals } from '../adapters/cost-explorer-totals';
import { InvoicingTotals } from '../adapters/invoicing-totals';
import { readInScope, type LedgerInScope } from '../adapters/reconciliation-ledger';
import { writeCompleteness, writeReconciliations } from '../adapters/reconciliation-records';
import { SnsPublishOnce } from '../adapters/sns-publish-once';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import { RECONCILIATION_STATUSES, toleranceRatioOfPercent } from '../core/reconciliation/compare';
import { runReconciliation, type RunResult } from '../core/reconciliation/run';
import { onFirstInvocation } from './consumer';

/** The dedup-table key prefix of drift notification claims. */
export const RECONCILIATION_CLAIM_SCOPE = 'reconciliation';

export interface ReconciliationClients {
  dynamo: DynamoDBClient;
  costExplorer: CostExplorerClient;
  /** Needed with provider `invoicing` only. */
  invoicing?: InvoicingClient;
  /** Assumes the payer role (config `reconciliationRoleArn`); default: a client of the function's region. */
  sts?: STSClient;
  sns: SNSClient;
  now?: () => number;
  telemetry?: Telemetry;
}

export interface ReconciliationSettings {
  ledgerTable: string;
  tolerancePercent: string;
  floor: string;
  lookbackDays: number;
  payerTenant?: string;
  provider: ReconciliationProvider;
  /** The billing accounts whose invoices are summed (provider `invoicing`). */
  invoiceAccounts: string[];
  /** A payer role assumed to ask the provider (config `reconciliationRoleArn`), with its ExternalId. */
  payerRole?: { roleArn: string; externalId: string };
}

export const reconciliationSettings = (env: NodeJS.ProcessEnv): ReconciliationSettings => {
  const text = (name: string): string | undefined => env[name]?.trim() || undefined;
  const lookback = text(RECONCILIATION_ENV.lookbackDays);
  const lookbackDays =
    lookback === undefined ? DEFAULT_RECONCILIATION_LOOKBACK_DAYS : Number(lookback);
  if (!Number.isInteger(lookbackDays) || lookbackDays < 1)
    throw new Error(
      `Environment variable ${RECONCILIATION_ENV.lookbackDays} must be a positive integer`,
    );
  const payerTenant = text(RECONCILIATION_ENV.payerTenant);
  const providerText = text(RECONCILIATION_ENV.provider) ?? DEFAULT_RECONCILIATION_PROVIDER;
  const provider = RECONCILIATION_PROVIDERS.find((name) => name === providerText);
  if (!provider)
    throw new Error(
      `Environment variable ${RECONCILIATION_ENV.provider} must be ${RECONCILIATION_PROVIDERS.join(' or ')}, got ${JSON.stringify(providerText)}`,
    );
  const invoiceAccounts = (text(RECONCILIATION_ENV.invoiceAccounts) ?? '')
    .split(',')
    .map((account) => account.trim())
    .filter((account) => account.length > 0);
  if (provider === 'invoicing' && invoiceAccounts.length === 0)
    throw new Error(
      `Environment variable ${RECONCILIATION_ENV.invoiceAccounts} must name the billing accounts whose invoices are summed`,
    );
  const roleArn = text(RECONCILIATION_ENV.roleArn);
  const externalId = text(RECONCILIATION_ENV.externalId);
  if ((roleArn === undefined) !== (externalId === undefined))
    throw new Error(
      `Environment variables ${RECONCILIATION_ENV.roleArn} and ${RECONCILIATION_ENV.externalId} go together`,
    );
  return {
    ledgerTable: readRequired(env, ENV.ledgerTableName),
    tolerancePercent:
      text(RECONCILIATION_ENV.tolerancePercent) ?? DEFAULT_RECONCILIATION_TOLERANCE_PERCENT,
    floor: text(RECONCILIATION_ENV.floor) ?? DEFAULT_RECONCILIATION_FLOOR,
    lookbackDays,
    ...(payerTenant ? { payerTenant } : {}),
    provider,
    invoiceAccounts,
    ...(roleArn && externalId ? { payerRole: { roleArn, externalId } } : {}),
  };
};

/** Where Cost Explorer and the Invoicing API are: both answer in us-east-1 only. */
const PROVIDER_REGION = 'us-east-1';

/**
 * The clients that ask the provider: the given ones (the function's own credentials), or, with a payer
 * role, new ones whose credentials come from assuming it.
 */
const providerClients = (
  settings: ReconciliationSettings,
  clients: ReconciliationClients,
): { costExplorer: CostExplorerClient; invoicing?: InvoicingClient } => {
  if (!settings.payerRole)
    return {
      costExplorer: clients.costExplorer,
      ...(clients.invoicing ? { invoicing: clients.invoicing } : {}),
    };
  const credentials = assumedRoleCredentials({
    sts: clients.sts ?? new STSClient({}),
    ...settings.payerRole,
    sessionName: 'billing-dedup-reconciliation',
  });
  return {
    costExplorer: new CostExplorerClient({ region: PROVIDER_REGION, credentials }),
    invoicing: new InvoicingClient({ region: PROVIDER_REGION, credentials }),
  };
};

/** The provider's figures as configured: Cost Explorer, or the invoices of the billing accounts. */
const providerTotals = (
  settings: ReconciliationSettings,
  clients: { costExplorer: CostExplorerClient; invoicing?: InvoicingClient },
  now: () => number,
): CostExplorerTotals | InvoicingTotals => {
  const claimed = settings.payerTenant ? { claimedBy: settings.payerTenant } : {};
  return settings.provider === 'invoicing'
    ? new InvoicingTotals({
        client: clients.invoicing ?? new InvoicingClient({ region: PROVIDER_REGION }),
        accounts: settings.invoiceAccounts,
        now,
        ...claimed,
      })
    : new CostExplorerTotals({ client: clients.costExplorer, ...claimed });
};

/**
 * The nightly reconciliation (docs/reconciliation.md): wires the ledger reader, Cost Explorer, the
 * records store and the once-only notifier to `runReconciliation`, and reports the run's metrics. A run
 * is idempotent: it overwrites its own day's records, and a notification already sent is not sent again.
 */
export const createReconciliationHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: ReconciliationClients = {
    dynamo: new DynamoDBClient({}),
    costExplorer: new CostExplorerClient({}),
    sns: new SNSClient({}),
  },
) => {
  const settings = reconciliationSettings(env);
  const askers = providerClients(settings, clients);
  const now = clients.now ?? Date.now;
  const telemetry = clients.telemetry ?? createTelemetry(env);
  const notifier = new SnsPublishOnce({
    sns: clients.sns,
    dynamo: clients.dynamo,
    topicArn: readRequired(env, ENV.notificationsTopicArn),
    dedupTable: readRequired(env, ENV.dedupTableName),
    stream: RECONCILIATION_CLAIM_SCOPE,
    ttlSeconds: readPositiveInteger(env, ENV.dedupTtlSeconds, DEFAULT_DEDUP_TTL_SECONDS),
  });
  return async (
    _event: ScheduledEvent | Record<string, never>,
    context?: Context,
  ): Promise<
    Omit<RunResult, 'records' | 'completeness'> & {
      records: number;
      incomplete: number;
      providerRequests: number;
    }
  > => {
    if (context) notifier.useContext(context);
    const at = now();
    const provider = providerTotals(settings, askers, now);
    let ledger: Promise<LedgerInScope> | undefined;
    const inScope = () =>
      (ledger ??= readInScope(clients.dynamo, settings.ledgerTable, at, settings.lookbackDays));
    const result = await runReconciliation(
      {
        ledgerFigures: async () => (await inScope()).figures,
        snapshotCompleteness: async () => (await inScope()).completeness,
        providerAnswers: async (period) => [await provider.periodTotals(period)],
        store: (records, checkedAt) =>
          writeReconciliations(clients.dynamo, settings.ledgerTable, records, checkedAt),
        storeCompleteness: (records, checkedAt) =>
          writeCompleteness(clients.dynamo, settings.ledgerTable, records, checkedAt),
        notifyOnce: (key, message) => notifier.publish(key, message),
      },
      {
        now: at,
        tolerance: {
          ratio: toleranceRatioOfPercent(settings.tolerancePercent),
          floor: settings.floor,
        },
        tolerancePercent: settings.tolerancePercent,
      },
    );
    const { metrics, logger } = telemetry;
    const incomplete = result.completeness.filter((r) => r.pages).length;
    const paging = result.summaries.reduce((sum, s) => sum + s.paging, 0) + incomplete;
    metrics.addMetric(RECONCILIATION_METRICS.paging, MetricUnit.Count, paging);
    metrics.addMetric(RECONCILIATION_METRICS.incomplete, MetricUnit.Count, incomplete);
    metrics.addMetric(RECONCILIATION_METRICS.providerRequests, MetricUnit.Count, provider.requests);
    const largest = result.summaries
      .map((s) => s.largest)
      .filter((r) => r !== undefined)
      .map((r) => Math.abs(Number(r.difference)))
      .reduce((a, b) => Math.max(a, b), 0);
    // Display only (a metric value is a double); the records keep the exact figure.
    metrics.addMetric(RECONCILIATION_METRICS.largestDifference, MetricUnit.NoUnit, largest);
    for (const status of RECONCILIATION_STATUSES) {
      const count = result.records.filter((r) => r.status === status).length;
      const single = metrics.singleMetric();
      single.addDimension('status', status);
      single.addMetric(RECONCILIATION_METRICS.records, MetricUnit.Count, count);
    }
    metrics.publishStoredMetrics();
    const { completeness, ...rest } = result;
    const summary = {
      ...rest,
      records: result.records.length,
      incomplete,
      providerRequests: provider.requests,
    };
    logger.info('reconciliation', summary);
    for (const record of result.records.filter((r) => r.status !== 'ok'))
      logger.warn('reconciliation difference', { ...record });
    for (const record of completeness.filter((r) => r.pages))
      logger.warn('export snapshot incomplete', { ...record });
    return summary;
  };
};

export const handler = onFirstInvocation(() => createReconciliationHandler());
