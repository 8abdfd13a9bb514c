import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { SnsNotifier } from '../../lambda/adapters/sns-notifier';
import { SqsDeadLetters } from '../../lambda/adapters/sqs-dead-letters';
import { processAlertBatch } from '../../lambda/core/alert-processor';
import { processCostBatch } from '../../lambda/core/cost-processor';
import { OUTCOMES } from '../../lambda/core/outcomes';
import { useLocalQueuesAndLedger } from '../support/file-fixtures';
import { costEvent } from '../support/cost-events';
import { sqsRecord } from '../support/sqs-events';

/** Characters SQS accepts in a body; anything else could never reach a consumer. */
const sqsSafe = (text: string): string =>
  text.replace(
    /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  ) || ' ';

const deepNesting = fc
  .integer({ min: 100, max: 5000 })
  .map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const hostileJson = fc.constantFrom(
  '{"amount": NaN, "currency": "USD"}',
  '{"amount": Infinity}',
  '{"accountId": "1", "chargePeriodStart": "2026-11-01T00:00:00Z", "chargeCategory": "usage", "source": "aws", "amount": 1e309, "currency": "USD"}',
  '{"__proto__": {"polluted": true}, "accountId": "1", "amount": "1", "currency": "USD"}',
  '{"tags": {"__proto__": "x", "constructor": "y"}, "source": "aws", "accountId": "1", "chargePeriodStart": "2026-11-01T00:00:00Z", "chargeCategory": "usage", "amount": "1", "currency": "USD"}',
  Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28]).toString('utf8'),
  Buffer.from([0x7b, 0x22, 0x61, 0xe9, 0x22, 0x7d]).toString('latin1'),
  '{"Type": "Notification", "MessageId": "m", "Message": 42}',
  '{"Type": "Notification", "MessageId": "m", "Message": "{\\"Type\\": \\"Notification\\"}"}',
  'AWS Budget Notification\nAWS Account\n',
  '',
  JSON.stringify({ ...costEvent({ accountId: '\u20ac'.repeat(2000), amount: '1' }) }),
  JSON.stringify({
    ...costEvent({ accountId: 'a', amount: '1' }),
    description: '\u{1F600}'.repeat(1000),
  }),
);
const mutatedEvent = fc
  .tuple(
    fc.constantFrom(
      'accountId',
      'amount',
      'currency',
      'chargePeriodStart',
      'tenant',
      'source',
      'tags',
      'lineItemId',
      'version',
      'eventId',
    ),
    fc.jsonValue(),
  )
  .map(([field, value]) =>
    JSON.stringify({ ...costEvent({ accountId: 'fuzz', amount: '1' }), [field]: value }),
  );
const validEvent = fc
  .integer({ min: 1, max: 50 })
  .map((cents) => JSON.stringify(costEvent({ accountId: 'fuzz-valid', amount: `0.${cents}` })));
const hugeString = fc
  .integer({ min: 10_000, max: 200_000 })
  .map((size) => JSON.stringify({ accountId: 'x'.repeat(size), amount: '1' }));
const body = fc.oneof(
  fc.json(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  deepNesting,
  hostileJson,
  mutatedEvent,
  validEvent,
  hugeString,
);

const local = useLocalQueuesAndLedger();

const drain = async (queueUrl: string): Promise<number> => {
  let count = 0;
  for (;;) {
    const { Messages = [] } = await local.sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) {
      const { Attributes = {} } = await local.sqs.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      if (Attributes.ApproximateNumberOfMessages === '0') return count;
      continue;
    }
    count += Messages.length;
    await local.sqs.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
  }
};

const settledOutcomes = OUTCOMES.filter((outcome) => outcome !== 'failed');

describe('fuzz: arbitrary bodies never throw and each record ends in exactly one settled outcome', () => {
  it('cost stream', async () => {
    const dlqUrl = await local.sqs.createQueue('fuzz-cost-dlq');
    const ledger = new DynamoLedger({
      client: local.dynamo,
      ledgerTable: local.tables.ledgerTable,
    });
    const deadLetters = new SqsDeadLetters({
      client: local.sqs.client,
      queueUrl: dlqUrl,
      fifo: false,
      stream: 'cost-events',
    });
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 10 }), async (bodies) => {
        const records = bodies.map((text) => sqsRecord(sqsSafe(text)));
        const outcome = await processCostBatch(records, {
          fifo: false,
          concurrency: 4,
          ledger,
          deadLetters,
        });
        expect(outcome.results.map((result) => result.messageId)).toEqual(
          records.map((record) => record.messageId),
        );
        for (const result of outcome.results) expect(settledOutcomes).toContain(result.outcome);
        const deadLettered = outcome.results.filter(
          (result) => result.outcome === 'rejected' || result.outcome === 'conflict',
        ).length;
        expect(await drain(dlqUrl)).toBe(deadLettered);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('alert stream', async () => {
    const dlqUrl = await local.sqs.createQueue('fuzz-alert-dlq');
    const sns = new SNSClient({ region: 'us-east-1' });
    mockClient(sns).on(PublishCommand).resolves({ MessageId: 'm' });
    const notifier = new SnsNotifier({
      sns,
      dynamo: local.dynamo,
      topicArn: 'arn:aws:sns:us-east-1:1:n',
      dedupTable: local.tables.dedupTable,
      stream: 'budget-alerts',
      ttlSeconds: 3600,
    });
    const deadLetters = new SqsDeadLetters({
      client: local.sqs.client,
      queueUrl: dlqUrl,
      fifo: false,
      stream: 'budget-alerts',
    });
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 10 }), async (bodies) => {
        const records = bodies.map((text) => sqsRecord(sqsSafe(text)));
        const outcome = await processAlertBatch(records, {
          fifo: false,
          concurrency: 4,
          notifier,
          deadLetters,
        });
        for (const result of outcome.results) expect(settledOutcomes).toContain(result.outcome);
        const deadLettered = outcome.results.filter(
          (result) => result.outcome === 'rejected',
        ).length;
        expect(await drain(dlqUrl)).toBe(deadLettered);
      }),
      { numRuns: 40 },
    );
  });
});
