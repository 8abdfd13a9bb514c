import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { EXPORT_SHADOWED_METRIC } from '../../../contract/telemetry';
import { reportBatch, type Telemetry } from '../../../lambda/adapters/telemetry';

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
});
