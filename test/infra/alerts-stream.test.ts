import { Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../contract/environment';
import { AlertsStream } from '../../lib/streams/alerts-stream';
import { MessagingTopics } from '../../lib/streams/messaging-topics';
import {
  constructFixture,
  DATA_KEY_ARN,
  DEDUP_TABLE_ARN,
  LEDGER_TABLE_ARN,
} from './construct-fixture';
import { actionsOf, resourcesOfType, statementsOf, type Statement } from './helpers';

const build = () => {
  const f = constructFixture();
  const topics = new MessagingTopics(f.stack, { config: f.config, messagingKey: f.messagingKey });
  const stream = new AlertsStream(f.stack, {
    config: f.config,
    defaults: f.defaults,
    topic: topics.streamTopics['budget-alerts']!,
    notificationsTopic: topics.notifications,
    dedupTable: f.dedupTable,
    dataKeyArn: DATA_KEY_ARN,
  });
  const notificationsId = Object.keys(
    resourcesOfType(Template.fromStack(f.stack), 'AWS::SNS::Topic'),
  ).find((id) => id.startsWith('NotificationsTopic'));
  return { stream, template: Template.fromStack(f.stack), notificationsId };
};

const bySid = (statements: Statement[], sid: string): Statement => {
  const found = statements.filter((s) => s.Sid === sid);
  expect(found).toHaveLength(1);
  return found[0];
};

describe('AlertsStream (lib/streams/alerts-stream.ts)', () => {
  const { stream, template, notificationsId } = build();
  const statements = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap((p) =>
    statementsOf(p),
  );

  it('keeps the id the stack has always given it, so the logical ids stay', () => {
    expect(AlertsStream.ID).toBe('BudgetAlertsPipeline');
    expect(stream.node.id).toBe('BudgetAlertsPipeline');
  });

  it('is one standard queue + DLQ + consumer, subscribed to the budget-alerts topic', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'billing-dedup-dev-budget-alerts',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-budget-alerts',
      Environment: {
        Variables: {
          [ENV.dedupTableName]: 'dedup',
          [ENV.notificationsTopicArn]: { Ref: notificationsId },
        },
      },
    });
  });

  it('reaches only its own `budget-alerts#` items of the dedup table, and never the ledger', () => {
    const dedup = bySid(statements, 'DedupTableAccess');
    expect(dedup.Resource).toBe(DEDUP_TABLE_ARN);
    expect(actionsOf(dedup)).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ]);
    expect(dedup.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['budget-alerts#*'] },
    });
    expect(JSON.stringify(statements)).not.toContain(LEDGER_TABLE_ARN);
    expect(bySid(statements, 'UseTableKeyThroughDynamoDb').Resource).toBe(DATA_KEY_ARN);
  });

  it('publishes to the notifications topic and no other', () => {
    const publish = bySid(statements, 'PublishNotifications');
    expect(actionsOf(publish)).toEqual(['sns:Publish']);
    expect(publish.Resource).toEqual({ Ref: notificationsId });
    expect(statements.filter((s) => actionsOf(s).includes('sns:Publish'))).toHaveLength(1);
  });
});
