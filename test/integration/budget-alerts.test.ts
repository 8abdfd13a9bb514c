import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { consumerEnvironment, type ConsumerEnvironment } from '../../contract/environment';
import { parseAlert } from '../../lambda/core/alert-processor';
import { createBudgetAlertsHandler } from '../../lambda/handlers/budget-alerts';
import { localDynamo } from '../support/aws-local';
import { useLocalQueuesAndLedger } from '../support/file-fixtures';
import { lambdaContext, snsEnvelope, sqsEvent, sqsRecord } from '../support/sqs-events';

const FIXTURES = path.resolve(__dirname, '../fixtures/samples');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const REAL = path.resolve(__dirname, '../fixtures/alerts');
const real = (name: string) => readFileSync(path.join(REAL, name), 'utf8');

const local = useLocalQueuesAndLedger();
const sns = new SNSClient({ region: 'us-east-1' });
const snsMock = mockClient(sns);

beforeEach(() => {
  snsMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'published' });
});

const newHandler = async (environment: ConsumerEnvironment = {}) => {
  const dlqUrl = await local.sqs.createQueue(
    `alerts-dlq-${Math.random().toString(36).slice(2, 10)}`,
  );
  return createBudgetAlertsHandler(
    consumerEnvironment({
      streamName: 'budget-alerts',
      queueKind: 'standard',
      dlqUrl,
      dedupTableName: local.tables.dedupTable,
      notificationsTopicArn: 'arn:aws:sns:us-east-1:123456789012:notifications',
      logLevel: 'SILENT',
      ...environment,
    }),
    { dynamo: local.dynamo, sqs: local.sqs.client, sns },
  );
};

const gcp = (data: Record<string, unknown>) => {
  const { attributes, data: base } = JSON.parse(fixture('gcp-budget-notification.json'));
  return { body: JSON.stringify({ ...base, ...data }), attributes };
};

describe('budget alerts handler against DynamoDB Local', () => {
  it('an alert delivered five times, in separate invocations and in one batch, is published once', async () => {
    const handler = await newHandler();
    const envelopeHandler = await newHandler({ deliveryMode: 'envelope' });
    const text = fixture('aws-budgets-notification.txt');
    for (let delivery = 0; delivery < 3; delivery++) {
      const response =
        delivery % 2
          ? await envelopeHandler(sqsEvent([sqsRecord(snsEnvelope(text))]), lambdaContext())
          : await handler(sqsEvent([sqsRecord(text)]), lambdaContext());
      expect(response.batchItemFailures).toEqual([]);
    }
    await handler(sqsEvent([sqsRecord(text), sqsRecord(text)]), lambdaContext());
    const publishes = snsMock.commandCalls(PublishCommand);
    expect(publishes).toHaveLength(1);
    const input = publishes[0].args[0].input;
    expect(input.TopicArn).toBe('arn:aws:sns:us-east-1:123456789012:notifications');
    expect(input.Subject).toMatch(/prod-platform-monthly/);
    expect(input.Message).toMatch(/Account: 200000000011/);
    expect(input.MessageAttributes).toMatchObject({
      kind: { DataType: 'String', StringValue: 'budget-threshold' },
      tenant: { DataType: 'String', StringValue: 'default' },
      accountId: { DataType: 'String', StringValue: '200000000011' },
      severity: { DataType: 'String' },
    });
  });

  it('a GCP notification re-sent with a rising cost is the same alert; a periodic update is observed only', async () => {
    const handler = await newHandler();
    const first = gcp({});
    const later = gcp({ costAmount: 4700.12 });
    const update = (() => {
      const { attributes, data } = JSON.parse(fixture('gcp-budget-update.json'));
      return { body: JSON.stringify(data), attributes };
    })();
    for (const message of [first, later, update]) {
      const response = await handler(
        sqsEvent([sqsRecord(message.body, { attributes: message.attributes })]),
        lambdaContext(),
      );
      expect(response.batchItemFailures).toEqual([]);
    }
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(1);
  });

  it('32 concurrent invocations with one alert publish it exactly once (in-progress losers retry into duplicates)', async () => {
    const handler = await newHandler();
    const anomaly = fixture('aws-cost-anomaly.json');
    let pending = Array.from({ length: 32 }, () => sqsRecord(anomaly));
    for (let round = 0; round < 10 && pending.length > 0; round++) {
      const responses = await Promise.all(
        pending.map((record) => handler(sqsEvent([record]), lambdaContext())),
      );
      pending = pending.filter((_, index) => responses[index].batchItemFailures.length > 0);
      if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending).toEqual([]);
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(1);
  });

  it('a throttled COMPLETED write after the publish is retried, so a later delivery does not publish again', async () => {
    let throttledUpdates = 4;
    const flakyDynamo = localDynamo({
      middleware: (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand' && throttledUpdates > 0) {
          throttledUpdates--;
          throw Object.assign(new Error('Rate exceeded'), {
            name: 'ProvisionedThroughputExceededException',
          });
        }
        return next(args);
      },
    });
    const handler = createBudgetAlertsHandler(
      consumerEnvironment({
        streamName: 'budget-alerts',
        dlqUrl: await local.sqs.createQueue('alerts-dlq-completion'),
        dedupTableName: local.tables.dedupTable,
        notificationsTopicArn: 'arn:aws:sns:us-east-1:123456789012:notifications',
      }),
      { dynamo: flakyDynamo, sqs: local.sqs.client, sns },
    );
    const message = gcp({ alertThresholdExceeded: 0.5 });
    const deliver = () =>
      handler(
        sqsEvent([sqsRecord(message.body, { attributes: message.attributes })]),
        lambdaContext(50),
      );
    expect((await deliver()).batchItemFailures).toEqual([]);
    expect(throttledUpdates).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await deliver()).batchItemFailures).toEqual([]);
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(1);
    flakyDynamo.destroy();
  });

  it('stores the alert claim under the documented key: stream # base64 MD5 of the JSON alert key', async () => {
    const handler = await newHandler();
    const message = gcp({ budgetDisplayName: 'claim-key-layout' });
    const record = sqsRecord(message.body, { attributes: message.attributes });
    expect((await handler(sqsEvent([record]), lambdaContext())).batchItemFailures).toEqual([]);
    const { key } = parseAlert(record);
    const md5 = createHash('md5').update(JSON.stringify(key)).digest('base64');
    const { Item } = await local.dynamo.send(
      new GetItemCommand({
        TableName: local.tables.dedupTable,
        Key: { pk: { S: `budget-alerts#${md5}` } },
        ConsistentRead: true,
      }),
    );
    expect(Item?.status?.S).toBe('COMPLETED');
    expect(Number(Item?.expiresAt?.N)).toBeGreaterThan(Date.now() / 1000);
  });

  it('a failed publish releases the claim: the retry publishes', async () => {
    const handler = await newHandler();
    const record = sqsRecord(gcp({ alertThresholdExceeded: 1.0 }).body, {
      attributes: gcp({}).attributes,
    });
    snsMock
      .on(PublishCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'Throttling' }));
    expect((await handler(sqsEvent([record]), lambdaContext())).batchItemFailures).toEqual([
      { itemIdentifier: record.messageId },
    ]);
    snsMock.on(PublishCommand).resolves({ MessageId: 'ok' });
    expect((await handler(sqsEvent([record]), lambdaContext())).batchItemFailures).toEqual([]);
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(2);
  });

  it('one anomaly by its SNS subscription and by EventBridge, in two invocations, is published once', async () => {
    const handler = await newHandler();
    const envelopeHandler = await newHandler({ deliveryMode: 'envelope' });
    const event = real('aws-cost-anomaly-eventbridge.json');
    expect(
      (await envelopeHandler(sqsEvent([sqsRecord(snsEnvelope(event))]), lambdaContext()))
        .batchItemFailures,
    ).toEqual([]);
    expect(
      (await handler(sqsEvent([sqsRecord(real('aws-cost-anomaly-sns.json'))]), lambdaContext()))
        .batchItemFailures,
    ).toEqual([]);
    const publishes = snsMock.commandCalls(PublishCommand);
    expect(publishes).toHaveLength(1);
    const input = publishes[0].args[0].input;
    expect(input.Subject).toBe(
      '[critical] Cost anomaly in 123456789012: impact 1001 USD (+333.67%) - Amazon Elastic Compute Clou...',
    );
    expect(input.Message).toContain('Root causes:\n- Amazon Elastic Compute Cloud - Compute');
    expect(input.Message).toContain(
      'Link: https://console.aws.amazon.com/cost-management/home#/anomaly-detection/',
    );
    expect(input.MessageAttributes).toMatchObject({
      kind: { DataType: 'String', StringValue: 'anomaly' },
      severity: { DataType: 'String', StringValue: 'critical' },
    });
  });

  it('a daily budget crossed on two days publishes twice; a repeat the same day does not', async () => {
    const handler = await newHandler();
    const dayOne = real('aws-budgets-daily-2023-03-04.txt');
    const sameThresholdNextDay = dayOne
      .replace('March 04, 2023', 'March 05, 2023')
      .replace(/\$2\.15/g, '$1.70');
    for (const text of [dayOne, dayOne.replace(/\$2\.15/g, '$2.40'), sameThresholdNextDay]) {
      expect(
        (await handler(sqsEvent([sqsRecord(text)]), lambdaContext())).batchItemFailures,
      ).toEqual([]);
    }
    const subjects = snsMock.commandCalls(PublishCommand).map((call) => call.args[0].input.Subject);
    expect(subjects).toEqual([
      '[warning] killswitch exceeded 0 USD (day 2023-03-03)',
      '[warning] killswitch exceeded 0 USD (day 2023-03-04)',
    ]);
  });
});
