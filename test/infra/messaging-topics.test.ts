import { Match, Template } from 'aws-cdk-lib/assertions';
import { MessagingTopics } from '../../lib/streams/messaging-topics';
import { ACCOUNT, constructFixture } from './construct-fixture';
import { resourcesOfType, statementsOf } from './helpers';

const TENANTS = JSON.stringify([{ id: 'acme', publishers: [`arn:aws:iam::${ACCOUNT}:role/acme`] }]);

const build = (context: Record<string, unknown> = {}, allowAlarms = false) => {
  const f = constructFixture(context);
  const topics = new MessagingTopics(f.stack, { config: f.config, messagingKey: f.messagingKey });
  if (allowAlarms) topics.allowAlarms();
  return { topics, template: Template.fromStack(f.stack) };
};

const topicNames = (template: Template): string[] =>
  Object.values(resourcesOfType(template, 'AWS::SNS::Topic'))
    .map((t) => t.Properties?.TopicName as string)
    .sort();

/** Statements of the policy of the topic whose logical id starts with `prefix`. */
const policyOf = (template: Template, prefix: string) => {
  const policies = Object.entries(resourcesOfType(template, 'AWS::SNS::TopicPolicy')).filter(
    ([id]) => id.startsWith(prefix),
  );
  expect(policies).toHaveLength(1);
  return statementsOf(policies[0][1]);
};

describe('MessagingTopics (lib/streams/messaging-topics.ts)', () => {
  it('the two stream topics, notifications and ops, under the ids they have always had', () => {
    const { template } = build();
    expect(topicNames(template)).toEqual([
      'billing-dedup-dev-budget-alerts',
      'billing-dedup-dev-cost-events.fifo',
      'billing-dedup-dev-notifications',
      'billing-dedup-dev-ops',
    ]);
    expect(
      Object.keys(resourcesOfType(template, 'AWS::SNS::Topic')).map((id) => id.slice(0, -8)),
    ).toEqual(['CostEventsTopic', 'BudgetAlertsTopic', 'NotificationsTopic', 'OpsTopic']);
    template.resourceCountIs('AWS::SNS::TopicPolicy', 4);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('every topic is encrypted with the messaging key', () => {
    const { template } = build();
    for (const topic of Object.values(resourcesOfType(template, 'AWS::SNS::Topic')))
      expect(JSON.stringify(topic.Properties?.KmsMasterKeyId)).toContain('0000000000ee');
  });

  it('with tenants and no trusted topic there is no shared cost topic; with trustedCostTopic there is', () => {
    expect(topicNames(build({ tenants: TENANTS }).template)).not.toContain(
      'billing-dedup-dev-cost-events.fifo',
    );
    expect(build({ tenants: TENANTS }).topics.streamTopics['cost-events']).toBeUndefined();
    expect(topicNames(build({ tenants: TENANTS, trustedCostTopic: true }).template)).toContain(
      'billing-dedup-dev-cost-events.fifo',
    );
  });

  it('e-mail subscriptions on notifications and ops', () => {
    const { template } = build({
      notificationEmails: JSON.stringify(['finance@example.com']),
      opsEmails: JSON.stringify(['oncall@example.com', 'lead@example.com']),
    });
    template.resourceCountIs('AWS::SNS::Subscription', 3);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'finance@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^NotificationsTopic') },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^OpsTopic') },
    });
  });

  it("allowAlarms lets only this stage's CloudWatch alarms publish to ops", () => {
    const principalsOf = (template: Template, prefix: string) =>
      JSON.stringify(policyOf(template, prefix).map((s) => s.Principal));
    expect(principalsOf(build().template, 'OpsTopic')).not.toContain('cloudwatch.amazonaws.com');
    const { template } = build({}, true);
    const alarms = policyOf(template, 'OpsTopic').filter((s) =>
      JSON.stringify(s.Principal).includes('cloudwatch.amazonaws.com'),
    );
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0].Condition)).toContain(':alarm:billing-dedup-dev-');
    expect(principalsOf(template, 'NotificationsTopic')).not.toContain('cloudwatch.amazonaws.com');
  });
});
