/** Cost Anomaly Detection events reach the budget-alerts topic through one rule, and only that rule may publish. */
import { ALERT_STREAM } from '../../contract/streams';
import { resourcesOfType, synth } from './helpers';

type Statement = {
  Sid?: string;
  Effect: string;
  Principal?: { Service?: string | string[] };
  Action: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};

const { statelessTemplate, statefulTemplate } = synth();

const alertsTopicId = (): string => {
  const topics = resourcesOfType(statelessTemplate, 'AWS::SNS::Topic');
  const [id] = Object.entries(topics)
    .filter(([, topic]) => String(topic.Properties?.TopicName).endsWith(`-${ALERT_STREAM}`))
    .map(([logicalId]) => logicalId);
  return id;
};

const ruleEntry = () => {
  const rules = Object.entries(resourcesOfType(statelessTemplate, 'AWS::Events::Rule')).filter(
    ([, rule]) =>
      JSON.stringify((rule.Properties as { EventPattern?: unknown }).EventPattern).includes(
        'aws.ce',
      ),
  );
  expect(rules).toHaveLength(1);
  return rules[0];
};

const statementsOf = (policies: ReturnType<typeof resourcesOfType>, topicId: string) =>
  Object.values(policies)
    .filter((policy) => JSON.stringify(policy.Properties?.Topics).includes(`"Ref":"${topicId}"`))
    .flatMap(
      (policy) => (policy.Properties?.PolicyDocument as { Statement: Statement[] }).Statement,
    );

const isEventBridge = (statement: Statement): boolean =>
  JSON.stringify(statement.Principal ?? {}).includes('events.amazonaws.com');

describe('Cost Anomaly Detection EventBridge rule', () => {
  it('matches aws.ce "Anomaly Detected" on the default bus and targets the budget-alerts topic', () => {
    const [, rule] = ruleEntry();
    expect(rule.Properties).toMatchObject({
      Name: 'billing-dedup-dev-cost-anomaly-events',
      State: 'ENABLED',
      EventPattern: { source: ['aws.ce'], 'detail-type': ['Anomaly Detected'] },
      Targets: [{ Arn: { Ref: alertsTopicId() } }],
    });
    expect(rule.Properties).not.toHaveProperty('EventBusName');
  });

  it('the topic lets EventBridge publish only for that rule, from this account', () => {
    const [ruleId] = ruleEntry();
    const statements = statementsOf(
      resourcesOfType(statelessTemplate, 'AWS::SNS::TopicPolicy'),
      alertsTopicId(),
    ).filter(isEventBridge);
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sns:Publish',
        Condition: {
          ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      }),
    ]);
  });

  it('the messaging key lets EventBridge rules of this stage use it, and no others', () => {
    const keys = resourcesOfType(statefulTemplate, 'AWS::KMS::Key');
    const statements = Object.values(keys)
      .flatMap((key) => (key.Properties?.KeyPolicy as { Statement: Statement[] }).Statement)
      .filter(isEventBridge);
    expect(statements).toHaveLength(1);
    // Exactly the stage's one rule: no pattern that a stage named `dev-eu` would also match.
    expect(JSON.stringify(statements[0].Condition?.ArnLike)).toMatch(
      /:rule\/billing-dedup-dev-cost-anomaly-events"\]/,
    );
    expect(statements[0].Action).toEqual(['kms:GenerateDataKey*', 'kms:Decrypt']);
  });
});
