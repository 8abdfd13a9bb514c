import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { consumerSettings, requiredSetting } from '../adapters/settings';
import { SnsNotifier } from '../adapters/sns-notifier';
import { deadLettersFor } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch } from '../adapters/telemetry';
import type { BatchObserver } from '../core/batch';
import { processAlertBatch } from '../core/alert-processor';

export interface BudgetAlertsClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  sns: SNSClient;
}

/** Wires adapters to the core once per container; clients are injectable for local runs and tests. */
export const createBudgetAlertsHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: BudgetAlertsClients = {
    dynamo: new DynamoDBClient({}),
    sqs: new SQSClient({}),
    sns: new SNSClient({}),
  },
  observe?: BatchObserver,
) => {
  const settings = consumerSettings(env);
  const notifier = new SnsNotifier({
    sns: clients.sns,
    dynamo: clients.dynamo,
    topicArn: requiredSetting(env, 'NOTIFICATIONS_TOPIC_ARN'),
    dedupTable: settings.dedupTable,
    stream: settings.stream,
    ttlSeconds: settings.ttlSeconds,
  });
  const deadLetters = deadLettersFor(settings, clients);
  const telemetry = createTelemetry(env);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    notifier.useContext(context);
    const outcome = await processAlertBatch(event.Records, { ...settings, notifier, deadLetters });
    reportBatch(telemetry, settings.stream, outcome);
    observe?.(outcome);
    return { batchItemFailures: outcome.batchItemFailures };
  };
};

let instance: ReturnType<typeof createBudgetAlertsHandler> | undefined;
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  (instance ??= createBudgetAlertsHandler())(event, context);
