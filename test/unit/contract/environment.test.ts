import {
  ENV,
  type ConsumerEnvironment,
  consumerEnvironment,
  readLateChargePolicy,
  readPositiveInteger,
  readQueueKind,
  readTotalShards,
  readTenantBindings,
} from '../../../contract/environment';
import { COST_STREAM } from '../../../contract/streams';
import {
  consumerSettings,
  ledgerTableName,
  archiveBucketName,
  archiveSpoolUrl,
  archiverSettings,
  notificationsTopicArn,
} from '../../../lambda/adapters/settings';
import {
  chunkWorkerSettings,
  exportSettings,
  plannerSettings,
} from '../../../lambda/adapters/export-settings';
import { acquisitionStepSettings } from '../../../lambda/adapters/sqs-acquisition-steps';
import { DEFAULTS } from '../../../lib/config';

const everySetting: Required<ConsumerEnvironment> = {
  streamName: COST_STREAM,
  queueKind: 'fifo',
  deliveryMode: 'envelope',
  dlqUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq.fifo',
  dedupTableName: 'dedup',
  dedupTtlSeconds: 86_400,
  maxConcurrency: 3,
  ledgerTableName: 'ledger',
  notificationsTopicArn: 'arn:aws:sns:us-east-1:123456789012:notifications',
  tenantBindings: JSON.stringify({
    topicArnPattern:
      'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events-{tenant}.fifo',
    tenants: { acme: { sources: ['aws'] }, globex: {} },
  }),
  serviceName: 'billing-dedup-dev-cost-ledger',
  metricsNamespace: 'BillingDedup',
  logLevel: 'DEBUG',
  exportBucketName: 'billing-exports',
  archiveBucketName: 'billing-archive',
  archiveSpoolUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/archive-spool',
  exportSources: JSON.stringify([{ tenant: 'acme', prefix: 'acme/focus/', source: 'aws' }]),
  chunkQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/export-chunks',
  exportDiffThreshold: '0.50',
  exportCsvSubchunkRows: 1000,
  exportParquetRowsPerTask: 5000,
  exportChunkMaxReceiveCount: 20,
  acquisitionStepQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/export-azure-steps',
  acquisitionStepMaxReceiveCount: 7,
  additiveSources: 'internal,gcp',
  provisionalDriftPercent: '2.5',
  provisionalDriftFloor: '0.50',
  totalShards: 4,
  lateChargePolicy: 'reject',
  autoCloseAfterDays: 5,
};

describe('ledger settings of the cost consumer', () => {
  it('default to 8 shards and roll-forward; out-of-range values name the variable', () => {
    expect(readTotalShards({})).toBe(8);
    expect(readLateChargePolicy({})).toBe('roll-forward');
    expect(() => readTotalShards({ TOTAL_SHARDS: '33' })).toThrow('TOTAL_SHARDS must be 1..32');
    expect(() => readTotalShards({ TOTAL_SHARDS: '0' })).toThrow('TOTAL_SHARDS');
    expect(() => readLateChargePolicy({ LATE_CHARGE_POLICY: 'ignore' })).toThrow(
      'LATE_CHARGE_POLICY must be roll-forward or reject, got "ignore"',
    );
  });
});

describe('consumer environment contract', () => {
  it('what lib/ writes is what the consumers read back', () => {
    const env = consumerEnvironment(everySetting);
    expect(consumerSettings(env)).toEqual({
      stream: COST_STREAM,
      fifo: true,
      deliveryMode: 'envelope',
      dlqUrl: everySetting.dlqUrl,
      dedupTable: 'dedup',
      ttlSeconds: 86_400,
      concurrency: 3,
    });
    expect(ledgerTableName(env)).toBe('ledger');
    expect(archiveBucketName(env)).toBe('billing-archive');
    expect(archiveSpoolUrl(env)).toBe(everySetting.archiveSpoolUrl);
    expect(archiverSettings(env)).toEqual({
      stream: COST_STREAM,
      dlqUrl: everySetting.dlqUrl,
      bucket: 'billing-archive',
    });
    expect(archiveSpoolUrl({})).toBeUndefined();
    expect(() => archiverSettings({ STREAM_NAME: 'archive-spool', DLQ_URL: 'x' })).toThrow(
      'ARCHIVE_BUCKET_NAME',
    );
    expect(readTotalShards(env)).toBe(4);
    expect(readLateChargePolicy(env)).toBe('reject');
    expect(notificationsTopicArn(env)).toBe(everySetting.notificationsTopicArn);
    expect(readTenantBindings(env)).toEqual(JSON.parse(everySetting.tenantBindings));
    expect(exportSettings(env)).toEqual({
      bucket: 'billing-exports',
      sources: [{ tenant: 'acme', bucket: 'billing-exports', prefix: 'acme/focus', source: 'aws' }],
      ledgerTable: 'ledger',
      defaultProvider: 'aws',
    });
    expect(plannerSettings(env)).toEqual({
      chunkQueueUrl: everySetting.chunkQueueUrl,
      parquetRowsPerTask: 5000,
    });
    expect(chunkWorkerSettings(env)).toEqual({
      threshold: '0.50',
      additiveSources: ['internal', 'gcp'],
      driftThreshold: { ratio: '0.025', floor: '0.5' },
      subChunkRows: 1000,
      notificationsTopicArn: everySetting.notificationsTopicArn,
      maxReceiveCount: 20,
    });
    expect(acquisitionStepSettings(env)).toEqual({
      queueUrl: everySetting.acquisitionStepQueueUrl,
      dlqUrl: everySetting.dlqUrl,
      maxReceiveCount: 7,
    });
    expect(acquisitionStepSettings({})).toEqual({ maxReceiveCount: 5 });
  });

  it('refuses an export diff threshold that is not an exact decimal ≥ 0, naming the variable', () => {
    const env = consumerEnvironment({ ...everySetting, exportDiffThreshold: '-1' });
    expect(() => chunkWorkerSettings(env)).toThrow(/EXPORT_DIFF_THRESHOLD/);
  });

  it('defaults the drift threshold to 1 % and 1; refuses one that is not an exact decimal ≥ 0, naming the variable', () => {
    const env = consumerEnvironment({
      ...everySetting,
      provisionalDriftPercent: undefined,
      provisionalDriftFloor: undefined,
    });
    expect(chunkWorkerSettings(env).driftThreshold).toEqual({ ratio: '0.01', floor: '1' });
    expect(() =>
      chunkWorkerSettings(consumerEnvironment({ ...everySetting, provisionalDriftFloor: '-1' })),
    ).toThrow(
      'Environment variable PROVISIONAL_DRIFT_FLOOR must be an exact decimal ≥ 0, got "-1"',
    );
  });

  it('writes one variable per given setting, under its contract name, as a string', () => {
    expect(consumerEnvironment({ streamName: COST_STREAM, maxConcurrency: 8 })).toEqual({
      [ENV.streamName]: COST_STREAM,
      [ENV.maxConcurrency]: '8',
    });
    expect(Object.keys(consumerEnvironment(everySetting)).sort()).toEqual(
      Object.values(ENV).sort(),
    );
  });

  it('falls back to the CDK configuration defaults when a variable is absent', () => {
    const settings = consumerSettings({
      [ENV.streamName]: COST_STREAM,
      [ENV.dlqUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
      [ENV.dedupTableName]: 'dedup',
    });
    expect(settings.ttlSeconds).toBe(DEFAULTS.dedupTtlDays * 86_400);
    expect(settings.concurrency).toBe(DEFAULTS.inBatchConcurrency);
    expect(settings.fifo).toBe(false);
  });

  it('names the variable in every error', () => {
    expect(() => readQueueKind({ [ENV.queueKind]: 'fifo ' })).not.toThrow();
    expect(() => readQueueKind({ [ENV.queueKind]: 'FIFO' })).toThrow(
      'Environment variable QUEUE_KIND must be fifo or standard',
    );
    expect(() => consumerSettings({ [ENV.queueKind]: 'fifo' })).toThrow(
      'Environment variable STREAM_NAME is not set',
    );
    expect(() => readPositiveInteger({ [ENV.maxConcurrency]: '0' }, ENV.maxConcurrency, 8)).toThrow(
      'Environment variable MAX_CONCURRENCY must be a positive integer',
    );
    expect(() => ledgerTableName({ [ENV.ledgerTableName]: '  ' })).toThrow(
      'Environment variable LEDGER_TABLE_NAME is not set',
    );
  });
});
