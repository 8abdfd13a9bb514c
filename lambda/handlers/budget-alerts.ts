import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { notificationsTopicArn } from '../adapters/settings';
import { SnsNotifier } from '../adapters/sns-notifier';
import { dedupScopeOf } from '../adapters/table-layout';
import type { BatchObserver } from '../core/batch';
import { processAlertBatch } from '../core/alert-processor';
import { batchHandler, onFirstInvocation, wireConsumer, type ConsumerClients } from './consumer';
import { RemainingTime } from './remaining-time';

export interface BudgetAlertsClients extends ConsumerClients {
  sns: SNSClient;
}

/** Wires adapters to the core once per container; clients are injectable for local runs and tests. */
export const createBudgetAlertsHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: BudgetAlertsClients = {
    dynamo: new DynamoDBClient({}),
    sns: new SNSClient({}),
  },
  observe?: BatchObserver,
): ((event: SQSEvent, context: Context) => Promise<SQSBatchResponse>) => {
  const wiring = wireConsumer(env, clients);
  const { settings, deadLetters } = wiring;
  // The notifier's retries stop short of the running invocation's end.
  const remaining = new RemainingTime();
  const notifier = new SnsNotifier({
    remainingMs: remaining.ms,
    sns: clients.sns,
    dynamo: clients.dynamo,
    topicArn: notificationsTopicArn(env),
    ...dedupScopeOf(settings),
  });
  const handle = batchHandler(
    wiring,
    (records) => processAlertBatch(records, { ...settings, notifier, deadLetters }),
    observe,
  );
  return async (event, context) => {
    notifier.useContext(context);
    remaining.use(context);
    return handle(event);
  };
};

export const handler = onFirstInvocation(() => createBudgetAlertsHandler());
