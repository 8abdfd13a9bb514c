/** DLQ attribute values: only characters SQS accepts, bounded so the message stays within SQS limits. */
import { SendMessageCommand, SQSClient, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import {
  attributeText,
  fitAttributes,
  MAX_ATTRIBUTES,
} from '../../../lambda/adapters/sqs-attribute-values';
import {
  MAX_ATTRIBUTES_BYTES,
  REJECTION_ATTRIBUTES,
  SqsDeadLetters,
} from '../../../lambda/adapters/sqs-dead-letters';
import type { Rejection } from '../../../lambda/core/ports';
import { sqsRecord } from '../../support/sqs-events';

/** What SQS accepts in a message attribute value (and in the body). */
const SQS_ALLOWED = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const client = new SQSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const sqs = mockClient(client);
const deadLetters = new SqsDeadLetters({
  client,
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/cost-events-dlq',
  fifo: false,
  stream: 'cost-events',
  now: () => Date.parse('2026-11-30T12:00:00Z'),
});

const sentAttributes = (): Record<string, MessageAttributeValue> => {
  const calls = sqs.commandCalls(SendMessageCommand);
  expect(calls).toHaveLength(1);
  return calls[0].args[0].input.MessageAttributes ?? {};
};
const valueOf = (attributes: Record<string, MessageAttributeValue>, name: string): string =>
  attributes[name]?.StringValue ?? '';
/** Bytes SQS counts for the attributes of a message: names, data types and values. */
const attributeBytes = (attributes: Record<string, MessageAttributeValue>): number =>
  Object.entries(attributes).reduce(
    (sum, [name, value]) =>
      sum + utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? ''),
    0,
  );

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'dlq-message' });
});

describe('DLQ attributes SQS accepts', () => {
  it('a rejection field and reason with control characters are escaped, every value is allowed', async () => {
    const rejection: Rejection = {
      code: 'invalid-field',
      field: 'tags.\u0001ctl',
      reason: 'key \u0000\u001b[31m\u0085 \u202Eevil \uD800 \uFFFE\tend\n',
    };
    const record = sqsRecord('{"tags":{"\\u0001ctl":"x"}}', {
      messageId: 'source-\u0007',
      attributes: { tenant: 'acme' },
    });

    await deadLetters.send(record, rejection);

    const attributes = sentAttributes();
    for (const [name, attribute] of Object.entries(attributes)) {
      expect(name).toMatch(SQS_ALLOWED);
      expect(attribute.DataType).toMatch(SQS_ALLOWED);
      expect(attribute.StringValue).toMatch(SQS_ALLOWED);
    }
    expect(valueOf(attributes, REJECTION_ATTRIBUTES.field)).toBe('tags.\\u0001ctl');
    expect(valueOf(attributes, REJECTION_ATTRIBUTES.reason)).toBe(
      'key \\u0000\\u001B[31m\\u0085 \\u202Eevil \\uD800 \\uFFFE\\u0009end\\u000A',
    );
    expect(valueOf(attributes, REJECTION_ATTRIBUTES.sourceMessageId)).toBe('source-\\u0007');
    expect(valueOf(attributes, 'tenant')).toBe('acme');
    expect(sqs.commandCalls(SendMessageCommand)[0].args[0].input.MessageBody).toBe(record.body);
  });

  it('long values are cut with … and all attributes stay within 4 KiB and 10 attributes', async () => {
    const huge = 'é'.repeat(100_000);
    const record = sqsRecord('x', {
      attributes: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`attribute-${i}`, huge]),
      ),
    });

    await deadLetters.send(record, { code: 'invalid-field', field: huge, reason: huge });

    const attributes = sentAttributes();
    expect(Object.keys(attributes).length).toBeLessThanOrEqual(MAX_ATTRIBUTES);
    expect(attributeBytes(attributes)).toBeLessThanOrEqual(MAX_ATTRIBUTES_BYTES);
    const reason = valueOf(attributes, REJECTION_ATTRIBUTES.reason);
    expect(reason.endsWith('…')).toBe(true);
    expect(utf8Bytes(reason)).toBeLessThanOrEqual(1024);
    expect(valueOf(attributes, REJECTION_ATTRIBUTES.code)).toBe('invalid-field');
  });

  it('next to a body at the 256 KiB limit, the rejection code still fits and the message stays within it', async () => {
    const limit = 256 * 1024;
    const body = 'x'.repeat(limit - 120);

    await deadLetters.send(sqsRecord(body, { attributes: { tenant: 'acme' } }), {
      code: 'too-large',
      field: '$',
      reason: 'a long explanation '.repeat(20),
    });

    const attributes = sentAttributes();
    expect(utf8Bytes(body) + attributeBytes(attributes)).toBeLessThanOrEqual(limit);
    expect(valueOf(attributes, REJECTION_ATTRIBUTES.code)).toBe('too-large');
  });
});

describe('attributeText', () => {
  it('escapes controls, format characters, lone surrogates and noncharacters; keeps other text', () => {
    expect(attributeText('a\u0001b', 100)).toBe('a\\u0001b');
    expect(attributeText('\u{E0001}tag', 100)).toBe('\\u{E0001}tag');
    expect(attributeText('\uDC00x\uD83D', 100)).toBe('\\uDC00x\\uD83D');
    expect(attributeText('Budget “prod” 💶 €', 100)).toBe('Budget “prod” 💶 €');
  });

  it('cuts at a character boundary, never inside a surrogate pair or an escape', () => {
    expect(attributeText('💶💶💶', 9)).toBe('💶…');
    expect(attributeText('ab\u0001cd', 7)).toBe('ab…');
    expect(utf8Bytes(attributeText('€'.repeat(50), 20))).toBeLessThanOrEqual(20);
  });

  it('an empty value is "-" (SQS refuses empty strings)', () => {
    expect(attributeText('', 10)).toBe('-');
  });
});

describe('fitAttributes', () => {
  it('keeps the order of importance when the budget is short: later candidates are dropped', () => {
    const fitted = fitAttributes(
      [
        { name: 'first', value: 'a'.repeat(40), maxBytes: 64 },
        { name: 'second', value: 'b'.repeat(40), maxBytes: 64 },
      ],
      60,
    );
    expect(Object.keys(fitted)).toEqual(['first']);
  });

  it('a Number attribute that had to be rewritten is sent as a String', () => {
    const fitted = fitAttributes(
      [{ name: 'n', value: '1'.repeat(40), dataType: 'Number', maxBytes: 20 }],
      100,
    );
    expect(fitted.n).toEqual({ DataType: 'String', StringValue: `${'1'.repeat(17)}…` });
  });
});
