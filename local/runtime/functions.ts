/**
 * The one place that maps a synthesized Lambda function to the handler code the local runtime runs
 * in-process: by the function's STREAM_NAME environment variable (set by the CDK app's QueueConsumer).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createArchiverHandler } from '../../lambda/handlers/archiver';
import { createBudgetAlertsHandler } from '../../lambda/handlers/budget-alerts';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { createExportChunkHandler } from '../../lambda/handlers/export-chunk';
import { createExportPlannerHandler } from '../../lambda/handlers/export-planner';
import { ENV } from '../../contract/environment';
import {
  ALERT_STREAM,
  ARCHIVE_SPOOL,
  COST_STREAM,
  EXPORT_STREAMS,
  STREAMS,
  type StreamName,
} from '../../contract/streams';
import type { BatchObserver } from '../../lambda/core/batch';
import { invocationScope } from './invocations';

export interface HandlerClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  sns: SNSClient;
  /** Path-style, on the local S3. */
  s3: S3Client;
}

export type LocalHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export type HandlerFactory = (env: NodeJS.ProcessEnv, clients: HandlerClients) => LocalHandler;

/** Hands each batch's outcomes to the invocation that produced them (late lines of abandoned ones included). */
const recordOutcomes: BatchObserver = (outcome) => {
  invocationScope.getStore()?.results.push(
    ...outcome.results.map(({ messageId, outcome: result, reason }) => ({
      messageId,
      outcome: result,
      ...(reason ? { reason } : {}),
    })),
  );
};

const EXPORT_DELIVERIES_STREAM = EXPORT_STREAMS.exportDeliveries.name;
const EXPORT_CHUNKS_STREAM = EXPORT_STREAMS.exportChunks.name;

export const HANDLER_FACTORIES: Record<
  | StreamName
  | typeof EXPORT_DELIVERIES_STREAM
  | typeof EXPORT_CHUNKS_STREAM
  | (typeof ARCHIVE_SPOOL)['name'],
  { entry: string; create: HandlerFactory }
> = {
  [COST_STREAM]: {
    entry: `${STREAMS.costEvents.handlerEntry}#createCostLedgerHandler`,
    create: (env, { dynamo, sqs, s3 }) => {
      const handler = createCostLedgerHandler(env, { dynamo, sqs, s3 }, recordOutcomes);
      return (event) => handler(event);
    },
  },
  [ALERT_STREAM]: {
    entry: `${STREAMS.budgetAlerts.handlerEntry}#createBudgetAlertsHandler`,
    create: (env, clients) => createBudgetAlertsHandler(env, clients, recordOutcomes),
  },
  [EXPORT_DELIVERIES_STREAM]: {
    entry: `${EXPORT_STREAMS.exportDeliveries.handlerEntry}#createExportPlannerHandler`,
    create: (env, { dynamo, sqs, s3 }) =>
      createExportPlannerHandler(env, { dynamo, sqs, s3 }, recordOutcomes),
  },
  [EXPORT_CHUNKS_STREAM]: {
    entry: `${EXPORT_STREAMS.exportChunks.handlerEntry}#createExportChunkHandler`,
    create: (env, clients) => createExportChunkHandler(env, clients, recordOutcomes),
  },
  [ARCHIVE_SPOOL.name]: {
    entry: `${ARCHIVE_SPOOL.handlerEntry}#createArchiverHandler`,
    create: (env, { sqs, s3 }) => createArchiverHandler(env, { sqs, s3 }, recordOutcomes),
  },
};

export const handlerFactoryFor = (
  functionName: string,
  env: Record<string, string>,
): { stream: string; entry: string; create: HandlerFactory } => {
  const stream = env[ENV.streamName];
  if (!Object.prototype.hasOwnProperty.call(HANDLER_FACTORIES, stream ?? ''))
    throw new Error(
      `function ${functionName}: no local handler for ${ENV.streamName}=${String(stream)} (known: ${Object.keys(HANDLER_FACTORIES).join(', ')}); add it to local/runtime/functions.ts`,
    );
  return { stream, ...HANDLER_FACTORIES[stream as keyof typeof HANDLER_FACTORIES] };
};
