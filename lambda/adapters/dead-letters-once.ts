import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeadLetterPort, Rejection, SqsRecordInput } from '../core/ports';
import {
  DEDUP_EXPIRES_AT,
  DEDUP_PK,
  deadLetterMarkerKey,
  dedupKey,
  type DedupScope,
} from './table-layout';

export interface DeadLettersOnceOptions extends DedupScope {
  client: DynamoDBClient;
  now?: () => number;
}

/**
 * Forwards a message to the DLQ once per SQS message, even when the ack after forwarding is lost and
 * the message comes back: a marker in the dedup table records the forward. The marker is written
 * after the send, so a crash in between can at worst forward twice, never lose the message. A
 * redriven message is a new SQS message (new MessageId) and is forwarded again if still poison.
 */
export class DeadLettersOnce implements DeadLetterPort {
  constructor(
    private readonly inner: DeadLetterPort,
    private readonly options: DeadLettersOnceOptions,
  ) {}

  async send(record: SqsRecordInput, rejection: Rejection): Promise<void> {
    const pk = deadLetterMarkerKey(this.options.stream, record.messageId);
    const nowSeconds = Math.floor((this.options.now ?? Date.now)() / 1000);
    const marker = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.dedupTable,
        Key: dedupKey(pk),
        ConsistentRead: true,
      }),
    );
    if (Number(marker.Item?.[DEDUP_EXPIRES_AT]?.N ?? '0') >= nowSeconds) return;
    await this.inner.send(record, rejection);
    try {
      await this.options.client.send(
        new PutItemCommand({
          TableName: this.options.dedupTable,
          Item: {
            [DEDUP_PK]: { S: pk },
            [DEDUP_EXPIRES_AT]: { N: String(nowSeconds + this.options.ttlSeconds) },
            status: { S: 'DEAD_LETTERED' },
            rejectionCode: { S: rejection.code },
          },
        }),
      );
    } catch {
      // The message is in the DLQ; without the marker a lost ack could only add a second copy there.
    }
  }
}
