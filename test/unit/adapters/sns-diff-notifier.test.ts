import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand } from '@aws-sdk/client-sns';
import { SnsDiffNotifier } from '../../../lambda/adapters/sns-diff-notifier';
import type { ExportDiffMessage } from '../../../lambda/core/exports/diff-message';
import {
  TOPIC,
  answerSuccess,
  claimCompleted,
  dynamo,
  inInvocation,
  notifierOptions,
  sns,
  storedPkOf,
} from './publish-once-mocks';

const KEY = 'diff-key-1';
const storedPk = storedPkOf('export-chunks', KEY);

const message: ExportDiffMessage = {
  subject: 'Export restated: acme aws 2026-11',
  body: 'Total 20 → 22.5 USD',
  attributes: { kind: 'export-diff', tenant: 'acme' },
};

const notifier = () => inInvocation(new SnsDiffNotifier(notifierOptions('export-chunks')));

beforeEach(answerSuccess);

describe('SnsDiffNotifier', () => {
  it('first delivery: claims the key on the dedup table, publishes the diff once, completes the claim', async () => {
    expect(await notifier().notifyOnce(KEY, message)).toBe('notified');

    const claim = dynamo.commandCalls(PutItemCommand)[0].args[0].input;
    expect(claim.TableName).toBe('dedup');
    expect(claim.Item?.pk).toEqual({ S: storedPk });
    expect(claim.Item?.status).toEqual({ S: 'INPROGRESS' });
    const published = sns.commandCalls(PublishCommand);
    expect(published).toHaveLength(1);
    expect(published[0].args[0].input).toEqual({
      TopicArn: TOPIC,
      Subject: message.subject,
      Message: message.body,
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'export-diff' },
        tenant: { DataType: 'String', StringValue: 'acme' },
      },
    });
    const completed = dynamo.commandCalls(UpdateItemCommand)[0].args[0].input;
    expect(completed.ExpressionAttributeValues?.[':status']).toEqual({ S: 'COMPLETED' });
  });

  it('a diff already notified is a duplicate: no publish', async () => {
    dynamo.on(PutItemCommand).rejects(claimCompleted(storedPk));

    expect(await notifier().notifyOnce(KEY, message)).toBe('duplicate');
    expect(sns.commandCalls(PublishCommand)).toHaveLength(0);
  });

  it('retries the completion write after the publish, so a throttled write does not notify twice later', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    dynamo.on(UpdateItemCommand).rejectsOnce(throttled).rejectsOnce(throttled).resolves({});

    expect(await notifier().notifyOnce(KEY, message)).toBe('notified');
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(3);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
  });
});
