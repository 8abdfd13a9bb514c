/**
 * The Lambda simulation kit: the `Context` an invocation receives and the SQS records an SQS event
 * source mapping hands to a function. One implementation shared by the local runtime's poller, the
 * benchmarks and the tests, so the three never drift apart.
 */
import { randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export const SIM_REGION = 'us-east-1';
export const SIM_ACCOUNT_ID = '123456789012';
/** A fixed send time (2026-12-01): records built from literals stay identical from run to run. */
const SIM_SENT_TIMESTAMP = '1796300000000';
const SIM_FIRST_RECEIVE_TIMESTAMP = '1796300000050';

export interface ContextOptions {
  functionName: string;
  /** Default: the function's ARN in the simulated region and account. */
  functionArn?: string;
  memoryMb?: number;
  /** Epoch milliseconds at which the invocation times out. */
  deadline: number;
  requestId?: string;
  logStreamName?: string;
}

export const lambdaContext = (options: ContextOptions): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: options.functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn:
    options.functionArn ??
    `arn:aws:lambda:${SIM_REGION}:${SIM_ACCOUNT_ID}:function:${options.functionName}`,
  memoryLimitInMB: String(options.memoryMb ?? 128),
  awsRequestId: options.requestId ?? randomUUID(),
  logGroupName: `/aws/lambda/${options.functionName}`,
  logStreamName: options.logStreamName ?? 'simulated',
  getRemainingTimeInMillis: () => Math.max(0, options.deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export interface FifoFields {
  groupId: string;
  deduplicationId?: string;
  sequenceNumber?: string;
}

export interface SqsRecordInput {
  messageId: string;
  body: string;
  queueArn: string;
  /** Default `rh-<messageId>`. */
  receiptHandle?: string;
  receiveCount?: number;
  sentTimestamp?: string;
  firstReceiveTimestamp?: string;
  senderId?: string;
  fifo?: FifoFields;
  deadLetterQueueSourceArn?: string;
  messageAttributes?: SQSMessageAttributes;
  md5OfBody?: string;
}

/** The region an ARN names (`arn:aws:sqs:<region>:…`), the simulated one when it names none. */
const regionOf = (arn: string): string => arn.split(':')[3] || SIM_REGION;

export const sqsRecord = (input: SqsRecordInput): SQSRecord => ({
  messageId: input.messageId,
  receiptHandle: input.receiptHandle ?? `rh-${input.messageId}`,
  body: input.body,
  attributes: {
    ApproximateReceiveCount: String(input.receiveCount ?? 1),
    SentTimestamp: input.sentTimestamp ?? SIM_SENT_TIMESTAMP,
    SenderId: input.senderId ?? 'AIDASIMULATED',
    ApproximateFirstReceiveTimestamp: input.firstReceiveTimestamp ?? SIM_FIRST_RECEIVE_TIMESTAMP,
    ...(input.fifo?.sequenceNumber ? { SequenceNumber: input.fifo.sequenceNumber } : {}),
    ...(input.fifo ? { MessageGroupId: input.fifo.groupId } : {}),
    ...(input.fifo?.deduplicationId ? { MessageDeduplicationId: input.fifo.deduplicationId } : {}),
    ...(input.deadLetterQueueSourceArn
      ? { DeadLetterQueueSourceArn: input.deadLetterQueueSourceArn }
      : {}),
  },
  messageAttributes: input.messageAttributes ?? {},
  md5OfBody: input.md5OfBody ?? '',
  eventSource: 'aws:sqs',
  eventSourceARN: input.queueArn,
  awsRegion: regionOf(input.queueArn),
});

export const sqsEvent = (records: SQSRecord[]): SQSEvent => ({ Records: records });

/** String message attributes as Lambda presents them. */
export const stringAttributes = (attributes: Record<string, string>): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      { stringValue: value, dataType: 'String', stringListValues: [], binaryListValues: [] },
    ]),
  );

/**
 * The record Lambda builds from a message an SQS `ReceiveMessage` returned (all attributes requested).
 * Timestamps the emulator left out are now.
 */
export const sqsRecordFromMessage = (
  message: Message,
  delivery: { queueArn: string; receiveCount: number },
): SQSRecord => {
  const attributes = message.Attributes ?? {};
  const now = String(Date.now());
  return sqsRecord({
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    queueArn: delivery.queueArn,
    receiveCount: delivery.receiveCount,
    sentTimestamp: attributes.SentTimestamp ?? now,
    firstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? now,
    senderId: attributes.SenderId ?? 'LOCAL',
    ...(attributes.MessageGroupId
      ? {
          fifo: {
            groupId: attributes.MessageGroupId,
            deduplicationId: attributes.MessageDeduplicationId,
            sequenceNumber: attributes.SequenceNumber,
          },
        }
      : {}),
    deadLetterQueueSourceArn: attributes.DeadLetterQueueSourceArn,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue
            ? Buffer.from(value.BinaryValue).toString('base64')
            : undefined,
          stringListValues: [],
          binaryListValues: [],
          dataType: value.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody,
  });
};
