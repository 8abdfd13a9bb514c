import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoLedger } from '../adapters/dynamo-ledger';
import { consumerSettings, requiredSetting } from '../adapters/settings';
import { deadLettersFor } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch } from '../adapters/telemetry';
import type { BatchObserver } from '../core/batch';
import { processCostBatch } from '../core/cost-processor';

export interface CostLedgerClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
}

/** Wires adapters to the core once per container; clients are injectable for local runs and tests. */
export const createCostLedgerHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: CostLedgerClients = { dynamo: new DynamoDBClient({}), sqs: new SQSClient({}) },
  observe?: BatchObserver,
) => {
  const settings = consumerSettings(env);
  const ledger = new DynamoLedger({
    client: clients.dynamo,
    ledgerTable: requiredSetting(env, 'LEDGER_TABLE_NAME'),
    dedupTable: settings.dedupTable,
    stream: settings.stream,
    ttlSeconds: settings.ttlSeconds,
  });
  const deadLetters = deadLettersFor(settings, clients);
  const telemetry = createTelemetry(env);
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const outcome = await processCostBatch(event.Records, { ...settings, ledger, deadLetters });
    reportBatch(telemetry, settings.stream, outcome);
    observe?.(outcome);
    return { batchItemFailures: outcome.batchItemFailures };
  };
};

let instance: ReturnType<typeof createCostLedgerHandler> | undefined;
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  (instance ??= createCostLedgerHandler())(event);
