/**
 * Looking at a DLQ without consuming it. SQS has no real "peek": messages are received with a short
 * visibility timeout (held, so one peek lists each message once), then made visible again at once with
 * ChangeMessageVisibility 0. Nothing is deleted. Every receive increments ApproximateReceiveCount, and on a
 * FIFO queue a held message locks its message group until it is released (a second peek, a redrive or a
 * consumer waits for that group meanwhile; only the head messages of each group can be seen at all).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';

export interface Rejection {
  code?: string;
  field?: string;
  reason?: string;
  stream?: string;
  at?: string;
  sourceMessageId?: string;
}

export interface PeekedMessage {
  messageId: string;
  body: string;
  receiveCount: number;
  sentAt?: string;
  groupId?: string;
  /** From the REJECTION_ATTRIBUTES the consumer sets; empty when SQS moved it after maxReceiveCount. */
  rejection: Rejection;
  attributes: Record<string, string>;
}

export interface QueueDepth {
  visible: number;
  inFlight: number;
  delayed: number;
}

export interface PeekResult {
  queueUrl: string;
  fifo: boolean;
  depth: QueueDepth;
  messages: PeekedMessage[];
}

export interface PeekOptions {
  sqs: SQSClient;
  dlqUrl: string;
  /** At most this many messages (default 10). */
  max?: number;
  /** How long messages are held while the peek runs, seconds (default 30; released right after). */
  holdSeconds?: number;
  /** Long-poll wait per receive, seconds (default 1). */
  waitSeconds?: number;
}

export const queueDepth = async (
  sqs: SQSClient,
  queueUrl: string,
): Promise<QueueDepth & { arn: string; fifo: boolean }> => {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'QueueArn',
        'FifoQueue',
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    arn: a.QueueArn ?? '',
    fifo: a.FifoQueue === 'true' || /\.fifo$/.test(queueUrl),
    visible: Number(a.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
  };
};

const REJECTION_KEYS = Object.entries(REJECTION_ATTRIBUTES) as [keyof Rejection, string][];

const toPeeked = (message: Message): PeekedMessage => {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {}))
    if (value.StringValue !== undefined) attributes[name] = value.StringValue;
  const rejection: Rejection = {};
  for (const [key, name] of REJECTION_KEYS) if (attributes[name]) rejection[key] = attributes[name];
  const sent = Number(message.Attributes?.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
    ...(Number.isFinite(sent) && sent > 0 ? { sentAt: new Date(sent).toISOString() } : {}),
    ...(message.Attributes?.MessageGroupId ? { groupId: message.Attributes.MessageGroupId } : {}),
    rejection,
    attributes,
  };
};

/** Lists up to `max` DLQ messages with their rejection reason and receive count, leaving them in the queue. */
export const peekDlq = async (options: PeekOptions): Promise<PeekResult> => {
  const { sqs, dlqUrl, max = 10, holdSeconds = 30, waitSeconds = 1 } = options;
  const depth = await queueDepth(sqs, dlqUrl);
  const seen = new Map<string, PeekedMessage>();
  const handles: string[] = [];
  let empty = 0;
  try {
    while (seen.size < max && empty < 2) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: dlqUrl,
          MaxNumberOfMessages: Math.min(10, max - seen.size),
          VisibilityTimeout: holdSeconds,
          WaitTimeSeconds: waitSeconds,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      let fresh = 0;
      for (const message of Messages) {
        if (message.ReceiptHandle) handles.push(message.ReceiptHandle);
        const id = message.MessageId ?? '';
        if (seen.has(id) || seen.size >= max) continue;
        seen.set(id, toPeeked(message));
        fresh += 1;
      }
      empty = fresh === 0 ? empty + 1 : 0;
    }
  } finally {
    await releaseMessages(sqs, dlqUrl, handles);
  }
  return { queueUrl: dlqUrl, fifo: depth.fifo, depth, messages: [...seen.values()] };
};

/** Makes held messages visible again right away (VisibilityTimeout 0), ten per request. */
export const releaseMessages = async (
  sqs: SQSClient,
  queueUrl: string,
  receiptHandles: string[],
): Promise<void> => {
  for (let start = 0; start < receiptHandles.length; start += 10) {
    const chunk = receiptHandles.slice(start, start + 10);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((handle, index) => ({
          Id: String(start + index),
          ReceiptHandle: handle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
};

/** Messages grouped by rejection code and field (or "moved by SQS after maxReceiveCount"), largest first. */
export const reasonBreakdown = (
  messages: PeekedMessage[],
): { reason: string; count: number; example?: string }[] => {
  const groups = new Map<string, { count: number; example?: string }>();
  for (const message of messages) {
    const { code, field, reason } = message.rejection;
    const key = code
      ? `${code}${field && field !== '-' ? ` (${field})` : ''}`
      : 'no rejection attributes (moved by SQS after maxReceiveCount: failed processing, not poison)';
    const group = groups.get(key) ?? { count: 0, example: reason };
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.entries()]
    .map(([reason, { count, example }]) => ({ reason, count, ...(example ? { example } : {}) }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
};
