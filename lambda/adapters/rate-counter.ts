/** The ingest API's per-key request counts: one dedup-table item per key and minute, expiring after it. */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RateCounter, RateWindow } from '../core/ingest/rate-limit';
import { RATE_WINDOW_SECONDS } from '../core/ingest/rate-limit';
import { N } from './dynamo-kit/attributes';
import { writeIfCondition } from './dynamo-kit/errors';
import { DEDUP_EXPIRES_AT, dedupKey, rateWindowItemKey } from './table-layout';

export class DynamoRateCounter implements RateCounter {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly dedupTable: string,
  ) {}

  take(scope: string, window: RateWindow, limit: number): Promise<boolean> {
    return writeIfCondition(
      () =>
        this.client.send(
          new UpdateItemCommand({
            TableName: this.dedupTable,
            Key: dedupKey(rateWindowItemKey(scope, window.start)),
            UpdateExpression: 'ADD #count :one SET #expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'requests', '#expiresAt': DEDUP_EXPIRES_AT },
            ExpressionAttributeValues: {
              ':one': N(1),
              ':limit': N(limit),
              ':expiresAt': N(window.start + 2 * RATE_WINDOW_SECONDS),
            },
          }),
        ),
      `rate window ${scope}`,
    );
  }
}
