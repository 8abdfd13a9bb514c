/**
 * The size of a total shard item before and after per-source totals (`total@<source>:<CUR>`,
 * `charges@<source>:<CUR>`), built by the cost path's own shard update: DynamoDB bills a write by the
 * item's size in 1 KB units, so the extra attributes cost nothing while a shard stays under 1 KB.
 *
 *   npx tsx bench/shard-item-size.ts
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { itemBytes } from '../lambda/adapters/item-size';
import { shardUpdate, type ShardDelta } from '../lambda/adapters/total-shards';

const AMOUNT = '12345.678901234567890123';

/** The item one ADD of `deltas` leaves on an empty shard (values as the update sets them). */
const shardItem = (deltas: ShardDelta[]): Record<string, AttributeValue> => {
  const { Update } = shardUpdate('ledger', {
    pk: 'TENANT#acme#ACCOUNT#200000000011#PERIOD#2026-11',
    shard: 3,
    scope: { tenant: 'acme', accountId: '200000000011', period: '2026-11' },
    deltas,
  });
  const item: Record<string, AttributeValue> = { ...Update!.Key };
  for (const [placeholder, name] of Object.entries(Update!.ExpressionAttributeNames ?? {}))
    item[name] = Update!.ExpressionAttributeValues![placeholder.replace('#', ':')];
  item.seq = { N: '123456' };
  for (const field of ['tenant', 'accountId', 'period'])
    item[field] = {
      S: String(
        Update!.ExpressionAttributeValues![`:${field === 'accountId' ? 'account' : field}`].S,
      ),
    };
  return item;
};

const deltasOf = (currencies: string[], sources: string[]): ShardDelta[] =>
  currencies.flatMap((currency) =>
    (sources.length === 0 ? [undefined] : sources).map((source) => ({
      currency,
      delta: AMOUNT,
      charges: 123456,
      ...(source === undefined ? {} : { bySource: { source, delta: AMOUNT, charges: 123456 } }),
    })),
  );

for (const [currencies, sources] of [
  [['USD'], []],
  [['USD'], ['aws']],
  [['USD'], ['aws', 'gcp', 'metering']],
  [['USD', 'EUR', 'GBP'], []],
  [
    ['USD', 'EUR', 'GBP'],
    ['aws', 'gcp', 'metering'],
  ],
] as [string[], string[]][]) {
  const bytes = itemBytes(shardItem(deltasOf(currencies, sources)));
  process.stdout.write(
    `${currencies.length} currencies, ${sources.length} sources: ${bytes} bytes (${Math.ceil(bytes / 1024)} write unit(s) per 1 KB)\n`,
  );
}
