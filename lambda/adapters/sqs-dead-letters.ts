import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeadLetterPort, Rejection, SqsRecordInput } from '../core/ports';
import { DeadLettersOnce } from './dead-letters-once';
import { fitAttributes, type AttributeCandidate } from './sqs-attribute-values';
import { dedupScopeOf, type DedupScope } from './table-layout';

export interface SqsDeadLettersOptions {
  /** The DLQ's client; absent: one for the environment, created on the first dead letter. */
  client?: SQSClient;
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

/** The most UTF-8 bytes of each of our attribute values; a value is cut with `…` beyond it. */
const MAX_VALUE_BYTES = {
  code: 64,
  field: 256,
  reason: 1024,
  stream: 64,
  at: 32,
  sourceMessageId: 128,
  original: 256,
} as const;
/** All attributes together (names, data types and values): a small part of any message. */
export const MAX_ATTRIBUTES_BYTES = 4096;
/** SQS's message size before and after the 1 MiB raise; a DLQ takes what its source queue took. */
const SQS_MESSAGE_SIZES = [256 * 1024, 1024 * 1024];

/** Room left for attributes next to this body, within the smallest SQS message size that holds it. */
const attributeBudget = (body: string): number => {
  const bodyBytes = Buffer.byteLength(body, 'utf8');
  const limit = SQS_MESSAGE_SIZES.find((size) => size >= bodyBytes) ?? bodyBytes;
  return Math.min(MAX_ATTRIBUTES_BYTES, limit - bodyBytes);
};

/**
 * Sends a poison or conflicting message to the stream's DLQ, body byte for byte, reason as attributes.
 * Every attribute value goes through `attributeText` (SQS refuses control characters and the send would
 * fail on every retry); the rejection's own attributes come first, then up to four original ones.
 */
export class SqsDeadLetters implements DeadLetterPort {
  private client?: SQSClient;

  constructor(private readonly options: SqsDeadLettersOptions) {
    this.client = options.client;
  }

  async send(record: SqsRecordInput, rejection: Rejection): Promise<void> {
    // Loaded on the first dead letter when no client was given (the consumers pass the spool's client
    // when the archive spool is on; tools and direct-archive consumers may never reject anything).
    const { SendMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
    const client = (this.client ??= new SQSClient({}));
    const now = this.options.now ?? Date.now;
    const ours: AttributeCandidate[] = [
      { name: REJECTION_ATTRIBUTES.code, value: rejection.code, maxBytes: MAX_VALUE_BYTES.code },
      {
        name: REJECTION_ATTRIBUTES.stream,
        value: this.options.stream,
        maxBytes: MAX_VALUE_BYTES.stream,
      },
      {
        name: REJECTION_ATTRIBUTES.sourceMessageId,
        value: record.messageId,
        maxBytes: MAX_VALUE_BYTES.sourceMessageId,
      },
      {
        name: REJECTION_ATTRIBUTES.at,
        value: new Date(now()).toISOString(),
        maxBytes: MAX_VALUE_BYTES.at,
      },
      { name: REJECTION_ATTRIBUTES.field, value: rejection.field, maxBytes: MAX_VALUE_BYTES.field },
      {
        name: REJECTION_ATTRIBUTES.reason,
        value: rejection.reason,
        maxBytes: MAX_VALUE_BYTES.reason,
      },
    ];
    const reserved = new Set(ours.map((attribute) => attribute.name));
    const originals = Object.entries(record.messageAttributes ?? {}).flatMap(
      ([name, attribute]): AttributeCandidate[] =>
        !reserved.has(name) && typeof attribute?.stringValue === 'string'
          ? [
              {
                name,
                value: attribute.stringValue,
                dataType: attribute.dataType ?? 'String',
                maxBytes: MAX_VALUE_BYTES.original,
              },
            ]
          : [],
    );
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: record.body,
        MessageAttributes: fitAttributes([...ours, ...originals], attributeBudget(record.body)),
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
  settings: DedupScope & { dlqUrl: string; fifo: boolean },
  clients: { sqs?: SQSClient; dynamo: DynamoDBClient },
): DeadLetterPort =>
  new DeadLettersOnce(
    new SqsDeadLetters({
      ...(clients.sqs ? { client: clients.sqs } : {}),
      queueUrl: settings.dlqUrl,
      fifo: settings.fifo,
      stream: settings.stream,
    }),
    { client: clients.dynamo, ...dedupScopeOf(settings) },
  );
