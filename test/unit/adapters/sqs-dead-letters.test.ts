import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { REJECTION_ATTRIBUTES, SqsDeadLetters } from '../../../lambda/adapters/sqs-dead-letters';
import type { Rejection } from '../../../lambda/core/ports';
import { sqsRecord } from '../../support/sqs-events';

const client = new SQSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const sqs = mockClient(client);
const NOW_MS = Date.parse('2026-11-30T12:00:00Z');
const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/cost-events-dlq';

const deadLetters = (fifo: boolean) =>
  new SqsDeadLetters({
    client,
    queueUrl: fifo ? `${DLQ_URL}.fifo` : DLQ_URL,
    fifo,
    stream: 'cost-events',
    now: () => NOW_MS,
  });

const rejection: Rejection = {
  code: 'invalid-field',
  field: 'amount',
  reason: 'more than 10 fraction digits',
};

const sent = () => sqs.commandCalls(SendMessageCommand)[0].args[0].input;
const stringValues = (attributes: Record<string, { StringValue?: string }> = {}) =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, value.StringValue]));

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'dlq-message' });
});

describe('SqsDeadLetters', () => {
  it('sends the body byte for byte with the reason, stream, time and source message id as attributes', async () => {
    const body = '{"amount": 1.00000000001,  "currency":"USD"}\n';
    const record = sqsRecord(body, { messageId: 'source-1' });

    await deadLetters(false).send(record, rejection);

    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(sent().QueueUrl).toBe(DLQ_URL);
    expect(sent().MessageBody).toBe(body);
    expect(stringValues(sent().MessageAttributes)).toEqual({
      [REJECTION_ATTRIBUTES.code]: 'invalid-field',
      [REJECTION_ATTRIBUTES.field]: 'amount',
      [REJECTION_ATTRIBUTES.reason]: 'more than 10 fraction digits',
      [REJECTION_ATTRIBUTES.stream]: 'cost-events',
      [REJECTION_ATTRIBUTES.at]: '2026-11-30T12:00:00.000Z',
      [REJECTION_ATTRIBUTES.sourceMessageId]: 'source-1',
    });
    expect(sent().MessageGroupId).toBeUndefined();
    expect(sent().MessageDeduplicationId).toBeUndefined();
  });

  it('the attribute names are the documented ones', () => {
    expect(Object.values(REJECTION_ATTRIBUTES).sort()).toEqual([
      'rejected-at',
      'rejection-code',
      'rejection-field',
      'rejection-reason',
      'rejection-stream',
      'source-message-id',
    ]);
  });

  it('keeps original attributes (a tenant survives a redrive) within the SQS limit of 10, ours first', async () => {
    const originals = Object.fromEntries(
      ['tenant', 'source', 'a', 'b', 'c', 'd'].map((name) => [name, `${name}-value`]),
    );
    const record = sqsRecord('x', { attributes: { ...originals, 'rejection-code': 'forged' } });

    await deadLetters(false).send(record, rejection);

    const attributes = stringValues(sent().MessageAttributes);
    expect(Object.keys(attributes)).toHaveLength(10);
    expect(attributes).toMatchObject({ tenant: 'tenant-value', source: 'source-value' });
    expect(attributes['rejection-code']).toBe('invalid-field');
  });

  it('FIFO: keeps the message group and deduplicates on the source message id', async () => {
    const record = sqsRecord('x', { messageId: 'source-2', groupId: 'acme#200000000011' });

    await deadLetters(true).send(record, rejection);

    expect(sent()).toMatchObject({
      QueueUrl: `${DLQ_URL}.fifo`,
      MessageGroupId: 'acme#200000000011',
      MessageDeduplicationId: 'source-2',
    });
  });

  it('a failed send reaches the caller (the record is retried, never dropped)', async () => {
    const error = Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });
    sqs.on(SendMessageCommand).rejects(error);
    await expect(deadLetters(false).send(sqsRecord('x'), rejection)).rejects.toBe(error);
  });
});

describe('SqsDeadLetters without a client (the functions: the SQS client loads on the first dead letter)', () => {
  it('creates one client on the first send and reuses it', async () => {
    const everyClient = mockClient(SQSClient);
    everyClient.on(SendMessageCommand).resolves({ MessageId: 'dlq-message' });
    try {
      const lazy = new SqsDeadLetters({ queueUrl: DLQ_URL, fifo: false, stream: 'cost-events' });
      await lazy.send(sqsRecord('not json', { messageId: 'a' }), rejection);
      await lazy.send(sqsRecord('not json either', { messageId: 'b' }), rejection);
      const calls = everyClient.commandCalls(SendMessageCommand);
      expect(calls.map((call) => call.args[0].input.MessageBody)).toEqual([
        'not json',
        'not json either',
      ]);
      expect(calls[0].thisValue).toBe(calls[1].thisValue);
    } finally {
      everyClient.restore();
    }
  });
});
