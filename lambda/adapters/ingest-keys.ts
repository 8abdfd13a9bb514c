/**
 * The ingest API's idempotency keys in the dedup table: one item per scoped key with the body hash,
 * its state (`pending` → `published`), the first answer and `expiresAt` = now + the dedup window. A key
 * whose item has expired (TTL deletes lazily) is treated as absent, like every dedup item.
 */
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { IdempotencyStore } from '../core/ingest/ingest';
import type { KeyRecord, KeyStatus } from '../core/ingest/idempotency';
import { N, S } from './dynamo-kit/attributes';
import { writeIfCondition } from './dynamo-kit/errors';
import { DEDUP_EXPIRES_AT, DEDUP_PK, dedupKey, ingestKeyItemKey } from './table-layout';

export interface IngestKeysOptions {
  readonly client: DynamoDBClient;
  readonly dedupTable: string;
  readonly ttlSeconds: number;
  readonly now?: () => number;
}

export class DynamoIngestKeys implements IdempotencyStore {
  constructor(private readonly options: IngestKeysOptions) {}

  private nowSeconds(): number {
    return Math.floor((this.options.now ?? Date.now)() / 1000);
  }

  async claim(scopedKey: string, bodyHash: string): Promise<KeyRecord | undefined> {
    const { client, dedupTable, ttlSeconds } = this.options;
    const pk = ingestKeyItemKey(scopedKey);
    const now = this.nowSeconds();
    const claimed = await writeIfCondition(
      () =>
        client.send(
          new PutItemCommand({
            TableName: dedupTable,
            Item: {
              [DEDUP_PK]: S(pk),
              [DEDUP_EXPIRES_AT]: N(now + ttlSeconds),
              bodyHash: S(bodyHash),
              status: S('pending'),
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt < :now',
            ExpressionAttributeNames: { '#pk': DEDUP_PK, '#expiresAt': DEDUP_EXPIRES_AT },
            ExpressionAttributeValues: { ':now': N(now) },
          }),
        ),
      `idempotency key ${scopedKey}`,
    );
    if (claimed) return undefined;
    const { Item } = await client.send(
      new GetItemCommand({ TableName: dedupTable, Key: dedupKey(pk), ConsistentRead: true }),
    );
    if (Item === undefined) throw new Error(`idempotency key ${scopedKey} vanished while claimed`);
    return {
      bodyHash: Item.bodyHash?.S ?? '',
      status: (Item.status?.S ?? 'pending') as KeyStatus,
      answer: Item.answer?.S,
    };
  }

  async markPublished(scopedKey: string, bodyHash: string, answer: string): Promise<void> {
    await this.options.client.send(
      new UpdateItemCommand({
        TableName: this.options.dedupTable,
        Key: dedupKey(ingestKeyItemKey(scopedKey)),
        UpdateExpression: 'SET #status = :published, answer = :answer',
        ConditionExpression: 'bodyHash = :hash',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':published': S('published'),
          ':answer': S(answer),
          ':hash': S(bodyHash),
        },
      }),
    );
  }
}
