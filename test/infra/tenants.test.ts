/**
 * Tenant-bound publishing in the template (docs/threat-model.md): one topic per tenant admitting only that
 * tenant's publishers, envelope subscriptions so the consumer sees which topic delivered, queues that only
 * the subscribed topics (and the DLQ operators) can send to, per-tenant rate alarms, cdk-nag clean.
 */
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { TENANT_STACKS_OUTPUT, TENANT_TOPICS_OUTPUT } from '../../contract/outputs';
import { ConfigError } from '../../lib/config';
import { synth, type Synthesized } from './helpers';

const ACME_PUBLISHER = '111111111111';
const GLOBEX_PUBLISHER = 'arn:aws:iam::222222222222:role/globex-publisher';
const TENANTS = [
  { id: 'acme', publishers: [ACME_PUBLISHER], sources: ['aws'], maxEventsPerMinute: 600 },
  { id: 'globex', publishers: [GLOBEX_PUBLISHER] },
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- synthesized templates are untyped JSON

const resources = (template: Template, type: string): [string, Json][] =>
  Object.entries(template.findResources(type) as Record<string, Json>);

const topicId = (template: Template, topicName: string): string => {
  const found = resources(template, 'AWS::SNS::Topic').filter(
    ([, topic]) => topic.Properties.TopicName === topicName,
  );
  expect(found).toHaveLength(1);
  return found[0][0];
};

const ref = (id: string) => ({ Ref: id });

const costQueuePolicy = (template: Template): Json[] => {
  const policies = resources(template, 'AWS::SQS::QueuePolicy').filter(([id]) =>
    id.startsWith('CostEventsPipelineQueuePolicy'),
  );
  expect(policies).toHaveLength(1);
  return policies[0][1].Properties.PolicyDocument.Statement;
};

const costConsumerEnv = (template: Template): Json => {
  const fn = resources(template, 'AWS::Lambda::Function').find(
    ([, f]) => f.Properties.FunctionName === 'billing-dedup-dev-cost-ledger',
  );
  return fn?.[1].Properties.Environment.Variables;
};

describe('tenant topics', () => {
  let s: Synthesized;
  let t: Template;
  /** The tenant stacks' resources. */
  let tt: Template;
  beforeAll(() => {
    s = synth({ tenants: JSON.stringify(TENANTS) });
    t = s.statelessTemplate;
    tt = s.tenantsTemplate;
  });

  it('each tenant topic admits exactly its own tenant’s publishers', () => {
    for (const [tenant, publisher] of [
      [
        'acme',
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::${ACME_PUBLISHER}:root`]] },
      ],
      ['globex', GLOBEX_PUBLISHER],
    ] as const) {
      const id = topicId(tt, `billing-dedup-dev-cost-events-${tenant}.fifo`);
      const policies = resources(tt, 'AWS::SNS::TopicPolicy').filter(([, p]) =>
        JSON.stringify(p.Properties.Topics).includes(id),
      );
      expect(policies).toHaveLength(1);
      const allows = policies[0][1].Properties.PolicyDocument.Statement.filter(
        (statement: Json) => statement.Effect === 'Allow',
      );
      expect(allows).toEqual([
        expect.objectContaining({
          Action: 'sns:Publish',
          Principal: { AWS: publisher },
          Resource: ref(id),
        }),
      ]);
    }
  });

  it('has no shared topic unless trusted producers are configured', () => {
    expect(
      resources(t, 'AWS::SNS::Topic').some(
        ([, topic]) => topic.Properties.TopicName === 'billing-dedup-dev-cost-events.fifo',
      ),
    ).toBe(false);
    expect(t.toJSON().Outputs.CostEventsTopicArn).toBeUndefined();
  });

  it('subscribes every tenant topic without raw delivery, undeliverable messages to the DLQ', () => {
    const subscriptions = resources(tt, 'AWS::SNS::Subscription');
    expect(subscriptions.map(([, sub]) => sub.Properties.TopicArn).sort(byRef)).toEqual(
      ['acme', 'globex'].map((tenant) =>
        ref(topicId(tt, `billing-dedup-dev-cost-events-${tenant}.fifo`)),
      ),
    );
    for (const [, sub] of subscriptions) {
      expect(sub.Properties.Endpoint).toEqual({
        'Fn::ImportValue': 'billing-dedup-dev-stateless-cost-queue-arn',
      });
      expect(sub.Properties.RawMessageDelivery).toBe(false);
      expect(sub.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::ImportValue': 'billing-dedup-dev-stateless-cost-dlq-arn' },
      });
    }
    // SNS confirms an SQS subscription by delivering to it: the queue policy (stateless stack) comes first.
    for (const stack of s.tenantStacks) expect(stack.dependencies).toContain(s.stateless);
  });

  it('tells the consumer it reads envelopes, and which topic is whose', () => {
    const env = costConsumerEnv(t);
    expect(env.DELIVERY_MODE).toBe('envelope');
    const text = JSON.stringify(env.TENANT_BINDINGS);
    expect(text).toContain('billing-dedup-dev-cost-events-{tenant}.fifo');
    expect(text).not.toContain('trustedTopicArn');
    // The tenants (they grow) are bundled with the code, not in the 4 KB environment.
    expect(text).not.toContain('acme');
    expect(env.FUNCTION_CONFIG_FILE).toBe('billing-dedup-config.json');
    expect(JSON.parse(s.stateless.pipelines[0].consumer.bundledConfig as string)).toEqual({
      tenants: { acme: { sources: ['aws'] }, globex: {} },
    });
  });

  it('lets only the tenant topics (by their name pattern), the DLQ (redrive) and the DLQ operators send to the cost queue', () => {
    const statements = costQueuePolicy(t);
    const tenantTopicPattern = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':sns:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':billing-dedup-dev-cost-events-*.fifo',
        ],
      ],
    };
    const deny = statements.find((statement) => statement.Sid === 'DenySendExceptPipeline');
    expect(deny).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:SendMessage',
    });
    expect(deny?.Condition.ArnNotEquals['aws:SourceArn']).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^CostEventsPipelineDeadLetterQueue/), 'Arn'] },
    ]);
    expect(deny?.Condition.ArnNotLike['aws:SourceArn']).toEqual([tenantTopicPattern]);
    expect(deny?.Condition.ArnNotLike['aws:PrincipalArn']).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^DlqOperatorRole/), 'Arn'] },
    ]);
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Condition: { ArnLike: { 'aws:SourceArn': tenantTopicPattern } },
      }),
    ]);
  });

  it('has one anomaly alarm per tenant and a ceiling alarm at the configured threshold', () => {
    for (const tenant of ['acme', 'globex'])
      tt.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `billing-dedup-dev-cost-events-tenant-${tenant}-rate-anomaly`,
        ComparisonOperator: 'GreaterThanUpperThreshold',
        Metrics: Match.arrayWith([
          Match.objectLike({
            MetricStat: Match.objectLike({
              Metric: Match.objectLike({
                MetricName: 'accepted',
                Dimensions: [
                  { Name: 'service', Value: 'billing-dedup-dev-cost-ledger' },
                  { Name: 'tenant', Value: tenant },
                ],
              }),
            }),
          }),
        ]),
      });
    tt.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-cost-events-tenant-acme-rate-ceiling',
      MetricName: 'accepted',
      Period: 60,
      Statistic: 'Sum',
      Threshold: 600,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(
      resources(tt, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
        String(alarm.Properties.AlarmName).startsWith(
          'billing-dedup-dev-cost-events-tenant-globex-rate-ceiling',
        ),
      ),
    ).toHaveLength(0);
  });

  it('draws a dashboard row per tenant', () => {
    // One dashboard per tenant stack (the same logical id in each: not merged into `tt`).
    const body = JSON.stringify(
      s.tenantStacks.flatMap((stack) =>
        resources(Template.fromStack(stack), 'AWS::CloudWatch::Dashboard').map(
          ([, d]) => d.Properties.DashboardBody,
        ),
      ),
    );
    for (const tenant of ['acme', 'globex']) {
      expect(body).toContain(`tenant ${tenant}: accepted events`);
      expect(body).toContain(`tenant ${tenant}: accepted by source`);
    }
  });

  it('outputs each tenant’s topic for the CLI', () => {
    const outputs = s.tenantStacks.map((stack) =>
      JSON.stringify(Template.fromStack(stack).toJSON().Outputs[TENANT_TOPICS_OUTPUT].Value),
    );
    for (const tenant of ['acme', 'globex'])
      expect(outputs.filter((text) => text.includes(`\\"${tenant}\\":\\"`))).toHaveLength(1);
    expect(JSON.parse(t.toJSON().Outputs[TENANT_STACKS_OUTPUT].Value)).toEqual(
      s.tenantStacks.map((stack) => stack.stackName),
    );
  });

  it('lets the tenant publishers use the messaging key through SNS only', () => {
    s.statefulTemplate.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AllowConfiguredProducersThroughSns',
            Principal: { AWS: '*' },
            Condition: {
              StringEquals: Match.objectLike({
                'kms:CallerAccount': Match.arrayWith([GLOBEX_PUBLISHER.split(':')[4]]),
              }),
            },
          }),
        ]),
      },
    });
  });
});

describe('the trusted shared topic', () => {
  it('exists with trustedCostTopic, subscribed as an envelope and named to the consumer as trusted', () => {
    const t = synth({
      tenants: JSON.stringify(TENANTS),
      trustedCostTopic: 'true',
      costEventsPublishers: '333333333333',
    }).statelessTemplate;
    const shared = topicId(t, 'billing-dedup-dev-cost-events.fifo');
    t.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: ref(shared),
      RawMessageDelivery: false,
    });
    expect(JSON.stringify(costConsumerEnv(t).TENANT_BINDINGS)).toContain('trustedTopicArn');
    const deny = costQueuePolicy(t).find((statement) => statement.Sid === 'DenySendExceptPipeline');
    expect(deny?.Condition.ArnNotEquals['aws:SourceArn']).toContainEqual(ref(shared));
  });

  it('without tenants stays the only topic, with raw delivery and no bindings (as before)', () => {
    const t = synth({}).statelessTemplate;
    t.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: ref(topicId(t, 'billing-dedup-dev-cost-events.fifo')),
      RawMessageDelivery: true,
    });
    const env = costConsumerEnv(t);
    expect(env.DELIVERY_MODE).toBe('raw');
    expect(env.TENANT_BINDINGS).toBeUndefined();
  });
});

describe('tenant configuration errors fail the synth, naming the fix', () => {
  const problems = (context: Record<string, unknown>): string => {
    try {
      synth(context);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };

  it.each([
    [
      { tenants: JSON.stringify([{ id: 'ACME!', publishers: [ACME_PUBLISHER] }]) },
      /tenants\[0\]\.id "ACME!" must be a tenant slug/,
    ],
    [
      { tenants: JSON.stringify([{ id: 'acme', publishers: ['arn:aws:iam::1:user/x'] }]) },
      /tenants\[0\]\.publishers "arn:aws:iam::1:user\/x" is neither a 12-digit account ID nor an IAM role ARN/,
    ],
    [
      { tenants: JSON.stringify(TENANTS), costEventsPublishers: '333333333333' },
      /costEventsPublishers: .*move these publishers into tenants\[\]\.publishers, or set trustedCostTopic=true/,
    ],
    [{ trustedCostTopic: 'true' }, /trustedCostTopic: only applies with tenants/],
    [
      {
        tenants: JSON.stringify(TENANTS),
        exportSources: JSON.stringify([{ tenant: 'initech', prefix: 'initech/' }]),
      },
      /exportSources\[0\]\.tenant: "initech" is not one of tenants\[\]\.id \(acme, globex\)/,
    ],
  ])('%j', (context, message) => {
    expect(problems(context)).toMatch(message);
  });
});

describe('cdk-nag with tenant topics', () => {
  it('reports no unsuppressed finding', () => {
    const s = synth(
      {
        tenants: JSON.stringify(TENANTS),
        trustedCostTopic: 'true',
        costEventsPublishers: '333333333333',
      },
      { nag: true },
    );
    for (const stack of [s.stateful, s.stateless]) expect(nagFindings(stack)).toEqual([]);
  });
});

function byRef(a: Json, b: Json): number {
  return JSON.stringify(a).localeCompare(JSON.stringify(b));
}

function nagFindings(stack: Stack): string[] {
  const root = stack.node.root as unknown as {
    synth(): { getStackArtifact(id: string): { messages: SynthesisMessage[] } };
  };
  return root
    .synth()
    .getStackArtifact(stack.artifactId)
    .messages.filter(
      (m) =>
        (m.level === 'error' || m.level === 'warning') &&
        /AwsSolutions-/.test(String(m.entry.data)),
    )
    .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
}
