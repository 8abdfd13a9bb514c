import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ExportObjects } from '../adapters/export-objects';
import { ExportPlans } from '../adapters/export-plans';
import { exportSettings, plannerSettings } from '../adapters/export-settings';
import { ExportStore } from '../adapters/export-store';
import { s3ClientFor } from '../adapters/s3-client';
import { S3Objects } from '../adapters/s3-objects';
import { SqsTaskQueue } from '../adapters/sqs-task-queue';
import type { BatchObserver } from '../core/batch';
import { processManifestBatch } from '../core/exports/manifest-batch';
import { batchHandler, onFirstInvocation, wireConsumer } from './consumer';
import { RemainingTime } from './remaining-time';

export interface ExportPlannerClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  s3: S3Client;
}

/** Wires adapters to the planner core once per container; clients are injectable for local runs and tests. */
export const createExportPlannerHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: ExportPlannerClients = {
    dynamo: new DynamoDBClient({}),
    sqs: new SQSClient({}),
    s3: s3ClientFor(env),
  },
  observe?: BatchObserver,
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  const wiring = wireConsumer(env, clients);
  const { settings, deadLetters } = wiring;
  const exports = exportSettings(env);
  const planner = plannerSettings(env);
  // Every back-off of the store stops short of the running invocation's end.
  const remaining = new RemainingTime();
  const store = new ExportStore({
    client: clients.dynamo,
    ledgerTable: exports.ledgerTable,
    remainingMs: remaining.ms,
  });
  const options = {
    concurrency: settings.concurrency,
    deliveryMode: settings.deliveryMode,
    deadLetters,
    sources: exports.sources,
    targetRowsPerTask: planner.parquetRowsPerTask,
    objects: new ExportObjects(new S3Objects(clients.s3)),
    plans: new ExportPlans({ client: clients.dynamo, ledgerTable: exports.ledgerTable, store }),
    queue: new SqsTaskQueue(clients.sqs, planner.chunkQueueUrl, remaining.ms),
  };
  return batchHandler(
    wiring,
    (records, context) => {
      remaining.use(context);
      return processManifestBatch(records, options);
    },
    observe,
  );
};

export const handler = onFirstInvocation(() => createExportPlannerHandler());
