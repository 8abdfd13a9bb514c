/**
 * The ledger table as the export store's modules use it: one client, table, clock and back-off, and
 * the reads and writes they share (consistent gets and queries, batched puts, paged text).
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamo-kit/attributes';
import { batchPutItems } from './dynamo-kit/batch';
import type { Backoff } from './dynamo-kit/backoff';
import { queryBySortKeyPrefix, queryPages, sortKeyPrefixQuery } from './paged-query';
import { LEDGER_SK, ledgerKey, ledgerKeyOf } from './table-layout';

export interface ExportTable {
  client: DynamoDBClient;
  table: string;
  now: () => number;
  backoff: Backoff;
}

export const getItem = async (
  { client, table }: ExportTable,
  pk: string,
  sk: string,
): Promise<Item | undefined> => {
  const response = await client.send(
    new GetItemCommand({ TableName: table, Key: ledgerKey(pk, sk), ConsistentRead: true }),
  );
  return response.Item;
};

export const queryAll = (
  { client, table }: ExportTable,
  pk: string,
  prefix: string,
  projection?: string,
): Promise<Item[]> => queryBySortKeyPrefix(client, table, pk, prefix, projection);

export const putItems = (store: ExportTable, items: Iterable<Item>): Promise<void> =>
  batchPutItems(store.client, store.table, items, store.backoff);

/** The text of `count` pages `<prefix><nnnnn>` (attribute `attribute`), joined in order. */
export const readPagedText = async (
  { client, table }: ExportTable,
  pk: string,
  prefix: string,
  attribute: string,
  count: number,
): Promise<string> => {
  const pages: string[] = new Array<string>(count);
  const query = sortKeyPrefixQuery(table, pk, prefix, `${LEDGER_SK}, ${attribute}`);
  for await (const items of queryPages(client, query)) {
    for (const item of items) {
      const index = Number(ledgerKeyOf(item).sk.slice(prefix.length));
      if (Number.isInteger(index) && index < count) pages[index] = item[attribute]?.S ?? '';
    }
  }
  for (let index = 0; index < count; index += 1) {
    if (pages[index] === undefined) {
      throw new Error(`page ${index} of ${count} of ${pk} ${prefix} is missing`);
    }
  }
  return pages.join('');
};
