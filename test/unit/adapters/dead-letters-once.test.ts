import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DeadLettersOnce } from '../../../lambda/adapters/dead-letters-once';
import type { DeadLetterPort, Rejection } from '../../../lambda/core/ports';
import { sqsRecord } from '../../support/sqs-events';

const client = new DynamoDBClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const dynamo = mockClient(client);
const NOW_SECONDS = Date.parse('2026-11-30T12:00:00Z') / 1000;
const TTL_SECONDS = 3600;
const rejection: Rejection = { code: 'malformed-body', field: '$', reason: 'not JSON' };

const recordingQueue = (): DeadLetterPort & { sent: string[] } => {
  const sent: string[] = [];
  return { sent, send: async (record) => void sent.push(record.messageId) };
};

const once = (inner: DeadLetterPort) =>
  new DeadLettersOnce(inner, {
    client,
    dedupTable: 'dedup',
    stream: 'cost-events',
    ttlSeconds: TTL_SECONDS,
    now: () => NOW_SECONDS * 1000,
  });

const marker = (expiresAt: number): Record<string, AttributeValue> => ({
  pk: { S: 'cost-events#dead-letter#m-1' },
  expiresAt: { N: String(expiresAt) },
});

beforeEach(() => {
  dynamo.reset();
  dynamo.on(PutItemCommand).resolves({});
});

describe('DeadLettersOnce', () => {
  it('forwards a message seen for the first time, then records the forward with a TTL', async () => {
    dynamo.on(GetItemCommand).resolves({});
    const queue = recordingQueue();

    await once(queue).send(sqsRecord('x', { messageId: 'm-1' }), rejection);

    expect(queue.sent).toEqual(['m-1']);
    expect(dynamo.commandCalls(GetItemCommand)[0].args[0].input).toMatchObject({
      TableName: 'dedup',
      Key: { pk: { S: 'cost-events#dead-letter#m-1' } },
      ConsistentRead: true,
    });
    expect(dynamo.commandCalls(PutItemCommand)[0].args[0].input).toMatchObject({
      TableName: 'dedup',
      Item: {
        pk: { S: 'cost-events#dead-letter#m-1' },
        expiresAt: { N: String(NOW_SECONDS + TTL_SECONDS) },
        status: { S: 'DEAD_LETTERED' },
        rejectionCode: { S: 'malformed-body' },
      },
    });
  });

  it('does not forward the same SQS message again while its marker lives (a lost ack)', async () => {
    dynamo.on(GetItemCommand).resolves({ Item: marker(NOW_SECONDS + 10) });
    const queue = recordingQueue();

    await once(queue).send(sqsRecord('x', { messageId: 'm-1' }), rejection);

    expect(queue.sent).toEqual([]);
    expect(dynamo.commandCalls(PutItemCommand)).toHaveLength(0);
  });

  it('forwards again once the marker has expired, even if DynamoDB has not deleted it yet', async () => {
    dynamo.on(GetItemCommand).resolves({ Item: marker(NOW_SECONDS - 1) });
    const queue = recordingQueue();

    await once(queue).send(sqsRecord('x', { messageId: 'm-1' }), rejection);

    expect(queue.sent).toEqual(['m-1']);
  });

  it('a failed send writes no marker and reaches the caller, so the record is retried', async () => {
    dynamo.on(GetItemCommand).resolves({});
    const error = new Error('DLQ unavailable');
    const failing: DeadLetterPort = { send: async () => Promise.reject(error) };

    await expect(once(failing).send(sqsRecord('x'), rejection)).rejects.toBe(error);
    expect(dynamo.commandCalls(PutItemCommand)).toHaveLength(0);
  });

  it('a failed marker write after a successful send is not an error: the message is in the DLQ', async () => {
    dynamo.on(GetItemCommand).resolves({});
    dynamo.on(PutItemCommand).rejects(new Error('throttled'));
    const queue = recordingQueue();

    await expect(
      once(queue).send(sqsRecord('x', { messageId: 'm-2' }), rejection),
    ).resolves.toBeUndefined();
    expect(queue.sent).toEqual(['m-2']);
  });
});
