import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readLateChargePolicy, readTotalShards } from '../../contract/environment';
import { DynamoLedger } from '../adapters/dynamo-ledger';
import { DynamoPeriods } from '../adapters/dynamo-periods';
import { ExportObjects } from '../adapters/export-objects';
import { chunkWorkerSettings, exportSettings } from '../adapters/export-settings';
import { ExportStore } from '../adapters/export-store';
import { PeriodSources } from '../adapters/period-sources';
import { s3ClientFor } from '../adapters/s3-client';
import { S3Objects } from '../adapters/s3-objects';
import { SnsDiffNotifier } from '../adapters/sns-diff-notifier';
import { dedupScopeOf } from '../adapters/table-layout';
import type { BatchObserver } from '../core/batch';
import { bookThroughCostPath } from '../core/exports/late-correction-pass';
import { processTaskBatch, type TaskBatchOptions } from '../core/exports/task-batch';
import { batchHandler, onFirstInvocation, wireConsumer } from './consumer';
import { RemainingTime } from './remaining-time';

export interface ExportChunkClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  s3: S3Client;
  sns: SNSClient;
}

/**
 * Wires adapters to the chunk worker core once per container; clients are injectable for local runs
 * and tests. Without a Lambda context (a local caller) tasks run without a time budget.
 */
export const createExportChunkHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: ExportChunkClients = {
    dynamo: new DynamoDBClient({}),
    sqs: new SQSClient({}),
    s3: s3ClientFor(env),
    sns: new SNSClient({}),
  },
  observe?: BatchObserver,
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  const wiring = wireConsumer(env, clients);
  const { settings, deadLetters } = wiring;
  const exports = exportSettings(env);
  const worker = chunkWorkerSettings(env);
  const objects = new ExportObjects(new S3Objects(clients.s3));
  // Every back-off of the stores and the notifier stops short of the running invocation's end.
  const remaining = new RemainingTime();
  const notifier = new SnsDiffNotifier({
    remainingMs: remaining.ms,
    sns: clients.sns,
    dynamo: clients.dynamo,
    topicArn: worker.notificationsTopicArn,
    ...dedupScopeOf(settings),
  });
  const store = new ExportStore({
    client: clients.dynamo,
    ledgerTable: exports.ledgerTable,
    remainingMs: remaining.ms,
  });
  const totalShards = readTotalShards(env);
  // Corrections of closed periods are charges: the cost consumer's ledger, periods and policy.
  const ledger = new DynamoLedger({
    client: clients.dynamo,
    ledgerTable: exports.ledgerTable,
    totalShards,
  });
  const periods = new DynamoPeriods({
    client: clients.dynamo,
    ledgerTable: exports.ledgerTable,
    totalShards,
    remainingMs: remaining.ms,
  });
  const lateChargePolicy = readLateChargePolicy(env);
  const options: TaskBatchOptions = {
    concurrency: settings.concurrency,
    bucket: exports.bucket,
    sources: exports.sources,
    store,
    openRows: (bucket, task, fromRow) => objects.rowsOf(bucket, task, fromRow),
    subChunkRows: worker.subChunkRows,
    threshold: worker.threshold,
    additiveSources: worker.additiveSources,
    notifier,
    deadLetters,
    defaultProvider: exports.defaultProvider,
    periodSources: new PeriodSources({ client: clients.dynamo, ledgerTable: exports.ledgerTable }),
    maxReceiveCount: worker.maxReceiveCount,
    provisionalDrift: { store, threshold: worker.driftThreshold },
  };
  return async (event, context) => {
    if (context) notifier.useContext(context);
    remaining.use(context);
    const budget = context ? { remainingMs: () => context.getRemainingTimeInMillis() } : undefined;
    const corrections = {
      store,
      book: bookThroughCostPath({
        concurrency: settings.concurrency,
        ledger,
        periods,
        lateChargePolicy,
        ...(context ? { deadline: () => context.getRemainingTimeInMillis() } : {}),
      }),
    };
    return batchHandler(
      wiring,
      (records) => processTaskBatch(records, { ...options, budget, corrections }),
      observe,
    )(event);
  };
};

export const handler = onFirstInvocation(() => createExportChunkHandler());
