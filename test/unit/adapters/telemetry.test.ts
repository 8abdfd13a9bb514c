import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  EXECUTION_REUSED_METRIC,
  EXPORT_SHADOWED_METRIC,
  PROVISIONAL_DRIFT_METRICS,
} from '../../../contract/telemetry';
import { createTelemetry, reportBatch, type Telemetry } from '../../../lambda/adapters/telemetry';

describe('reportBatch', () => {
  it('counts export switches of a shadowed source and logs the source that counts instead', () => {
    const telemetry: Telemetry = {
      logger: new Logger({ serviceName: 'test' }),
      metrics: new Metrics({ namespace: 'Test', serviceName: 'test' }),
    };
    const metrics = jest.spyOn(telemetry.metrics, 'addMetric');
    jest
      .spyOn(telemetry.metrics, 'publishStoredMetrics')
      .mockImplementation(() => telemetry.metrics);
    const lines = jest.spyOn(telemetry.logger, 'info').mockImplementation(() => undefined);
    reportBatch(telemetry, 'export-chunks', {
      batchItemFailures: [],
      results: [
        { messageId: 'm-1', outcome: 'applied', shadowedBy: 'exports/acme/focus' },
        { messageId: 'm-2', outcome: 'applied' },
      ],
    });
    expect(metrics).toHaveBeenCalledWith(EXPORT_SHADOWED_METRIC, 'Count', 1);
    expect(lines).toHaveBeenCalledWith(
      'record',
      expect.objectContaining({ messageId: 'm-1', shadowedBy: 'exports/acme/focus' }),
    );
  });

  it('publishes the drift of a switch that superseded stream charges: largest figure, largest ratio in percent, count above', () => {
    const telemetry: Telemetry = {
      logger: new Logger({ serviceName: 'test' }),
      metrics: new Metrics({ namespace: 'Test', serviceName: 'test' }),
    };
    const metrics = jest.spyOn(telemetry.metrics, 'addMetric');
    jest
      .spyOn(telemetry.metrics, 'publishStoredMetrics')
      .mockImplementation(() => telemetry.metrics);
    jest.spyOn(telemetry.logger, 'info').mockImplementation(() => undefined);
    reportBatch(telemetry, 'export-chunks', {
      batchItemFailures: [],
      results: [
        {
          messageId: 'm-1',
          outcome: 'applied',
          provisionalDrift: {
            accounts: 3,
            above: 1,
            notified: 1,
            largestDifference: '2.5',
            largestRatio: '0.0125',
          },
        },
        { messageId: 'm-2', outcome: 'applied' },
      ],
    });
    expect(metrics).toHaveBeenCalledWith(PROVISIONAL_DRIFT_METRICS.difference, 'None', 2.5);
    expect(metrics).toHaveBeenCalledWith(PROVISIONAL_DRIFT_METRICS.percent, 'Percent', 1.25);
    expect(metrics).toHaveBeenCalledWith(PROVISIONAL_DRIFT_METRICS.above, 'Count', 1);
    expect(metrics.mock.calls.filter(([name]) => name.startsWith('provisionalDrift'))).toHaveLength(
      3,
    );
  });

  it('counts manifests refused for a re-used executionId in a metric of their own', () => {
    const telemetry = createTelemetry({ POWERTOOLS_DEV: 'true' });
    const added: [string, number][] = [];
    jest
      .spyOn(telemetry.metrics, 'addMetric')
      .mockImplementation((name: string, _unit: unknown, value: number) => {
        added.push([name, value]);
        return telemetry.metrics;
      });
    jest
      .spyOn(telemetry.metrics, 'publishStoredMetrics')
      .mockImplementation(() => telemetry.metrics);
    jest.spyOn(telemetry.logger, 'warn').mockImplementation(() => undefined);
    jest.spyOn(telemetry.logger, 'info').mockImplementation(() => undefined);

    reportBatch(telemetry, 'export-deliveries', {
      results: [
        { messageId: 'a', outcome: 'rejected', code: 'execution-reused', reason: 'other content' },
        { messageId: 'b', outcome: 'rejected', code: 'invalid-field', reason: 'bad manifest' },
        { messageId: 'c', outcome: 'applied' },
      ],
      batchItemFailures: [],
    });

    expect(added).toEqual([
      ['rejected', 2],
      ['applied', 1],
      [EXECUTION_REUSED_METRIC, 1],
    ]);
  });
});
