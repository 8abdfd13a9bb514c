import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { ENV } from '../../contract/environment';
import { tenantBindings } from './settings';
import type { TenantBindings } from '../../contract/tenant-bindings';
import {
  ACCEPTED_METRIC,
  EXPORT_SHADOWED_METRIC,
  EXECUTION_REUSED_METRIC,
  METRIC_NAMESPACE,
  PROVISIONAL_DRIFT_METRICS,
} from '../../contract/telemetry';
import type { BatchOutcome } from '../core/batch';
import { shortHash } from '../core/keys';
import type { Outcome, RecordResult } from '../core/outcomes';

export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
  /** Dimension values of the accepted-event metrics: configured tenants and sources, the rest `other`. */
  scopes?: AcceptedScopes;
}

export const createTelemetry = (env: NodeJS.ProcessEnv = process.env): Telemetry => ({
  logger: new Logger({
    serviceName: env[ENV.serviceName],
    logLevel: (env[ENV.logLevel] as 'INFO' | undefined) ?? 'INFO',
  }),
  metrics: new Metrics({
    namespace: env[ENV.metricsNamespace] ?? METRIC_NAMESPACE,
    serviceName: env[ENV.serviceName],
  }),
  scopes: acceptedScopesOf(tenantBindings(env)),
});

/**
 * Each distinct dimension value is a CloudWatch metric of its own (billed, and a publisher could make up
 * tenants or sources by the thousand through the trusted topic), so only the tenants and sources named
 * by the bindings get their own value; everything else is counted as `other`.
 */
export interface AcceptedScopes {
  tenants: ReadonlySet<string>;
  sources: ReadonlySet<string>;
}

export const OTHER_SCOPE = 'other';

export const acceptedScopesOf = (bindings: TenantBindings | undefined): AcceptedScopes => {
  const tenants = Object.entries(bindings?.tenants ?? {});
  return {
    tenants: new Set(tenants.map(([tenant]) => tenant)),
    sources: new Set(tenants.flatMap(([, binding]) => binding.sources ?? [])),
  };
};

/** Accepted records (applied, restated, duplicate, superseded) per tenant and per tenant and source. */
export const acceptedCounts = (
  results: readonly RecordResult[],
  scopes: AcceptedScopes,
): { tenant: string; source: string; count: number }[] => {
  const counts = new Map<string, { tenant: string; source: string; count: number }>();
  for (const { scope } of results) {
    if (!scope) continue;
    const tenant = scopes.tenants.has(scope.tenant) ? scope.tenant : OTHER_SCOPE;
    const source = scopes.sources.has(scope.source) ? scope.source : OTHER_SCOPE;
    const key = `${tenant}\n${source}`;
    const entry = counts.get(key) ?? { tenant, source, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()];
};

const reportAccepted = (telemetry: Telemetry, results: readonly RecordResult[]): void => {
  const perTenant = new Map<string, number>();
  for (const { tenant, source, count } of acceptedCounts(results, telemetry.scopes ?? NO_SCOPES)) {
    perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + count);
    const bySource = telemetry.metrics.singleMetric();
    bySource.addDimension('tenant', tenant).addDimension('source', source);
    bySource.addMetric(ACCEPTED_METRIC, MetricUnit.Count, count);
  }
  for (const [tenant, count] of perTenant) {
    const byTenant = telemetry.metrics.singleMetric();
    byTenant.addDimension('tenant', tenant);
    byTenant.addMetric(ACCEPTED_METRIC, MetricUnit.Count, count);
  }
};

/** One value of each drift metric per export switch that superseded stream charges. */
const reportDrift = (telemetry: Telemetry, results: readonly RecordResult[]): void => {
  for (const { provisionalDrift: drift } of results) {
    if (!drift) continue;
    const { metrics } = telemetry;
    metrics.addMetric(
      PROVISIONAL_DRIFT_METRICS.difference,
      MetricUnit.NoUnit,
      Number(drift.largestDifference),
    );
    if (drift.largestRatio !== undefined)
      metrics.addMetric(
        PROVISIONAL_DRIFT_METRICS.percent,
        MetricUnit.Percent,
        Number(drift.largestRatio) * 100,
      );
    metrics.addMetric(PROVISIONAL_DRIFT_METRICS.above, MetricUnit.Count, drift.above);
  }
};

const NO_SCOPES: AcceptedScopes = { tenants: new Set(), sources: new Set() };

/** One structured line per record, a batch summary, and one EMF count per outcome. */
export const reportBatch = (telemetry: Telemetry, stream: string, outcome: BatchOutcome): void => {
  const counts: Partial<Record<Outcome, number>> = {};
  for (const result of outcome.results) {
    counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
    const line = {
      messageId: result.messageId,
      stream,
      outcome: result.outcome,
      ...(result.hash ? { hash: shortHash(result.hash) } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.shadowedBy ? { shadowedBy: result.shadowedBy } : {}),
      ...(result.code ? { code: result.code } : {}),
    };
    if (
      result.outcome === 'failed' ||
      result.outcome === 'conflict' ||
      result.outcome === 'rejected'
    ) {
      telemetry.logger.warn('record', line);
    } else {
      telemetry.logger.info('record', line);
    }
  }
  telemetry.logger.info('batch', { stream, records: outcome.results.length, ...counts });
  if (outcome.results.length === 0) return;
  for (const [name, count] of Object.entries(counts))
    telemetry.metrics.addMetric(name, MetricUnit.Count, count);
  const shadowed = outcome.results.filter((result) => result.shadowedBy !== undefined).length;
  if (shadowed > 0) telemetry.metrics.addMetric(EXPORT_SHADOWED_METRIC, MetricUnit.Count, shadowed);
  const reused = outcome.results.filter((result) => result.code === 'execution-reused').length;
  if (reused > 0) telemetry.metrics.addMetric(EXECUTION_REUSED_METRIC, MetricUnit.Count, reused);
  reportDrift(telemetry, outcome.results);
  telemetry.metrics.publishStoredMetrics();
  reportAccepted(telemetry, outcome.results);
};
