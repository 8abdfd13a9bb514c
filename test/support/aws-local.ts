import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { DEDUP_TABLE, ledgerTableKeySchema } from '../../contract/tables';
import { LOCAL_CREDENTIALS } from './dynamodb-local';

const REGION = 'us-east-1';

/** Counts SDK commands by name, so tests can assert DynamoDB round trips. */
export class RequestCounter {
  readonly counts = new Map<string, number>();
  reset(): void {
    this.counts.clear();
  }
  get(command: string): number {
    return this.counts.get(command) ?? 0;
  }
  total(): number {
    return [...this.counts.values()].reduce((sum, count) => sum + count, 0);
  }
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort());
  }
}

/** An initialize-step middleware: sees the command name and input before anything is sent. */
export type Middleware = InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes>;

export const localDynamo = (
  options: { counter?: RequestCounter; middleware?: Middleware } = {},
): DynamoDBClient => {
  const endpoint = process.env.DYNAMODB_LOCAL_ENDPOINT;
  if (!endpoint)
    throw new Error(
      'DYNAMODB_LOCAL_ENDPOINT is not set: run the tests through jest (globalSetup starts it)',
    );
  const client = new DynamoDBClient({
    endpoint,
    region: REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  if (options.counter) {
    const counter = options.counter;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? 'unknown';
        counter.counts.set(name, (counter.counts.get(name) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'requestCounter' },
    );
  }
  if (options.middleware)
    client.middlewareStack.add(options.middleware, { step: 'initialize', name: 'testFault' });
  return client;
};

export interface LedgerTables {
  dedupTable: string;
  ledgerTable: string;
}

/** Fresh dedup + ledger tables with the deployed key schema and TTL attribute. */
export const createLedgerTables = async (client: DynamoDBClient): Promise<LedgerTables> => {
  const suffix = randomUUID().slice(0, 8);
  const dedupTable = `dedup-${suffix}`;
  const ledgerTable = `ledger-${suffix}`;
  await client.send(
    new CreateTableCommand({
      TableName: dedupTable,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: DEDUP_TABLE.partitionKey, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: DEDUP_TABLE.partitionKey, KeyType: 'HASH' }],
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: dedupTable,
      TimeToLiveSpecification: { AttributeName: DEDUP_TABLE.expiresAt, Enabled: true },
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: ledgerTable,
      BillingMode: 'PAY_PER_REQUEST',
      ...ledgerTableKeySchema(),
    }),
  );
  return { dedupTable, ledgerTable };
};

/** The SQS emulator moved to the local emulators (local/emulators/dynamodb-sqs.ts); re-exported for the tests. */
export { startLocalSqs, type LocalSqs } from '../../local/emulators/dynamodb-sqs';
