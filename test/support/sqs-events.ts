import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

export interface RecordOptions {
  messageId?: string;
  groupId?: string;
  attributes?: Record<string, string>;
  receiveCount?: number;
}

/** An SQS record as Lambda delivers it, around a body string or a JSON value. */
export const sqsRecord = (body: unknown, options: RecordOptions = {}): SQSRecord => ({
  messageId: options.messageId ?? randomUUID(),
  receiptHandle: `rh-${randomUUID()}`,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  attributes: {
    ApproximateReceiveCount: String(options.receiveCount ?? 1),
    SentTimestamp: '1796300000000',
    SenderId: 'AIDATEST',
    ApproximateFirstReceiveTimestamp: '1796300000050',
    ...(options.groupId
      ? { MessageGroupId: options.groupId, MessageDeduplicationId: randomUUID() }
      : {}),
  },
  messageAttributes: Object.fromEntries(
    Object.entries(options.attributes ?? {}).map(([name, value]) => [
      name,
      { stringValue: value, dataType: 'String', stringListValues: [], binaryListValues: [] },
    ]),
  ),
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:test',
  awsRegion: 'us-east-1',
});

export const sqsEvent = (records: SQSRecord[]): SQSEvent => ({ Records: records });

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

export const lambdaContext = (remainingMs = 30_000): Context => {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test-function',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test-function',
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/test-function',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};
