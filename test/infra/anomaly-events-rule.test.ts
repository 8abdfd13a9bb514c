import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AnomalyEventsRule } from '../../lib/constructs/anomaly-events-rule';
import { MessagingTopics } from '../../lib/streams/messaging-topics';
import { constructFixture, MESSAGING_KEY_ARN } from './construct-fixture';
import { actionsOf, resourcesOfType, statementsOf } from './helpers';

/** The anomaly rule alone: its target, retry, dead-letter queue, alarm and the policies it writes. */
const build = () => {
  const f = constructFixture();
  const topics = new MessagingTopics(f.stack, { config: f.config, messagingKey: f.messagingKey });
  const rule = new AnomalyEventsRule(f.stack, 'CostAnomalyEvents', {
    topic: topics.streamTopics['budget-alerts']!,
    ruleName: 'billing-dedup-dev-cost-anomaly-events',
    masterKey: f.messagingKey,
    dlqRetention: Duration.days(14),
    opsTopic: topics.ops,
    dlqAlarmName: 'billing-dedup-dev-cost-anomaly-events-dlq-not-empty',
  });
  return { rule, template: Template.fromStack(f.stack) };
};

describe('AnomalyEventsRule (lib/constructs/anomaly-events-rule.ts)', () => {
  const { rule, template } = build();
  const [ruleId] = Object.keys(resourcesOfType(template, 'AWS::Events::Rule'));
  const [dlqId, dlq] = Object.entries(resourcesOfType(template, 'AWS::SQS::Queue'))[0];

  it('one rule, one DLQ, one alarm, under the ids the stack has always had', () => {
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.resourceCountIs('AWS::SQS::Queue', 1);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 1);
    expect(ruleId).toMatch(/^CostAnomalyEventsRule[0-9A-F]{8}$/);
    expect(dlqId).toMatch(/^CostAnomalyEventsDeadLetterQueue[0-9A-F]{8}$/);
  });

  it('targets the budget-alerts topic, retries 24 hours, then dead-letters', () => {
    const target = (
      resourcesOfType(template, 'AWS::Events::Rule')[ruleId].Properties as {
        Targets: Record<string, unknown>[];
      }
    ).Targets;
    expect(target).toEqual([
      expect.objectContaining({
        Arn: { Ref: expect.stringMatching(/^BudgetAlertsTopic/) },
        RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      }),
    ]);
  });

  it('the DLQ is retained, encrypted with the messaging key, and takes messages from this rule only', () => {
    expect(dlq.DeletionPolicy).toBe('Retain');
    expect(dlq.Properties?.KmsMasterKeyId).toBe(MESSAGING_KEY_ARN);
    expect(dlq.Properties?.MessageRetentionPeriod).toBe(14 * 86400);
    const statements = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy')).flatMap(
      (p) => statementsOf(p),
    );
    const allow = statements.filter((s) => s.Sid === 'AllowUndeliveredAnomalyEvents');
    expect(allow).toHaveLength(1);
    expect(actionsOf(allow[0])).toEqual(['sqs:SendMessage']);
    expect(allow[0].Condition?.ArnEquals).toEqual({
      'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  it('the topic lets EventBridge publish for this rule only', () => {
    const publish = Object.values(resourcesOfType(template, 'AWS::SNS::TopicPolicy'))
      .flatMap((p) => statementsOf(p))
      .filter((s) => s.Sid === 'AllowPublishFromCostAnomalyEventsRule');
    expect(publish).toHaveLength(1);
    expect(publish[0].Condition?.ArnEquals).toEqual({
      'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  it('a message in the DLQ alarms the ops topic (and clears it)', () => {
    const opsId = Object.keys(resourcesOfType(template, 'AWS::SNS::Topic')).find((id) =>
      id.startsWith('OpsTopic'),
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-cost-anomaly-events-dlq-not-empty',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: opsId }],
      OKActions: [{ Ref: opsId }],
    });
    expect(rule.dlqAlarm).toBeDefined();
  });

  it('keeps the cdk-nag suppression (SQS3: it is a DLQ) with its reason on the DLQ', () => {
    const rules = (
      dlq.Metadata as { cdk_nag?: { rules_to_suppress: { id: string; reason: string }[] } }
    ).cdk_nag?.rules_to_suppress;
    expect(rules?.map((r) => r.id)).toEqual(['AwsSolutions-SQS3']);
    // cdk-nag stores the reason base64-encoded.
    expect(Buffer.from(rules![0].reason, 'base64').toString('utf8')).toContain(
      'dead-letter queue of the Cost Anomaly Detection rule',
    );
  });
});
