import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand } from '@aws-sdk/client-sns';
import { IdempotencyAlreadyInProgressError } from '@aws-lambda-powertools/idempotency';
import { SnsNotifier } from '../../../lambda/adapters/sns-notifier';
import type { AlertEvent } from '../../../lambda/core/events';
import {
  REMAINING_MS,
  TOPIC,
  answerSuccess,
  claimCompleted,
  claimHeld,
  dynamo,
  inInvocation,
  notifierOptions,
  sns,
  storedPkOf,
} from './publish-once-mocks';

const alert: AlertEvent = {
  kind: 'budget-threshold',
  format: 'canonical',
  tenant: 'acme',
  source: 'aws',
  accountId: '200000000011',
  budgetName: 'prod-monthly',
  period: '2026-11',
  thresholdType: 'actual',
  threshold: '80%',
  amount: '8214.55',
  currency: 'USD',
  severity: 'warning',
};
const KEY = 'alert-key-1';
const storedPk = storedPkOf('budget-alerts', KEY);

const notifier = () => inInvocation(new SnsNotifier(notifierOptions('budget-alerts')));

beforeEach(answerSuccess);

describe('SnsNotifier', () => {
  it('first delivery: claims the key in progress, publishes one readable message, marks the claim completed', async () => {
    const before = Date.now();
    expect(await notifier().notifyOnce(KEY, alert)).toBe('notified');

    const claim = dynamo.commandCalls(PutItemCommand)[0].args[0].input;
    expect(claim.TableName).toBe('dedup');
    expect(claim.Item?.pk).toEqual({ S: storedPk });
    expect(claim.Item?.status).toEqual({ S: 'INPROGRESS' });
    expect(claim.ConditionExpression).toMatch(/attribute_not_exists\(#id\)/);
    expect(claim.ExpressionAttributeNames).toMatchObject({ '#id': 'pk', '#expiry': 'expiresAt' });
    // The in-progress lease ends with the invocation: a crashed claimer blocks others no longer.
    const leaseEnd = Number(claim.Item?.in_progress_expiration?.N);
    expect(leaseEnd).toBeGreaterThanOrEqual(before + REMAINING_MS - 1000);
    expect(leaseEnd).toBeLessThanOrEqual(Date.now() + REMAINING_MS);

    const published = sns.commandCalls(PublishCommand);
    expect(published).toHaveLength(1);
    expect(published[0].args[0].input).toMatchObject({
      TopicArn: TOPIC,
      Subject: '[warning] prod-monthly exceeded 80% (month 2026-11)',
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'budget-threshold' },
        tenant: { DataType: 'String', StringValue: 'acme' },
        accountId: { DataType: 'String', StringValue: '200000000011' },
        severity: { DataType: 'String', StringValue: 'warning' },
        source: { DataType: 'String', StringValue: 'aws' },
      },
    });
    expect(published[0].args[0].input.Message).toContain(`Alert key: ${KEY}`);

    const completed = dynamo.commandCalls(UpdateItemCommand)[0].args[0].input;
    expect(completed.Key).toEqual({ pk: { S: storedPk } });
    expect(completed.ExpressionAttributeValues?.[':status']).toEqual({ S: 'COMPLETED' });
  });

  it('an alert already notified is a duplicate: no publish', async () => {
    dynamo.on(PutItemCommand).rejects(claimCompleted(storedPk));

    expect(await notifier().notifyOnce(KEY, alert)).toBe('duplicate');
    expect(sns.commandCalls(PublishCommand)).toHaveLength(0);
  });

  it('an alert another invocation is notifying right now fails (to be retried), without publishing', async () => {
    dynamo.on(PutItemCommand).rejects(
      claimHeld(storedPk, {
        status: { S: 'INPROGRESS' },
        in_progress_expiration: { N: String(Date.now() + 60_000) },
      }),
    );

    await expect(notifier().notifyOnce(KEY, alert)).rejects.toBeInstanceOf(
      IdempotencyAlreadyInProgressError,
    );
    expect(sns.commandCalls(PublishCommand)).toHaveLength(0);
  });

  it('a failed publish releases the claim, so the retry can publish', async () => {
    const error = Object.assign(new Error('SNS unavailable'), { name: 'InternalErrorException' });
    sns.on(PublishCommand).rejects(error);

    await expect(notifier().notifyOnce(KEY, alert)).rejects.toThrow();
    expect(dynamo.commandCalls(DeleteItemCommand)[0].args[0].input.Key).toEqual({
      pk: { S: storedPk },
    });
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(0);
  });

  it('retries the completion write after the publish, so a throttled write does not re-publish later', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    dynamo.on(UpdateItemCommand).rejectsOnce(throttled).rejectsOnce(throttled).resolves({});

    expect(await notifier().notifyOnce(KEY, alert)).toBe('notified');
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(3);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
  });
});
