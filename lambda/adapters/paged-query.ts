import {
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { LEDGER_PK, LEDGER_SK } from './table-layout';

type Item = Record<string, AttributeValue>;

/** Every item of a Query, page after page. */
export const queryAll = async (
  client: DynamoDBClient,
  input: QueryCommandInput,
): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** Every item of a ledger table partition whose sort key starts with `prefix`, read consistently. */
export const queryBySortKeyPrefix = (
  client: DynamoDBClient,
  table: string,
  pk: string,
  prefix: string,
  projection?: string,
): Promise<Item[]> =>
  queryAll(client, {
    TableName: table,
    KeyConditionExpression: `${LEDGER_PK} = :pk AND begins_with(${LEDGER_SK}, :prefix)`,
    ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: prefix } },
    ...(projection ? { ProjectionExpression: projection } : {}),
    ConsistentRead: true,
  });
