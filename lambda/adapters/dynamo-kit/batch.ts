/** Batch writes and reads that retry what DynamoDB left unprocessed, with the kit's back-off. */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  type DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { Item } from './attributes';
import type { Backoff } from './backoff';

export const BATCH_WRITE_LIMIT = 25;
export const BATCH_GET_LIMIT = 100;
/** Back-off attempts stop growing here: unprocessed items are retried as long as DynamoDB returns them. */
const MAX_BACKOFF_ATTEMPT = 6;

/** Writes items with BatchWriteItem, 25 at a time as they come, retrying the unprocessed ones. */
export const batchPutItems = async (
  client: DynamoDBClient,
  table: string,
  items: Iterable<Item>,
  backoff: Backoff,
): Promise<void> => {
  let pending: WriteRequest[] = [];
  const flush = async (all: boolean) => {
    for (let attempt = 0; pending.length >= (all ? 1 : BATCH_WRITE_LIMIT); attempt += 1) {
      const batch = pending.slice(0, BATCH_WRITE_LIMIT);
      pending = pending.slice(BATCH_WRITE_LIMIT);
      const response = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: batch } }),
      );
      const unprocessed = response.UnprocessedItems?.[table] ?? [];
      if (unprocessed.length > 0) {
        pending.push(...unprocessed);
        await backoff(Math.min(attempt, MAX_BACKOFF_ATTEMPT));
      }
    }
  };
  for (const item of items) {
    pending.push({ PutRequest: { Item: item } });
    if (pending.length >= BATCH_WRITE_LIMIT) await flush(false);
  }
  await flush(true);
};

/**
 * Reads up to 100 keys with BatchGetItem (consistently unless told otherwise), handing each response's
 * items to `found` and asking again for the unprocessed keys — or, when the caller takes them
 * (`unprocessed`), handing them over instead, for a caller that reads them later in its own way.
 */
export const batchGetKeys = async (
  client: DynamoDBClient,
  table: string,
  keys: Item[],
  projection: string | undefined,
  found: (items: Item[]) => void,
  backoff: Backoff,
  options: { consistent?: boolean; unprocessed?: (keys: Item[]) => void } = {},
): Promise<void> => {
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    const response = await client.send(
      new BatchGetItemCommand({
        RequestItems: {
          [table]: {
            Keys: pending,
            ConsistentRead: options.consistent ?? true,
            ...(projection ? { ProjectionExpression: projection } : {}),
          },
        },
      }),
    );
    found(response.Responses?.[table] ?? []);
    pending = response.UnprocessedKeys?.[table]?.Keys ?? [];
    if (options.unprocessed && pending.length > 0) {
      options.unprocessed(pending);
      return;
    }
    if (pending.length > 0) await backoff(Math.min(attempt, MAX_BACKOFF_ATTEMPT));
  }
};
