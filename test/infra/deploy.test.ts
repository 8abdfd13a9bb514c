/**
 * "Any configuration that synthesizes must deploy": the limits CloudFormation, IAM, SQS, SNS, S3 and
 * KMS apply at deploy time, the exports a config move must keep, the patterns that tell stages apart.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { ConfigError, contextFrom, resolveConfig } from '../../lib/config';
import { anomalyRuleName, stageNamePatterns } from '../../lib/name-patterns';
import {
  DEPLOY_LIMITS,
  deployLimitProblems,
  inlinePolicySizes,
  rendered,
} from '../../lib/deploy-limits';
import { EXACT_PREFIX_GRANT_MAX, exportReadPrefixes } from '../../lib/streams/export-pipelines';
import { InvariantError } from '../../lib/invariants';
import { messagingName, RESERVED_STAGE_WORDS, resourceName } from '../../lib/naming';
import { tenantTopicName } from '../../lib/constructs/tenant-topics';
import { resourcesOfType, statementsOf, synth, type Statement } from './helpers';

const tenants = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `t${String(i).padStart(2, '0')}`,
    publishers: [`arn:aws:iam::123456789012:role/publisher-${i}`],
    maxEventsPerMinute: 1000,
  }));
const sources = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    tenant: `t${String(i).padStart(2, '0')}`,
    prefix: `t${String(i).padStart(2, '0')}/`,
  }));

const policyBytes = (document: unknown) => JSON.stringify(rendered(document)).length;

describe('a large stage (60 tenants, 60 export prefixes) stays within every limit, and its policies do not grow', () => {
  const small = synth({ tenants: tenants(2), exportSources: sources(2) });
  const large = synth({ tenants: tenants(60), exportSources: sources(60) });

  const costQueuePolicy = (t: typeof small.statelessTemplate) =>
    Object.values(resourcesOfType(t, 'AWS::SQS::QueuePolicy')).filter((policy) =>
      JSON.stringify(policy.Properties?.Queues).includes('CostEventsPipeline'),
    );

  it('the cost queue and DLQ policies have the same size with 2 and with 60 tenants', () => {
    const sizes = (t: typeof small.statelessTemplate) =>
      costQueuePolicy(t).map((policy) => policyBytes(policy.Properties?.PolicyDocument));
    expect(sizes(large.statelessTemplate)).toEqual(sizes(small.statelessTemplate));
    for (const size of sizes(large.statelessTemplate))
      expect(size).toBeLessThan(DEPLOY_LIMITS.sqsPolicyBytes / 4);
  });

  it('the ops topic and messaging key policies have the same size with 2 and with 60 tenants', () => {
    const opsPolicy = (t: typeof small.statelessTemplate) =>
      policyBytes(
        Object.values(resourcesOfType(t, 'AWS::SNS::TopicPolicy')).find((policy) =>
          JSON.stringify(policy.Properties?.Topics).includes('OpsTopic'),
        )?.Properties?.PolicyDocument,
      );
    expect(opsPolicy(large.statelessTemplate)).toBe(opsPolicy(small.statelessTemplate));
    // 60 publisher roles of one account: the key names the account once.
    const keyPolicy = (t: typeof small.statefulTemplate) =>
      policyBytes(
        Object.values(resourcesOfType(t, 'AWS::KMS::Key')).find((key) =>
          JSON.stringify(key.Properties?.Description).includes('SNS topics'),
        )?.Properties?.KeyPolicy,
      );
    expect(keyPolicy(large.statefulTemplate)).toBe(keyPolicy(small.statefulTemplate));
  });

  it('60 export prefixes: no overflow managed policy, a bounded read grant and ListBucket limited by s3:prefix', () => {
    const t = large.statelessTemplate;
    t.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    const statements = Object.values(resourcesOfType(t, 'AWS::IAM::Policy')).flatMap((policy) =>
      statementsOf(policy),
    );
    const reads = statements.filter((s) => s.Sid === 'ReadExportObjects');
    expect(reads).toHaveLength(2);
    for (const read of reads) expect([read.Resource].flat()).toHaveLength(1);
    const lists = statements.filter((s) => s.Sid === 'ListExportBucket');
    expect(lists).toHaveLength(2);
    for (const list of lists)
      expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['*'] } });
    for (const size of inlinePolicySizes(t.toJSON().Resources).values())
      expect(size).toBeLessThan(DEPLOY_LIMITS.roleInlinePolicyChars / 2);
  });

  it('a few prefixes are granted exactly, ListBucket too', () => {
    const statements = Object.values(
      resourcesOfType(small.statelessTemplate, 'AWS::IAM::Policy'),
    ).flatMap((policy) => statementsOf(policy));
    const list = statements.find((s) => s.Sid === 'ListExportBucket') as Statement;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['t00/*', 't01/*'] } });
  });

  it('every template is within the deploy limits', () => {
    for (const s of [small, large])
      for (const stack of [s.stateful, s.stateless])
        expect(
          deployLimitProblems(
            stack.stackName,
            s.app.synth().getStackByName(stack.stackName).template,
          ),
        ).toEqual([]);
  });
});

describe('the read grant of many prefixes is their common path prefix', () => {
  it.each([
    [
      ['a/', 'b/'],
      ['a/', 'b/'],
    ],
    [Array.from({ length: 11 }, (_, i) => `exports/t${i}/`), ['exports/']],
    [Array.from({ length: 11 }, (_, i) => `t${i}/`), ['']],
    [Array.from({ length: 11 }, (_, i) => `x/y${i}/z/`), ['x/']],
  ])('%j → %j', (prefixes, expected) => {
    expect(exportReadPrefixes(prefixes)).toEqual(expected);
    expect(exportReadPrefixes(prefixes).length).toBeLessThanOrEqual(EXACT_PREFIX_GRANT_MAX);
  });
});

describe('synth-time deploy limits name the limit and the fix', () => {
  const queuePolicy = (arns: number) => ({
    Resources: {
      Policy: {
        Type: 'AWS::SQS::QueuePolicy',
        Properties: {
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Allow',
                Condition: {
                  ArnEquals: {
                    'aws:SourceArn': Array.from({ length: arns }, (_, i) => ({
                      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:sns:topic-${i}`]],
                    })),
                  },
                },
              },
            ],
          },
        },
      },
    },
  });

  it('an SQS policy over 8,192 bytes', () => {
    expect(deployLimitProblems('s', queuePolicy(10))).toEqual([]);
    expect(deployLimitProblems('s', queuePolicy(400))).toEqual([
      expect.stringMatching(
        /s\/Policy: SQS queue policy of about \d+ bytes, over the 8192 bytes.*Fix: admit senders by an ArnLike name pattern/,
      ),
    ]);
  });

  it('more than 500 resources, an overflow managed policy, a large Lambda environment', () => {
    const resources: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 501 }, (_, i) => [`Topic${i}`, { Type: 'AWS::SNS::Topic' }]),
    );
    resources.RoleOverflowPolicy1ABCD = { Type: 'AWS::IAM::ManagedPolicy', Properties: {} };
    resources.Fn = {
      Type: 'AWS::Lambda::Function',
      Properties: { Environment: { Variables: { BIG: 'x'.repeat(4100) } } },
    };
    const problems = deployLimitProblems('s', { Resources: resources } as never);
    expect(problems).toEqual([
      expect.stringMatching(
        /503 resources, over CloudFormation's 500 per stack\. Fix: fewer tenants/,
      ),
      expect.stringMatching(
        /RoleOverflowPolicy1ABCD: CDK moved part of a role's policy.*Fix: grant by a pattern/,
      ),
      expect.stringMatching(/s\/Fn: environment of about 4103 bytes, over Lambda's 4096/),
    ]);
  });

  it('synth refuses it with an InvariantError (bin/billing-dedup.ts prints it and exits 1)', () => {
    const { checkDeployLimits } = jest.requireActual('../../lib/deploy-limits');
    const assembly = { stacks: [{ stackName: 's', template: queuePolicy(400) }] };
    expect(() => checkDeployLimits(assembly)).toThrow(InvariantError);
  });
});

describe('moving between configurations keeps every cross-stack export', () => {
  const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  /** The moves a user makes, in order: each consecutive pair is one deploy. */
  const CONFIGS: Record<string, Record<string, unknown>> = {
    created: {},
    'created + sources + tenants': {
      tenants: tenants(2),
      exportSources: sources(2),
      autoCloseAfterDays: 10,
    },
    'existing bucket + key': {
      exportBucketName: 'finops-exports',
      exportBucketKeyArn: KEY,
      exportSources: sources(1),
    },
    'standard stream, created again': { costStreamKind: 'standard', exportSources: sources(1) },
  };
  const exportsOf = (name: string) => {
    const s = synth(CONFIGS[name]);
    const outputs = (s.statefulTemplate.toJSON().Outputs ?? {}) as Record<
      string,
      { Export?: { Name: string } }
    >;
    const exported = Object.values(outputs).flatMap((o) => (o.Export ? [o.Export.Name] : []));
    const imported = [
      ...JSON.stringify(s.statelessTemplate.toJSON()).matchAll(/"Fn::ImportValue":"([^"]+)"/g),
    ].map((m) => m[1]);
    return { exported: new Set(exported), imported: new Set(imported) };
  };
  const synthesized = Object.fromEntries(
    Object.keys(CONFIGS).map((name) => [name, exportsOf(name)]),
  );
  const names = Object.keys(CONFIGS);

  it.each(names.flatMap((a) => names.filter((b) => b !== a).map((b) => [a, b])))(
    '%s → %s: every export of the first still exists in the second',
    (a, b) => {
      for (const name of synthesized[a].exported) expect(synthesized[b].exported).toContain(name);
    },
  );

  it.each(names)('%s: the stateless stack imports only the stable exports', (name) => {
    for (const value of synthesized[name].imported)
      expect(synthesized[name].exported).toContain(value);
  });
});

describe('stage name patterns match their own stage only', () => {
  const stages = ['prod', 'prod-eu', 'prod-eu-2', 'dev', 'eu-prod', 'p', 'prod-x-y'];
  /** IAM's ArnLike: `*` any characters, `?` one. */
  const matches = (pattern: string, name: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    ).test(name);
  const namesOf = (stage: string) => [
    ...['cost-events', 'budget-alerts', 'export-deliveries', 'notifications', 'ops'].flatMap(
      (s) => [messagingName(stage, s, false), messagingName(stage, s, true)],
    ),
    tenantTopicName(stage, 'acme', true),
    tenantTopicName(stage, 'eu-cost-events-x', false),
    anomalyRuleName(stage),
    `${anomalyRuleName(stage)}-dlq-not-empty`,
    `${resourceName(stage, 'cost-events')}-tenant-eu-rate-anomaly`,
    `${resourceName(stage, 'export-chunks')}-dlq-not-empty`,
    resourceName(stage, 'period-auto-close-errors'),
  ];

  it.each(stages.flatMap((a) => stages.filter((b) => b !== a).map((b) => [a, b])))(
    'no pattern of stage %s matches a name of stage %s',
    (a, b) => {
      const patterns = Object.values(stageNamePatterns(a)).flat();
      for (const name of namesOf(b))
        for (const pattern of patterns) expect(matches(pattern, name)).toBe(false);
    },
  );

  it('each stage’s patterns match its own resources', () => {
    const p = stageNamePatterns('prod');
    expect(
      p.queueFeedingTopics.some((x) => matches(x, tenantTopicName('prod', 'acme', true))),
    ).toBe(true);
    expect(p.alarms.some((x) => matches(x, `${anomalyRuleName('prod')}-dlq-not-empty`))).toBe(true);
  });

  it.each(['prod-cost', 'ops', 'eu-export', 'data'])(
    'stage %s is refused, naming the reserved word',
    (stage) => {
      expect(() => resolveConfig(contextFrom({ stage }))).toThrow(
        new RegExp(
          `stage: "${stage}" contains "${stage.split('-').find((w) => (RESERVED_STAGE_WORDS as readonly string[]).includes(w))}"`,
        ),
      );
    },
  );
});

describe('two stages on one existing bucket', () => {
  const problemsOf = (context: Record<string, unknown>) => {
    try {
      resolveConfig(contextFrom(context));
      return '';
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
  };

  it('an existing bucket without exportSources is refused (its whole-bucket rule would overlap any other)', () => {
    expect(problemsOf({ exportBucketName: 'shared-exports' })).toMatch(
      /exportBucketName: an existing bucket needs exportSources.*add exportSources/,
    );
  });

  it('overlapping prefixes of two stages in stages.<name> are refused; disjoint ones are fine', () => {
    const stages = {
      prod: {
        exportBucketName: 'shared-exports',
        exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
      },
      'prod-eu': {
        exportBucketName: 'shared-exports',
        exportSources: [{ tenant: 'acme', prefix: 'acme/eu/' }],
      },
      staging: {
        exportBucketName: 'shared-exports',
        exportSources: [{ tenant: 'acme', prefix: 'staging/acme/' }],
      },
    };
    expect(problemsOf({ stage: 'prod-eu', stages })).toMatch(
      /exportSources: prefix "acme\/eu\/" overlaps "acme\/" of stage "prod" on the same bucket "shared-exports"/,
    );
    expect(problemsOf({ stage: 'staging', stages })).toBe('');
  });
});

describe('the Cost Anomaly Detection rule keeps what it cannot deliver', () => {
  const t = synth().statelessTemplate;

  it('its target has a retry policy and an encrypted dead-letter queue with an alarm', () => {
    const rule = Object.values(resourcesOfType(t, 'AWS::Events::Rule'))[0];
    const target = (rule.Properties?.Targets as Record<string, unknown>[])[0];
    expect(target.RetryPolicy).toEqual({
      MaximumRetryAttempts: 185,
      MaximumEventAgeInSeconds: 86400,
    });
    const dlqArn = (target.DeadLetterConfig as { Arn: { 'Fn::GetAtt': string[] } }).Arn;
    const dlqId = dlqArn['Fn::GetAtt'][0];
    expect(dlqId).toMatch(/^CostAnomalyEventsDeadLetterQueue/);
    expect(JSON.stringify(t.toJSON().Resources[dlqId].Properties.KmsMasterKeyId)).toMatch(
      /MessagingKey/,
    );
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-cost-anomaly-events-dlq-not-empty',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^OpsTopic') }],
    });
    t.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: dlqId }],
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AllowUndeliveredAnomalyEvents',
            Principal: { Service: 'events.amazonaws.com' },
            Condition: Match.objectLike({
              ArnEquals: {
                'aws:SourceArn': {
                  'Fn::GetAtt': [Match.stringLikeRegexp('^CostAnomalyEventsRule'), 'Arn'],
                },
              },
            }),
          }),
        ]),
      }),
    });
  });
});
