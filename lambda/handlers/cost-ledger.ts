import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoLedger } from '../adapters/dynamo-ledger';
import { ledgerTableName } from '../adapters/settings';
import { dedupScopeOf } from '../adapters/table-layout';
import type { BatchObserver } from '../core/batch';
import { processCostBatch } from '../core/cost-processor';
import { batchHandler, onFirstInvocation, wireConsumer } from './consumer';

export interface CostLedgerClients {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
}

/** Wires adapters to the core once per container; clients are injectable for local runs and tests. */
export const createCostLedgerHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: CostLedgerClients = { dynamo: new DynamoDBClient({}), sqs: new SQSClient({}) },
  observe?: BatchObserver,
): ((event: SQSEvent) => Promise<SQSBatchResponse>) => {
  const wiring = wireConsumer(env, clients);
  const { settings, deadLetters } = wiring;
  const ledger = new DynamoLedger({
    client: clients.dynamo,
    ledgerTable: ledgerTableName(env),
    ...dedupScopeOf(settings),
  });
  return batchHandler(
    wiring,
    (records) => processCostBatch(records, { ...settings, ledger, deadLetters }),
    observe,
  );
};

export const handler = onFirstInvocation(() => createCostLedgerHandler());
