import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { sha256Hex } from '../core/keys';
import type { ChargeLeasePort } from '../core/ports';
import { N, S } from './dynamo-kit/attributes';
import { writeIfCondition } from './dynamo-kit/errors';
import { DEDUP_EXPIRES_AT, DEDUP_PK, chargeLeaseKey } from './table-layout';

export interface DynamoChargeLeasesOptions {
  client: DynamoDBClient;
  dedupTable: string;
  stream: string;
  now?: () => number;
}

/**
 * Charge leases in the dedup table, one conditional `PutItem` each (1 write unit, taken or refused):
 * taken when the key is free, its lease has run out, or the same SQS message holds it (a redelivery
 * after a crash). Expired items go by TTL. Nothing reads them but this condition.
 */
export class DynamoChargeLeases implements ChargeLeasePort {
  constructor(private readonly options: DynamoChargeLeasesOptions) {}

  async take(leases: { key: string; holder: string }[], untilMs: number): Promise<Set<string>> {
    const nowMs = (this.options.now ?? Date.now)();
    const held = new Set<string>();
    await Promise.all(
      leases.map(async ({ key, holder }) => {
        const taken = await writeIfCondition(
          () =>
            this.options.client.send(
              new PutItemCommand({
                TableName: this.options.dedupTable,
                Item: {
                  [DEDUP_PK]: S(chargeLeaseKey(this.options.stream, sha256Hex(key))),
                  [DEDUP_EXPIRES_AT]: N(Math.ceil(untilMs / 1000)),
                  leaseUntil: N(untilMs),
                  holder: S(holder),
                },
                ConditionExpression:
                  'attribute_not_exists(#pk) OR leaseUntil < :now OR holder = :holder',
                ExpressionAttributeNames: { '#pk': DEDUP_PK },
                ExpressionAttributeValues: { ':now': N(nowMs), ':holder': S(holder) },
              }),
            ),
          'the dedup table rejected a charge lease',
        );
        if (!taken) held.add(key);
      }),
    );
    return held;
  }
}
