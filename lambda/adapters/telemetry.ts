import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { ENV } from '../../contract/environment';
import { METRIC_NAMESPACE } from '../../contract/telemetry';
import type { BatchOutcome } from '../core/batch';
import { shortHash } from '../core/keys';
import type { Outcome } from '../core/outcomes';

export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
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
});

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
  telemetry.metrics.publishStoredMetrics();
};
