/**
 * Cost of the closed-period check per charge: requests and write units of the cost consumer's commits,
 * with the check (the production code) and without it (the same transactions with the shard
 * condition stripped by a middleware), on DynamoDB Local with `ReturnConsumedCapacity: TOTAL`.
 *
 *   npx tsx bench/closed-check-cost.ts
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../local/emulators/dynamodb-sqs';
import { LOCAL_CREDENTIALS } from '../local/emulators/local-aws';
import { DynamoLedger } from '../lambda/adapters/dynamo-ledger';
import { NOT_CLOSED } from '../lambda/adapters/total-shards';
import { processCostBatch } from '../lambda/core/cost-processor';
import { createLedgerTables } from '../test/support/aws-local';
import { costEvent } from '../test/support/cost-events';
import { sqsRecord } from '../test/support/sqs-events';

interface Meter {
  requests: Map<string, number>;
  writeUnits: number;
  readUnits: number;
}

type Capacity = { CapacityUnits?: number };
type Transact = { TransactItems?: { Update?: { ConditionExpression?: string } }[] };

const meteredClient = (endpoint: string, meter: Meter, withCheck: boolean): DynamoDBClient => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      meter.requests.set(name, (meter.requests.get(name) ?? 0) + 1);
      const input = { ...args.input, ReturnConsumedCapacity: 'TOTAL' } as unknown as Transact;
      if (!withCheck) {
        for (const item of input.TransactItems ?? []) {
          if (item.Update?.ConditionExpression === NOT_CLOSED)
            delete item.Update.ConditionExpression;
        }
      }
      const result = await next({ ...args, input });
      const output = result.output as { ConsumedCapacity?: Capacity | Capacity[] };
      const units = [output.ConsumedCapacity ?? []]
        .flat()
        .reduce((sum, used) => sum + (used.CapacityUnits ?? 0), 0);
      if (/Write|Put|Update|Delete/.test(name)) meter.writeUnits += units;
      else meter.readUnits += units;
      return result;
    },
    { step: 'initialize', name: 'meter' },
  );
  return client;
};

const CHARGES = 200;
const BATCH = 10;

const measure = async (endpoint: string, withCheck: boolean, grouped: boolean) => {
  const meter: Meter = { requests: new Map(), writeUnits: 0, readUnits: 0 };
  const client = meteredClient(endpoint, meter, withCheck);
  const tables = await createLedgerTables(client);
  meter.requests.clear();
  meter.writeUnits = 0;
  meter.readUnits = 0;
  const ledger = new DynamoLedger({
    client,
    ledgerTable: tables.ledgerTable,
  });
  const size = grouped ? BATCH : 1;
  for (let start = 0; start < CHARGES; start += size) {
    const records = Array.from({ length: size }, (_, index) =>
      sqsRecord(
        costEvent({ eventId: `e-${start + index}`, amount: '1.25', accountId: '500000000001' }),
      ),
    );
    await processCostBatch(records, {
      fifo: false,
      concurrency: 1,
      ledger,
      deadLetters: { send: () => Promise.resolve(undefined) },
    });
  }
  client.destroy();
  const requests = [...meter.requests.values()].reduce((a, b) => a + b, 0);
  return {
    check: withCheck ? 'with' : 'without',
    batch: size,
    requestsPerCharge: requests / CHARGES,
    writeUnitsPerCharge: meter.writeUnits / CHARGES,
    readUnitsPerCharge: meter.readUnits / CHARGES,
  };
};

const main = async () => {
  const dynamo = await startDynamoDbLocal();
  try {
    const rows = [];
    for (const grouped of [false, true]) {
      for (const withCheck of [false, true])
        rows.push(await measure(dynamo.endpoint, withCheck, grouped));
    }
    console.table(rows);
  } finally {
    await dynamo.stop();
  }
};

void main();
