import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { Readable } from 'node:stream';
import { consumerEnvironment } from '../../../contract/environment';
import { manifestFor } from '../../../lambda/core/exports/manifest';
import { createExportChunkHandler } from '../../../lambda/handlers/export-chunk';
import { createExportPlannerHandler } from '../../../lambda/handlers/export-planner';
import '../../support/quiet-telemetry';

const env = consumerEnvironment({
  streamName: 'export-deliveries',
  dlqUrl: 'https://sqs.local/dlq',
  dedupTableName: 'dedup',
  ledgerTableName: 'ledger',
  exportBucketName: 'exports',
  exportSources: JSON.stringify([{ tenant: 'acme', prefix: 'acme/' }]),
  chunkQueueUrl: 'https://sqs.local/chunks',
  notificationsTopicArn: 'arn:aws:sns:us-east-1:123456789012:notifications',
  logLevel: 'SILENT',
});

const built = manifestFor({
  bucket: 'exports',
  prefix: 'acme',
  exportName: 'focus',
  billingPeriod: '2026-11',
  executionId: 'e-1',
  columns: [
    'BilledCost',
    'BillingAccountId',
    'BillingCurrency',
    'BillingPeriodStart',
    'ChargeCategory',
    'ChargePeriodStart',
    'ChargePeriodEnd',
  ],
  dataFileNames: ['a.csv', 'b.csv'],
});

const eventOf = (body: unknown): SQSEvent =>
  ({
    Records: [{ messageId: 'm-1', body: JSON.stringify(body), messageAttributes: {} }],
  }) as unknown as SQSEvent;

const clients = () => {
  const dynamo = new DynamoDBClient({ region: 'us-east-1' });
  const sqs = new SQSClient({ region: 'us-east-1' });
  const s3 = new S3Client({ region: 'us-east-1' });
  const sns = new SNSClient({ region: 'us-east-1' });
  return {
    clients: { dynamo, sqs, s3, sns },
    mocks: { dynamo: mockClient(dynamo), sqs: mockClient(sqs), s3: mockClient(s3) },
  };
};

describe('export handlers', () => {
  it('the planner plans a delivered manifest: one SendMessageBatch per 10 tasks, then marks the plan enqueued', async () => {
    const { clients: c, mocks } = clients();
    mocks.s3.on(HeadObjectCommand).resolves({ ContentLength: 100, ETag: '"x"' });
    mocks.s3.on(GetObjectCommand, { Key: built.manifestKey }).resolves({
      Body: Readable.from([Buffer.from(built.json)]) as never,
    });
    mocks.dynamo.on(GetItemCommand).resolves({});
    mocks.dynamo.on(PutItemCommand).resolves({});
    mocks.dynamo.on(UpdateItemCommand).resolves({});
    mocks.sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });

    const handler = createExportPlannerHandler(env, c);
    const response = await handler(
      eventOf({
        Records: [
          {
            eventName: 'ObjectCreated:Put',
            eventTime: '2026-11-02T06:00:00.000Z',
            s3: {
              bucket: { name: 'exports' },
              object: { key: built.manifestKey, sequencer: '0A' },
            },
          },
        ],
      }),
    );
    expect(response.batchItemFailures).toEqual([]);
    const sends = mocks.sqs.commandCalls(SendMessageBatchCommand);
    expect(sends).toHaveLength(1);
    expect(sends[0].args[0].input.QueueUrl).toBe('https://sqs.local/chunks');
    expect(sends[0].args[0].input.Entries).toHaveLength(2);
    const marked = mocks.dynamo.commandCalls(UpdateItemCommand);
    expect(marked[0].args[0].input.UpdateExpression).toContain('enqueuedAt');
  });

  it('the planner acknowledges the S3 test event without touching S3', async () => {
    const { clients: c, mocks } = clients();
    const response = await createExportPlannerHandler(
      env,
      c,
    )(eventOf({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'exports' }));
    expect(response.batchItemFailures).toEqual([]);
    expect(mocks.s3.calls()).toHaveLength(0);
  });

  it('the chunk worker wires without a Lambda context and fails a task whose store is unreachable', async () => {
    const { clients: c, mocks } = clients();
    mocks.dynamo.rejects(new Error('network down'));
    const handler = createExportChunkHandler({ ...env, STREAM_NAME: 'export-chunks' }, c);
    const response = await handler(
      eventOf({
        version: 1,
        bucket: 'exports',
        ref: {
          tenant: 'acme',
          source: 'exports/acme/focus',
          period: '2026-11',
          executionId: 'e-1',
        },
        task: { index: 0, kind: 'csv-file', objectKey: built.dataFileKeys[0], format: 'csv' },
      }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
  });

  it('refuses to wire without the export bucket, naming the variable', () => {
    const { clients: c } = clients();
    expect(() => createExportPlannerHandler({ ...env, EXPORT_BUCKET_NAME: '' }, c)).toThrow(
      /EXPORT_BUCKET_NAME/,
    );
  });
});
