import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { consumerEnvironment, type ConsumerEnvironment } from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
} from './aws-local';

/** The real cost-ledger handler archiving into the S3 emulator, on fresh DynamoDB Local tables. */
export interface ArchivingLedger {
  s3: LocalS3;
  sqs: LocalSqs;
  dynamo: DynamoDBClient;
  tables: LedgerTables;
  handler: ReturnType<typeof createCostLedgerHandler>;
  stop(): Promise<void>;
}

/**
 * Starts the emulators and the handler (standard queue, a real DLQ queue, archive bucket `bucket`);
 * `settings` adds to or overrides the consumer's environment.
 */
export const startArchivingLedger = async (
  bucket: string,
  settings: Partial<ConsumerEnvironment> = {},
): Promise<ArchivingLedger> => {
  const [s3, sqs] = await Promise.all([startLocalS3({ buckets: [bucket] }), startLocalSqs()]);
  const dynamo = localDynamo();
  const tables = await createLedgerTables(dynamo);
  const handler = createCostLedgerHandler(
    consumerEnvironment({
      streamName: COST_STREAM,
      queueKind: 'standard',
      dlqUrl: await sqs.createQueue(`${bucket}-dlq-${randomUUID().slice(0, 8)}`),
      dedupTableName: tables.dedupTable,
      ledgerTableName: tables.ledgerTable,
      logLevel: 'SILENT',
      archiveBucketName: bucket,
      ...settings,
    }),
    { dynamo, sqs: sqs.client, s3: s3.client },
  );
  return {
    s3,
    sqs,
    dynamo,
    tables,
    handler,
    stop: async () => {
      dynamo.destroy();
      await Promise.all([s3.stop(), sqs.stop()]);
    },
  };
};
