import {
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { LEDGER_PK, LEDGER_SK } from './table-layout';

type Item = Record<string, AttributeValue>;

/** The items of a Query one response (at most 1 MB) at a time: a reader can fold them as they come. */
export async function* queryPages(
  client: DynamoDBClient,
  input: QueryCommandInput,
): AsyncGenerator<Item[]> {
  let start: Item | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Every item of a Query, page after page. */
export const queryAll = async (
  client: DynamoDBClient,
  input: QueryCommandInput,
): Promise<Item[]> => {
  const items: Item[] = [];
  for await (const page of queryPages(client, input)) items.push(...page);
  return items;
};

/** Every item of a Scan, page after page (tools and reports; never on a hot path). */
export const scanAll = async (client: DynamoDBClient, input: ScanCommandInput): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** The Query of a ledger table partition's sort keys that start with `prefix`, read consistently. */
export const sortKeyPrefixQuery = (
  table: string,
  pk: string,
  prefix: string,
  projection?: string,
): QueryCommandInput => ({
  TableName: table,
  KeyConditionExpression: `${LEDGER_PK} = :pk AND begins_with(${LEDGER_SK}, :prefix)`,
  ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: prefix } },
  ...(projection ? { ProjectionExpression: projection } : {}),
  ConsistentRead: true,
});

/** Every item of a ledger table partition whose sort key starts with `prefix`, read consistently. */
export const queryBySortKeyPrefix = (
  client: DynamoDBClient,
  table: string,
  pk: string,
  prefix: string,
  projection?: string,
): Promise<Item[]> => queryAll(client, sortKeyPrefixQuery(table, pk, prefix, projection));
