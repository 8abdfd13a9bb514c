import { randomUUID } from 'node:crypto';
import type { Context, SQSRecord } from 'aws-lambda';
import {
  lambdaContext as simulatedContext,
  sqsRecord as simulatedRecord,
  stringAttributes,
} from '../../local/runtime/lambda-sim';

export { sqsEvent } from '../../local/runtime/lambda-sim';

export interface RecordOptions {
  messageId?: string;
  groupId?: string;
  attributes?: Record<string, string>;
  receiveCount?: number;
}

const TEST_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:test';

/** An SQS record as Lambda delivers it, around a body string or a JSON value. */
export const sqsRecord = (body: unknown, options: RecordOptions = {}): SQSRecord =>
  simulatedRecord({
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `rh-${randomUUID()}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    queueArn: TEST_QUEUE_ARN,
    receiveCount: options.receiveCount,
    senderId: 'AIDATEST',
    ...(options.groupId
      ? { fifo: { groupId: options.groupId, deduplicationId: randomUUID() } }
      : {}),
    messageAttributes: stringAttributes(options.attributes ?? {}),
  });

/** The same messages delivered again, as SQS does once their visibility timeout passes. */
export const redelivered = (records: SQSRecord[]): SQSRecord[] =>
  records.map((record) => ({
    ...record,
    receiptHandle: `${record.receiptHandle}-again`,
    attributes: {
      ...record.attributes,
      ApproximateReceiveCount: String(Number(record.attributes.ApproximateReceiveCount) + 1),
    },
  }));

/** The SNS notification envelope SQS holds when raw message delivery is off. */
export const snsEnvelope = (message: unknown, attributes: Record<string, string> = {}): string =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:topic',
    Message: typeof message === 'string' ? message : JSON.stringify(message),
    Timestamp: new Date().toISOString(),
    MessageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [name, { Type: 'String', Value: value }]),
    ),
  });

export const lambdaContext = (remainingMs = 30_000): Context =>
  simulatedContext({
    functionName: 'test-function',
    memoryMb: 256,
    deadline: Date.now() + remainingMs,
    logStreamName: 'test',
  });
