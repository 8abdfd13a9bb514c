import {
  SendMessageCommand,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeadLetterPort, Rejection, SqsRecordInput } from '../core/ports';
import { DeadLettersOnce } from './dead-letters-once';

export interface SqsDeadLettersOptions {
  client: SQSClient;
  queueUrl: string;
  fifo: boolean;
  stream: string;
  now?: () => number;
}

/** Names of the attributes a rejected message carries in the DLQ. */
export const REJECTION_ATTRIBUTES = {
  code: 'rejection-code',
  field: 'rejection-field',
  reason: 'rejection-reason',
  stream: 'rejection-stream',
  at: 'rejected-at',
  sourceMessageId: 'source-message-id',
} as const;

const SQS_ATTRIBUTE_LIMIT = 10;
const text = (value: string, max = 1000): MessageAttributeValue => ({
  DataType: 'String',
  StringValue: value.length > 0 ? value.slice(0, max) : '-',
});

/** Sends a poison or conflicting message to the stream's DLQ, body byte for byte, reason as attributes. */
export class SqsDeadLetters implements DeadLetterPort {
  constructor(private readonly options: SqsDeadLettersOptions) {}

  async send(record: SqsRecordInput, rejection: Rejection): Promise<void> {
    const now = this.options.now ?? Date.now;
    const ours: Record<string, MessageAttributeValue> = {
      [REJECTION_ATTRIBUTES.code]: text(rejection.code),
      [REJECTION_ATTRIBUTES.field]: text(rejection.field),
      [REJECTION_ATTRIBUTES.reason]: text(rejection.reason),
      [REJECTION_ATTRIBUTES.stream]: text(this.options.stream),
      [REJECTION_ATTRIBUTES.at]: text(new Date(now()).toISOString()),
      [REJECTION_ATTRIBUTES.sourceMessageId]: text(record.messageId),
    };
    const originals = Object.entries(record.messageAttributes ?? {})
      .filter(([name, value]) => !(name in ours) && typeof value?.stringValue === 'string')
      .slice(0, SQS_ATTRIBUTE_LIMIT - Object.keys(ours).length)
      .map(([name, value]): [string, MessageAttributeValue] => [
        name,
        { DataType: value?.dataType ?? 'String', StringValue: value?.stringValue },
      ]);
    await this.options.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: record.body,
        MessageAttributes: { ...Object.fromEntries(originals), ...ours },
        ...(this.options.fifo
          ? {
              MessageGroupId: record.attributes?.MessageGroupId ?? 'rejected',
              MessageDeduplicationId: record.messageId.slice(0, 128),
            }
          : {}),
      }),
    );
  }
}

/** The DLQ of the stream a consumer's settings describe, forwarding each SQS message once. */
export const deadLettersFor = (
  settings: {
    dlqUrl: string;
    fifo: boolean;
    stream: string;
    dedupTable: string;
    ttlSeconds: number;
  },
  clients: { sqs: SQSClient; dynamo: DynamoDBClient },
): DeadLetterPort =>
  new DeadLettersOnce(
    new SqsDeadLetters({
      client: clients.sqs,
      queueUrl: settings.dlqUrl,
      fifo: settings.fifo,
      stream: settings.stream,
    }),
    {
      client: clients.dynamo,
      dedupTable: settings.dedupTable,
      stream: settings.stream,
      ttlSeconds: settings.ttlSeconds,
    },
  );
