import { createTelemetry, reportBatch } from '../../../lambda/adapters/telemetry';
import { EXECUTION_REUSED_METRIC } from '../../../contract/telemetry';

describe('reportBatch', () => {
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
