import { Template } from 'aws-cdk-lib/assertions';
import { DlqOperatorRole } from '../../lib/constructs/dlq-operator-role';
import { AlertsStream } from '../../lib/streams/alerts-stream';
import { MessagingTopics } from '../../lib/streams/messaging-topics';
import { constructFixture, DATA_KEY_ARN, MESSAGING_KEY_ARN } from './construct-fixture';
import { actionsOf, resourcesOfType, statementsOf, type Statement } from './helpers';

const STATEFUL_STACK_ID = 'arn:aws:cloudformation:eu-west-1:111122223333:stack/stateful/1';

const build = () => {
  const f = constructFixture();
  const topics = new MessagingTopics(f.stack, { config: f.config, messagingKey: f.messagingKey });
  const role = new DlqOperatorRole(f.stack, 'DlqOperatorRole', { stage: f.config.stage });
  const alerts = new AlertsStream(f.stack, {
    config: f.config,
    defaults: f.defaults,
    topic: topics.streamTopics['budget-alerts']!,
    notificationsTopic: topics.notifications,
    dedupTable: f.dedupTable,
    dataKeyArn: DATA_KEY_ARN,
  });
  role.allowOperations([alerts], f.messagingKey, [f.stack.stackId, STATEFUL_STACK_ID]);
  return Template.fromStack(f.stack);
};

describe('DlqOperatorRole (lib/constructs/dlq-operator-role.ts)', () => {
  const template = build();
  const roles = Object.entries(resourcesOfType(template, 'AWS::IAM::Role')).filter(([id]) =>
    id.startsWith('DlqOperatorRole'),
  );
  const roleId = roles[0][0];
  const statements: Statement[] = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((p) => statementsOf(p));
  const bySid = (sid: string) => statements.find((s) => s.Sid === sid) as Statement;

  it('one role under its old id, assumable from the account only', () => {
    expect(roles).toHaveLength(1);
    expect(roleId).toMatch(/^DlqOperatorRole[0-9A-F]{8}$/);
    expect(JSON.stringify(roles[0][1].Properties?.AssumeRolePolicyDocument)).toContain(':root');
  });

  it('peeks and moves only the DLQs, sends only into the source queues', () => {
    expect(statements.map((s) => s.Sid)).toEqual([
      'PeekAndMoveDeadLetters',
      'RedriveIntoSourceQueues',
      'UseMessagingKey',
      'ReadStackOutputs',
    ]);
    const dlqRef = JSON.stringify(bySid('PeekAndMoveDeadLetters').Resource);
    expect(dlqRef).toContain('BudgetAlertsPipelineDeadLetterQueue');
    expect(dlqRef).not.toContain('BudgetAlertsPipelineQueue');
    expect(actionsOf(bySid('PeekAndMoveDeadLetters'))).not.toContain('sqs:SendMessage');
    const send = bySid('RedriveIntoSourceQueues');
    expect(actionsOf(send)).toEqual(['sqs:SendMessage', 'sqs:GetQueueAttributes']);
    expect(JSON.stringify(send.Resource)).toContain('BudgetAlertsPipelineQueue');
    expect(JSON.stringify(send.Resource)).not.toContain('DeadLetterQueue');
  });

  it('uses the messaging key and describes both stacks, nothing else', () => {
    expect(bySid('UseMessagingKey').Resource).toBe(MESSAGING_KEY_ARN);
    expect(actionsOf(bySid('UseMessagingKey'))).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    const stacks = bySid('ReadStackOutputs');
    expect(actionsOf(stacks)).toEqual(['cloudformation:DescribeStacks']);
    expect(JSON.stringify(stacks.Resource)).toContain(STATEFUL_STACK_ID);
  });
});
