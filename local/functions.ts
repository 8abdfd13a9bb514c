/**
 * The one place that maps a synthesized Lambda function to the handler code the local runtime runs
 * in-process: by the function's STREAM_NAME environment variable (set by the CDK app's QueueConsumer).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createBudgetAlertsHandler } from '../lambda/handlers/budget-alerts';
import { createCostLedgerHandler } from '../lambda/handlers/cost-ledger';
import { ENV } from '../contract/environment';
import {
  ALERT_STREAM,
  COST_STREAM,
  STREAMS,
  isStreamName,
  type StreamName,
} from '../contract/streams';
import type { BatchObserver } from '../lambda/core/batch';
import { invocationScope } from './outcomes';

export interface HandlerClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  sns: SNSClient;
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

export const HANDLER_FACTORIES: Record<StreamName, { entry: string; create: HandlerFactory }> = {
  [COST_STREAM]: {
    entry: `${STREAMS.costEvents.handlerEntry}#createCostLedgerHandler`,
    create: (env, { dynamo, sqs }) => {
      const handler = createCostLedgerHandler(env, { dynamo, sqs }, recordOutcomes);
      return (event) => handler(event);
    },
  },
  [ALERT_STREAM]: {
    entry: `${STREAMS.budgetAlerts.handlerEntry}#createBudgetAlertsHandler`,
    create: (env, clients) => createBudgetAlertsHandler(env, clients, recordOutcomes),
  },
};

export const handlerFactoryFor = (
  functionName: string,
  env: Record<string, string>,
): { stream: string; entry: string; create: HandlerFactory } => {
  const stream = env[ENV.streamName];
  if (!isStreamName(stream))
    throw new Error(
      `function ${functionName}: no local handler for ${ENV.streamName}=${String(stream)} (known: ${Object.keys(HANDLER_FACTORIES).join(', ')}); add it to local/functions.ts`,
    );
  return { stream, ...HANDLER_FACTORIES[stream] };
};
