/**
 * Cost of the auto-close candidate scan (lambda/adapters/period-candidates.ts) on DynamoDB Local: a
 * ledger with stream-only, export-only and mixed account-periods, booked through the production code;
 * then the scan as the function runs it (keys only), and the same filter returning whole items, with
 * `ReturnConsumedCapacity: TOTAL`, the pages, the items read and returned and the bytes returned.
 *
 *   npx tsx bench/auto-close-scan-cost.ts
 */
import {
  DynamoDBClient,
  ScanCommand,
  type AttributeValue,
  type ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../local/emulators/dynamodb-sqs';
import { LOCAL_CREDENTIALS } from '../local/emulators/local-aws';
import { DynamoLedger } from '../lambda/adapters/dynamo-ledger';
import { scanAutoCloseCandidates } from '../lambda/adapters/period-candidates';
import { processCostBatch } from '../lambda/core/cost-processor';
import { createLedgerTables } from '../test/support/aws-local';
import { costEvent } from '../test/support/cost-events';
import { csvOf, deliver, exportStore, hourLine } from '../test/support/export-pipeline';
import { sqsRecord } from '../test/support/sqs-events';

const STREAM_ONLY = 100;
const EXPORT_ONLY = 100;
const BOTH = 100;
const CHARGES_PER_ACCOUNT = 10;
const account = (index: number) => `7000000${String(index).padStart(5, '0')}`;

interface Meter {
  readUnits: number;
  scanned: number;
  returned: number;
  bytes: number;
  pages: number;
}

const meteredScans = (endpoint: string, meter: Meter): DynamoDBClient => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'ScanCommand') return next(args);
      const result = await next({
        ...args,
        input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' },
      });
      const output = result.output as {
        ConsumedCapacity?: { CapacityUnits?: number };
        ScannedCount?: number;
        Items?: Record<string, AttributeValue>[];
      };
      meter.pages += 1;
      meter.readUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
      meter.scanned += output.ScannedCount ?? 0;
      meter.returned += output.Items?.length ?? 0;
      meter.bytes += Buffer.byteLength(JSON.stringify(output.Items ?? []));
      return result;
    },
    { step: 'initialize', name: 'meter' },
  );
  return client;
};

const populate = async (client: DynamoDBClient, ledgerTable: string) => {
  const ledger = new DynamoLedger({
    client,
    ledgerTable,
  });
  const streamAccounts = Array.from({ length: STREAM_ONLY + BOTH }, (_, i) => account(i));
  for (const accountId of streamAccounts) {
    const records = Array.from({ length: CHARGES_PER_ACCOUNT }, (_, index) =>
      sqsRecord(
        costEvent({
          accountId,
          eventId: `${accountId}-${index}`,
          amount: '1.25',
          chargePeriodStart: '2026-10-05T00:00:00Z',
        }),
      ),
    );
    await processCostBatch(records, {
      fifo: false,
      concurrency: 4,
      ledger,
      deadLetters: { send: () => Promise.resolve(undefined) },
    });
  }
  const exportAccounts = Array.from({ length: EXPORT_ONLY + BOTH }, (_, i) =>
    account(STREAM_ONLY + i),
  );
  const lines = exportAccounts.flatMap((accountId) =>
    Array.from({ length: CHARGES_PER_ACCOUNT }, (_, hour) =>
      hourLine('0.5', accountId, 'EC2', hour, { period: '2026-10' }),
    ),
  );
  await deliver(
    exportStore(client, ledgerTable),
    {
      tenant: 'acme',
      prefix: 'acme',
      executionId: 'e1',
      period: '2026-10',
      eventTime: '2026-11-02T06:00:00.000Z',
      sequencer: '000000000000000001',
      files: { 'part-0.csv': csvOf(lines) },
    },
    { subChunkRows: 1000 },
  );
};

const main = async () => {
  const dynamo = await startDynamoDbLocal();
  try {
    const meter: Meter = { readUnits: 0, scanned: 0, returned: 0, bytes: 0, pages: 0 };
    const client = meteredScans(dynamo.endpoint, meter);
    const tables = await createLedgerTables(client);
    await populate(client, tables.ledgerTable);
    const rows = [];
    const reset = () =>
      Object.assign(meter, { readUnits: 0, scanned: 0, returned: 0, bytes: 0, pages: 0 });

    reset();
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page: ScanCommandOutput = await client.send(
        new ScanCommand({ TableName: tables.ledgerTable, ExclusiveStartKey: start }),
      );
      start = page.LastEvaluatedKey;
    } while (start);
    rows.push({ scan: 'whole table, no filter', candidates: '-', ...meter });

    reset();
    const candidates = await scanAutoCloseCandidates(client, tables.ledgerTable, '2026-10');
    rows.push({ scan: 'candidates (keys only)', candidates: candidates.length, ...meter });

    reset();
    start = undefined;
    do {
      const page: ScanCommandOutput = await client.send(
        new ScanCommand({
          TableName: tables.ledgerTable,
          FilterExpression: 'begins_with(sk, :total) OR begins_with(sk, :snapshot) OR sk = :period',
          ExpressionAttributeValues: {
            ':total': { S: 'TOTAL#' },
            ':snapshot': { S: 'SNAPSHOT#' },
            ':period': { S: 'PERIOD' },
          },
          ExclusiveStartKey: start,
        }),
      );
      start = page.LastEvaluatedKey;
    } while (start);
    rows.push({ scan: 'same filter, whole items', candidates: '-', ...meter });
    client.destroy();
    console.log(
      `${STREAM_ONLY} stream-only, ${EXPORT_ONLY} export-only, ${BOTH} mixed account-periods, ${CHARGES_PER_ACCOUNT} charges or export lines each`,
    );
    console.table(rows);
  } finally {
    await dynamo.stop();
  }
};

void main();
