/**
 * What DynamoDB Local charges in time for the two kinds of write the benchmark compares: a
 * `TransactWriteItems` of k conditional puts (k = 1 … 60) and a conditional `PutItem`, each at
 * 1, 4 and 16 requests in flight, on fresh keys (no condition fails). It explains the stream
 * benchmark's standard-queue figures (docs/benchmarks.md, "Reading the results"): a transaction
 * costs a fixed part plus a part per item, and concurrent transactions do not run faster together.
 *
 *   npx tsx bench/dynamodb-local-costs.ts [--ops N]
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../local/emulators/local-aws';
import { median } from './lib/median';
import { benchLogger, withDynamoDb } from './lib/session';

const TABLE = 'cost-model';
const ITEM_COUNTS = [1, 3, 7, 20, 60];
const CONCURRENCY = [1, 4, 16];

const parseOps = (argv: string[]): number => {
  const index = argv.indexOf('--ops');
  if (index < 0) return 2000;
  const value = Number(argv[index + 1]);
  if (!Number.isInteger(value) || value < 100) {
    process.stderr.write(
      '--ops takes a whole number of item writes per measurement, at least 100\n',
    );
    process.exit(2);
  }
  return value;
};

/** Wall milliseconds per request (elapsed / requests): `requests` calls of `send`, `inFlight` at a time. */
const timed = async (requests: number, inFlight: number, send: () => Promise<unknown>) => {
  let started = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (started < requests) {
        started++;
        await send();
      }
    }),
  );
  return (performance.now() - began) / requests;
};

const main = async () => {
  const itemWrites = parseOps(process.argv.slice(2));
  const log = benchLogger('dynamodb-local-costs', false, Date.now());
  await withDynamoDb(undefined, log, async (endpoint) => {
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    await client.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    let key = 0;
    // About the size of a charge item.
    const item = () => ({ pk: { S: `k${key++}` }, body: { S: 'x'.repeat(400) } });
    const put = () =>
      client.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: item(),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    const transact = (items: number) => () =>
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: Array.from({ length: items }, () => ({
            Put: {
              TableName: TABLE,
              Item: item(),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          })),
        }),
      );

    log('warm-up (JIT, DynamoDB Local), not measured');
    await timed(300, 4, put);
    await timed(100, 4, transact(20));

    const rows: string[] = [];
    const measure = async (label: string, items: number, send: () => Promise<unknown>) => {
      const perConcurrency: string[] = [];
      for (const inFlight of CONCURRENCY) {
        const requests = Math.max(20, Math.round(itemWrites / items));
        // Three rounds, the median: the machine is shared.
        const rounds = [];
        for (let round = 0; round < 3; round++) rounds.push(await timed(requests, inFlight, send));
        const ms = median(rounds);
        perConcurrency.push(`${ms.toFixed(2)} | ${(ms / items).toFixed(3)}`);
        log(`${label}, ${inFlight} in flight: ${ms.toFixed(2)} ms per request`);
      }
      rows.push(`| ${label} | ${perConcurrency.join(' | ')} |`);
    };
    for (const items of ITEM_COUNTS)
      await measure(`TransactWriteItems, ${items} item(s)`, items, transact(items));
    await measure('PutItem', 1, put);
    client.destroy();

    const header = CONCURRENCY.map((n) => `${n} in flight: ms per request | per item`);
    process.stdout.write(
      [
        `| request | ${header.join(' | ')} |`,
        `| --- | ${CONCURRENCY.map(() => '--: | --:').join(' | ')} |`,
        ...rows,
      ].join('\n') + '\n',
    );
  });
};

void main();
