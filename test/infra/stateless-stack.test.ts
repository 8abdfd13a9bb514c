import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../contract/environment';
import { statelessOutputIds, tenantStackImports } from '../../contract/outputs';
import {
  Statement,
  Synthesized,
  actionsOf,
  dlqOf,
  fnByName,
  importOf,
  onlyResource,
  queueByName,
  resourcesOfType,
  statementsOf,
  synth,
} from './helpers';

/** Every variable QueueConsumer sets, plus each consumer's own (ConsumerFunction adds NODE_OPTIONS). */
const COMMON_ENV_KEYS = [
  ENV.dedupTableName,
  ENV.dlqUrl,
  ENV.queueKind,
  ENV.deliveryMode,
  ENV.dedupTtlSeconds,
  ENV.streamName,
  ENV.maxConcurrency,
  ENV.serviceName,
  ENV.metricsNamespace,
  ENV.logLevel,
  ENV.archiveBucketName,
  ENV.archiveSpoolUrl,
  'NODE_OPTIONS',
];
const COST_ENV_KEYS = [
  ...COMMON_ENV_KEYS,
  ENV.ledgerTableName,
  ENV.totalShards,
  ENV.lateChargePolicy,
].sort();
const ALERT_ENV_KEYS = [...COMMON_ENV_KEYS, ENV.notificationsTopicArn].sort();

describe('stateless stack (dev, defaults: FIFO cost stream)', () => {
  let s: Synthesized;
  let t: Template;
  beforeAll(() => {
    s = synth();
    t = s.statelessTemplate;
  });

  it('is named billing-dedup-<stage>-stateless', () => {
    expect(s.stateless.stackName).toBe('billing-dedup-dev-stateless');
  });

  describe('topics', () => {
    it('cost-events is a FIFO topic; the others are standard', () => {
      t.resourceCountIs('AWS::SNS::Topic', 5);
      t.hasResourceProperties('AWS::SNS::Topic', {
        TopicName: 'billing-dedup-dev-cost-events.fifo',
        FifoTopic: true,
        ContentBasedDeduplication: true,
      });
      for (const name of ['budget-alerts', 'notifications', 'ops']) {
        t.hasResourceProperties('AWS::SNS::Topic', {
          TopicName: `billing-dedup-dev-${name}`,
          FifoTopic: Match.absent(),
        });
      }
    });

    it('every topic is encrypted with the customer managed messaging key (not alias/aws/sns)', () => {
      for (const topic of Object.values(resourcesOfType(t, 'AWS::SNS::Topic'))) {
        expect(importOf(topic.Properties?.KmsMasterKeyId)).toMatch(
          /billing-dedup-dev-stateful:.*MessagingKey/,
        );
      }
    });

    it('every topic policy denies publishing without TLS', () => {
      const policies = Object.values(resourcesOfType(t, 'AWS::SNS::TopicPolicy'));
      expect(policies).toHaveLength(5);
      for (const policy of policies) {
        expect(statementsOf(policy)).toContainEqual(
          expect.objectContaining({
            Sid: 'DenyInsecureTransport',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sns:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        );
      }
    });

    it('budget-alerts topic lets AWS Budgets and Cost Anomaly Detection publish, scoped to this account', () => {
      const { resource } = onlyResource(t, 'AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: Match.stringLikeRegexp('^BudgetAlertsTopic') }],
      });
      const st = statementsOf(resource);
      const budgets = st.find((x) =>
        JSON.stringify(x.Principal).includes('budgets.amazonaws.com'),
      )!;
      expect(budgets).toMatchObject({ Effect: 'Allow', Action: 'sns:Publish' });
      expect(budgets.Condition?.StringEquals).toEqual({
        'aws:SourceAccount': { Ref: 'AWS::AccountId' },
      });
      expect(JSON.stringify(budgets.Condition?.ArnLike?.['aws:SourceArn'])).toContain(':budgets::');
      const costalerts = st.find((x) =>
        JSON.stringify(x.Principal).includes('costalerts.amazonaws.com'),
      )!;
      expect(costalerts).toMatchObject({ Effect: 'Allow', Action: 'sns:Publish' });
      expect(costalerts.Condition).toEqual({
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      });
      // No other allow statements without configured producers, besides the anomaly-events rule's
      // (test/infra/alerts.test.ts).
      expect(st.filter((x) => x.Effect === 'Allow')).toHaveLength(3);
    });

    it('ops topic lets only this stage’s CloudWatch alarms publish', () => {
      const { resource } = onlyResource(t, 'AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: Match.stringLikeRegexp('^OpsTopic') }],
      });
      const allow = statementsOf(resource).filter((x) => x.Effect === 'Allow');
      expect(allow).toHaveLength(1);
      expect(allow[0].Principal).toEqual({ Service: 'cloudwatch.amazonaws.com' });
      // By name pattern (one ARN per alarm would grow with every tenant), each pattern continuing the
      // stage with a reserved word: a stage named `dev-eu` cannot match (test/infra/deploy.test.ts).
      const alarmArn = (word: string) => ({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':cloudwatch:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            `:alarm:billing-dedup-dev-${word}-*`,
          ],
        ],
      });
      expect(allow[0].Condition).toEqual({
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnLike: {
          'aws:SourceArn': ['cost', 'budget', 'export', 'period', 'archive'].map(alarmArn),
        },
      });
      for (const alarm of Object.values(resourcesOfType(t, 'AWS::CloudWatch::Alarm')))
        expect(alarm.Properties?.AlarmName).toMatch(
          /^billing-dedup-dev-(cost|budget|export|period|reconciliation|archive)-/,
        );
    });

    it('cost-events and notifications topics allow nobody extra by default', () => {
      for (const prefix of ['^CostEventsTopic', '^NotificationsTopic']) {
        const { resource } = onlyResource(t, 'AWS::SNS::TopicPolicy', {
          Topics: [{ Ref: Match.stringLikeRegexp(prefix) }],
        });
        expect(statementsOf(resource).filter((x) => x.Effect === 'Allow')).toHaveLength(0);
      }
    });
  });

  describe('queues', () => {
    it('cost-events: FIFO queue with a FIFO DLQ, redrive after 5 receives, 14-day retention, visibility 185 s', () => {
      const dlq = dlqOf(t, 'billing-dedup-dev-cost-events.fifo');
      expect(dlq.resource.Properties).toMatchObject({
        FifoQueue: true,
        MessageRetentionPeriod: 14 * 86400,
      });
      const q = queueByName(t, 'billing-dedup-dev-cost-events.fifo');
      expect(q.resource.Properties).toMatchObject({
        FifoQueue: true,
        ContentBasedDeduplication: true,
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
        MessageRetentionPeriod: 14 * 86400,
        VisibilityTimeout: 185,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlq.id, 'Arn'] },
          maxReceiveCount: 5,
        },
      });
    });

    it('budget-alerts: standard queue with a standard DLQ', () => {
      const dlq = dlqOf(t, 'billing-dedup-dev-budget-alerts');
      expect(dlq.resource.Properties?.FifoQueue).toBeUndefined();
      expect(dlq.resource.Properties?.MessageRetentionPeriod).toBe(14 * 86400);
      const q = queueByName(t, 'billing-dedup-dev-budget-alerts');
      expect(q.resource.Properties?.FifoQueue).toBeUndefined();
      expect(q.resource.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 86400,
        VisibilityTimeout: 185,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlq.id, 'Arn'] },
          maxReceiveCount: 5,
        },
      });
    });

    it('visibility timeout ≥ 6 × function timeout + batching window on every source queue', () => {
      for (const [queue, fn, window] of [
        ['billing-dedup-dev-cost-events.fifo', 'billing-dedup-dev-cost-ledger', 0],
        ['billing-dedup-dev-budget-alerts', 'billing-dedup-dev-budget-alerts', 5],
      ] as const) {
        const visibility = queueByName(t, queue).resource.Properties?.VisibilityTimeout as number;
        const timeout = fnByName(t, fn).resource.Properties?.Timeout as number;
        expect(timeout).toBe(30);
        expect(visibility).toBeGreaterThanOrEqual(6 * timeout + window);
      }
    });

    it('every queue is KMS-encrypted with the messaging key and denies non-TLS access', () => {
      const queues = resourcesOfType(t, 'AWS::SQS::Queue');
      // Five pipelines' queue + DLQ (the archive spool included), and the Cost Anomaly Detection rule's DLQ.
      expect(Object.keys(queues)).toHaveLength(11);
      for (const q of Object.values(queues)) {
        expect(importOf(q.Properties?.KmsMasterKeyId)).toMatch(/MessagingKey/);
      }
      const policies = Object.values(resourcesOfType(t, 'AWS::SQS::QueuePolicy'));
      expect(policies).toHaveLength(11);
      for (const p of policies) {
        expect(statementsOf(p)).toContainEqual(
          expect.objectContaining({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        );
      }
    });

    it('DLQs survive a replacement or deletion of the stack and have no fixed name', () => {
      for (const queue of [
        'billing-dedup-dev-cost-events.fifo',
        'billing-dedup-dev-budget-alerts',
      ]) {
        const dlq = dlqOf(t, queue);
        expect(dlq.resource.DeletionPolicy).toBe('Retain');
        expect(dlq.resource.UpdateReplacePolicy).toBe('Retain');
        // A retained queue with a fixed name would block the next creation of the stack.
        expect(dlq.resource.Properties?.QueueName).toBeUndefined();
        expect(dlq.resource.Properties?.Tags).toEqual(
          expect.arrayContaining([{ Key: 'billing-dedup:dead-letter-queue-of', Value: queue }]),
        );
        // Source queues hold nothing an operator waits for.
        expect(queueByName(t, queue).resource.DeletionPolicy).toBe('Delete');
      }
    });

    it('each DLQ accepts only its own source queue as a dead-letter source (RedriveAllowPolicy byQueue)', () => {
      for (const queue of [
        'billing-dedup-dev-cost-events.fifo',
        'billing-dedup-dev-budget-alerts',
      ]) {
        const policy = dlqOf(t, queue).resource.Properties?.RedriveAllowPolicy as {
          redrivePermission: string;
          sourceQueueArns: unknown[];
        };
        expect(policy.redrivePermission).toBe('byQueue');
        expect(policy.sourceQueueArns).toHaveLength(1);
        expect(JSON.stringify(policy.sourceQueueArns[0])).toContain(`:${queue}"`);
      }
    });

    describe('queue policies: nobody sends into a queue directly', () => {
      const policyOfQueue = (queueId: string): Statement[] =>
        statementsOf(
          onlyResource(t, 'AWS::SQS::QueuePolicy', { Queues: [{ Ref: queueId }] }).resource,
        );
      const roleArn = (prefix: string) => ({
        'Fn::GetAtt': [
          Object.keys(resourcesOfType(t, 'AWS::IAM::Role')).find((id) => id.startsWith(prefix)),
          'Arn',
        ],
      });

      it.each([
        ['billing-dedup-dev-cost-events.fifo', '^CostEventsTopic'],
        ['billing-dedup-dev-budget-alerts', '^BudgetAlertsTopic'],
      ])(
        '%s: SendMessage denied unless SNS delivers from the topic, SQS moves from the DLQ, or the DLQ operator redrives',
        (queue, topicPrefix) => {
          const st = policyOfQueue(queueByName(t, queue).id);
          const deny = st.find((x) => x.Sid === 'DenySendExceptPipeline')!;
          expect(deny).toEqual({
            Sid: 'DenySendExceptPipeline',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            // SendMessage also authorizes SendMessageBatch; nothing else is denied (reads, queue
            // management, CloudFormation's policy updates keep working).
            Action: 'sqs:SendMessage',
            Resource: { 'Fn::GetAtt': [queueByName(t, queue).id, 'Arn'] },
            Condition: {
              ArnNotEquals: {
                'aws:SourceArn': [
                  { Ref: expect.stringMatching(new RegExp(topicPrefix)) },
                  { 'Fn::GetAtt': [dlqOf(t, queue).id, 'Arn'] },
                ],
              },
              ArnNotLike: { 'aws:PrincipalArn': [roleArn('DlqOperatorRole')] },
            },
          });
          // The topic's delivery is still allowed (SNS → SQS subscription).
          expect(st).toContainEqual(
            expect.objectContaining({
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Condition: {
                ArnEquals: {
                  'aws:SourceArn': { Ref: expect.stringMatching(new RegExp(topicPrefix)) },
                },
              },
            }),
          );
          expect(st.filter((x) => x.Effect === 'Deny').map((x) => x.Sid ?? x.Action)).toHaveLength(
            2,
          );
        },
      );

      it.each([
        [
          'billing-dedup-dev-cost-events.fifo',
          '^CostEventsTopic',
          'CostEventsPipelineConsumerRole',
        ],
        [
          'billing-dedup-dev-budget-alerts',
          '^BudgetAlertsTopic',
          'BudgetAlertsPipelineConsumerRole',
        ],
      ])(
        '%s DLQ: SendMessage denied unless SNS dead-letters from the topic or the consumer forwards poison',
        (queue, topicPrefix, consumerRole) => {
          const dlq = dlqOf(t, queue);
          const st = policyOfQueue(dlq.id);
          const deny = st.find((x) => x.Sid === 'DenySendExceptPipeline')!;
          expect(deny).toMatchObject({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sqs:SendMessage',
            Resource: { 'Fn::GetAtt': [dlq.id, 'Arn'] },
            Condition: {
              ArnNotEquals: {
                'aws:SourceArn': [
                  { Ref: expect.stringMatching(new RegExp(topicPrefix)) },
                  expect.anything(),
                ],
              },
              ArnNotLike: { 'aws:PrincipalArn': [roleArn(consumerRole)] },
            },
          });
          expect(JSON.stringify(deny.Condition?.ArnNotEquals['aws:SourceArn'])).toContain(
            `:${queue}"`,
          );
          // Nobody but the consumer (and SNS, SQS) — not even the DLQ operator — writes a dead letter.
          expect(JSON.stringify(deny)).not.toContain('DlqOperatorRole');
          // SNS may dead-letter what it cannot deliver (the subscription's redrive policy).
          expect(st).toContainEqual(
            expect.objectContaining({
              Effect: 'Allow',
              Principal: { Service: 'sns.amazonaws.com' },
              Action: 'sqs:SendMessage',
            }),
          );
        },
      );
    });

    it('queues say which function consumes them', () => {
      t.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: 'billing-dedup-dev-cost-events.fifo',
        Tags: Match.arrayWith([
          { Key: 'billing-dedup:consumer', Value: 'billing-dedup-dev-cost-ledger' },
          { Key: 'billing-dedup:stream', Value: 'cost-events' },
        ]),
      });
      t.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: 'billing-dedup-dev-budget-alerts',
        Tags: Match.arrayWith([
          { Key: 'billing-dedup:consumer', Value: 'billing-dedup-dev-budget-alerts' },
        ]),
      });
    });
  });

  it('SNS → SQS subscriptions use raw message delivery and dead-letter undeliverable messages', () => {
    const subs = Object.values(resourcesOfType(t, 'AWS::SNS::Subscription'));
    // The export-chunks queue has no topic: the planner sends into it.
    expect(subs).toHaveLength(3);
    for (const sub of subs) {
      expect(sub.Properties).toMatchObject({
        Protocol: 'sqs',
        RawMessageDelivery: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [expect.stringMatching(/DeadLetterQueue/), 'Arn'] },
        },
      });
    }
    t.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: { Ref: Match.stringLikeRegexp('^CostEventsTopic') },
      Endpoint: { 'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-cost-events.fifo').id, 'Arn'] },
    });
    t.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: { Ref: Match.stringLikeRegexp('^BudgetAlertsTopic') },
      Endpoint: { 'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-budget-alerts').id, 'Arn'] },
    });
    t.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: { Ref: Match.stringLikeRegexp('^ExportDeliveriesTopic') },
      Endpoint: {
        'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-export-deliveries').id, 'Arn'],
      },
    });
  });

  describe('consumers', () => {
    it('run on the current Node.js runtime, ARM64, ESM bundle, explicit log group', () => {
      // Four consumers, the archiver and the nightly reconciliation, plus CDK's handler of Custom::S3BucketNotifications.
      t.resourceCountIs('AWS::Lambda::Function', 7);
      const consumers = t.findResources('AWS::Lambda::Function', {
        Properties: { FunctionName: Match.stringLikeRegexp('^billing-dedup-dev-') },
      });
      expect(Object.keys(consumers)).toHaveLength(6);
      for (const fn of Object.values(consumers)) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/LogGroup/) } },
        });
      }
      for (const name of ['billing-dedup-dev-cost-ledger', 'billing-dedup-dev-budget-alerts'])
        expect(fnByName(t, name).resource.Properties).toMatchObject({
          Timeout: 30,
          MemorySize: 512,
        });
      t.resourceCountIs('AWS::Logs::LogGroup', 6);
      t.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('cost-ledger gets exactly its environment', () => {
      const env = (
        fnByName(t, 'billing-dedup-dev-cost-ledger').resource.Properties?.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      expect(Object.keys(env).sort()).toEqual(COST_ENV_KEYS);
      expect(env).toMatchObject({
        [ENV.queueKind]: 'fifo',
        [ENV.deliveryMode]: 'raw',
        [ENV.dedupTtlSeconds]: String(35 * 86400),
        [ENV.streamName]: 'cost-events',
        [ENV.maxConcurrency]: '8',
        [ENV.serviceName]: 'billing-dedup-dev-cost-ledger',
        [ENV.metricsNamespace]: 'BillingDedup',
        [ENV.logLevel]: 'INFO',
        [ENV.totalShards]: '8',
        [ENV.lateChargePolicy]: 'roll-forward',
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.dlqUrl]: { Ref: dlqOf(t, 'billing-dedup-dev-cost-events.fifo').id },
      });
      expect(importOf(env[ENV.dedupTableName])).toMatch(/RefDedupTable/);
      expect(importOf(env[ENV.ledgerTableName])).toMatch(/RefLedgerTable/);
    });

    it('budget-alerts gets exactly its environment', () => {
      const env = (
        fnByName(t, 'billing-dedup-dev-budget-alerts').resource.Properties?.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      expect(Object.keys(env).sort()).toEqual(ALERT_ENV_KEYS);
      expect(env).toMatchObject({
        [ENV.queueKind]: 'standard',
        [ENV.deliveryMode]: 'raw',
        [ENV.streamName]: 'budget-alerts',
        [ENV.serviceName]: 'billing-dedup-dev-budget-alerts',
        [ENV.metricsNamespace]: 'BillingDedup',
        [ENV.notificationsTopicArn]: { Ref: expect.stringMatching(/^NotificationsTopic/) },
        [ENV.dlqUrl]: { Ref: dlqOf(t, 'billing-dedup-dev-budget-alerts').id },
      });
    });

    it('event source mappings report batch item failures with the configured batching', () => {
      t.resourceCountIs('AWS::Lambda::EventSourceMapping', 5);
      t.allResourcesProperties('AWS::Lambda::EventSourceMapping', {
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 10 },
      });
      for (const queue of [
        'billing-dedup-dev-cost-events.fifo',
        'billing-dedup-dev-budget-alerts',
        'billing-dedup-dev-export-deliveries',
      ])
        t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
          EventSourceArn: { 'Fn::GetAtt': [queueByName(t, queue).id, 'Arn'] },
          BatchSize: 10,
        });
      // Lambda has no batching window on FIFO queues.
      t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: {
          'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-cost-events.fifo').id, 'Arn'],
        },
        MaximumBatchingWindowInSeconds: Match.absent(),
      });
      t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: {
          'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-budget-alerts').id, 'Arn'],
        },
        MaximumBatchingWindowInSeconds: 5,
      });
    });
  });

  describe('IAM', () => {
    const policyOf = (roleIdPrefix: string): Statement[] => {
      const policies = t.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp(roleIdPrefix) }] },
      });
      expect(Object.keys(policies)).toHaveLength(1);
      return statementsOf(Object.values(policies)[0]);
    };

    it('no statement uses a wildcard action on DynamoDB, SQS or SNS, nor "*" resources for them', () => {
      for (const policy of Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))) {
        for (const st of statementsOf(policy)) {
          const actions = actionsOf(st);
          expect(actions).not.toContain('*');
          const messaging = actions.filter((a) => /^(dynamodb|sqs|sns):/.test(a));
          for (const a of messaging) expect(a).not.toMatch(/\*/);
          if (messaging.length > 0) expect(JSON.stringify(st.Resource)).not.toMatch(/"\*"|:\*"/);
        }
      }
    });

    it('roles have no managed policies (log writing is scoped to the function’s own log group)', () => {
      for (const [id, role] of Object.entries(resourcesOfType(t, 'AWS::IAM::Role'))) {
        // CDK's deployment-time handler of Custom::S3BucketNotifications (cdk-nag suppression with reason).
        if (id.startsWith('BucketNotificationsHandler')) {
          expect(JSON.stringify(role.Properties?.ManagedPolicyArns)).toMatch(
            /:iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole"/,
          );
          expect(role.Properties?.ManagedPolicyArns).toHaveLength(1);
          continue;
        }
        expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
      }
    });

    it('cost-ledger: exact table actions on exact tables, DLQ send, queue consumption', () => {
      const st = policyOf('^CostEventsPipelineConsumerRole');
      const bySid = (sid: string) => st.find((x) => x.Sid === sid)!;
      // No ConditionCheckItem: the consumer's transactions hold no ConditionCheck item.
      expect(actionsOf(bySid('LedgerTableAccess')).sort()).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      expect(importOf(bySid('LedgerTableAccess').Resource)).toMatch(/LedgerTable.*Arn/);
      expect(actionsOf(bySid('DedupTableAccess')).sort()).toEqual([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
      ]);
      expect(importOf(bySid('DedupTableAccess').Resource)).toMatch(/DedupTable.*Arn/);
      expect(bySid('ForwardPoisonMessagesToDlq')).toMatchObject({
        Action: 'sqs:SendMessage',
        Resource: {
          'Fn::GetAtt': [dlqOf(t, 'billing-dedup-dev-cost-events.fifo').id, 'Arn'],
        },
      });
      expect(st).toContainEqual(
        expect.objectContaining({
          Action: expect.arrayContaining([
            'sqs:ReceiveMessage',
            'sqs:DeleteMessage',
            'sqs:ChangeMessageVisibility',
          ]),
          Resource: {
            'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-cost-events.fifo').id, 'Arn'],
          },
        }),
      );
      expect(bySid('UseTableKeyThroughDynamoDb').Condition).toBeDefined();
      expect(st.some((x) => actionsOf(x).some((a) => a.startsWith('sns:')))).toBe(false);
    });

    it('DLQ operator role: assumable from this account, peek and redrive only, on exact resources', () => {
      const { id, resource } = onlyResource(t, 'AWS::IAM::Role', {
        Description: Match.stringLikeRegexp('peek and redrive the dead-letter queues'),
      });
      expect(JSON.stringify(resource.Properties?.AssumeRolePolicyDocument)).toMatch(/:root"/);
      const st = policyOf(`^${id}`);
      const bySid = (sid: string) => st.find((x) => x.Sid === sid)!;
      const sourceQueues = [
        'billing-dedup-dev-cost-events.fifo',
        'billing-dedup-dev-budget-alerts',
        'billing-dedup-dev-export-deliveries',
        'billing-dedup-dev-export-chunks',
        'billing-dedup-dev-archive-spool',
      ];
      const dlqs = sourceQueues.map((q) => ({ 'Fn::GetAtt': [dlqOf(t, q).id, 'Arn'] }));
      const queues = sourceQueues.map((q) => ({ 'Fn::GetAtt': [queueByName(t, q).id, 'Arn'] }));
      expect(actionsOf(bySid('PeekAndMoveDeadLetters')).sort()).toEqual([
        'sqs:CancelMessageMoveTask',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ListDeadLetterSourceQueues',
        'sqs:ListMessageMoveTasks',
        'sqs:ReceiveMessage',
        'sqs:StartMessageMoveTask',
      ]);
      expect(bySid('PeekAndMoveDeadLetters').Resource).toEqual(dlqs);
      expect(actionsOf(bySid('RedriveIntoSourceQueues')).sort()).toEqual([
        'sqs:GetQueueAttributes',
        'sqs:SendMessage',
      ]);
      expect(bySid('RedriveIntoSourceQueues').Resource).toEqual(queues);
      expect(importOf(bySid('UseMessagingKey').Resource)).toMatch(/MessagingKey/);
      expect(bySid('ReadStackOutputs')).toMatchObject({ Action: 'cloudformation:DescribeStacks' });
      expect(JSON.stringify(st)).not.toMatch(/dynamodb|sns:/);
    });

    it('budget-alerts: idempotency actions on the dedup table only, publish to notifications only', () => {
      const st = policyOf('^BudgetAlertsPipelineConsumerRole');
      const bySid = (sid: string) => st.find((x) => x.Sid === sid)!;
      expect(actionsOf(bySid('DedupTableAccess')).sort()).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      expect(importOf(bySid('DedupTableAccess').Resource)).toMatch(/DedupTable.*Arn/);
      // Only Powertools' own records (`budget-alerts#<hash>`), never a cost claim.
      expect(bySid('DedupTableAccess').Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['budget-alerts#*'] },
      });
      expect(bySid('PublishNotifications')).toMatchObject({
        Action: 'sns:Publish',
        Resource: { Ref: expect.stringMatching(/^NotificationsTopic/) },
      });
      expect(JSON.stringify(st)).not.toMatch(/LedgerTable/);
      expect(bySid('ForwardPoisonMessagesToDlq')).toMatchObject({
        Action: 'sqs:SendMessage',
        Resource: {
          'Fn::GetAtt': [dlqOf(t, 'billing-dedup-dev-budget-alerts').id, 'Arn'],
        },
      });
      // KMS for the encrypted DLQ/topic and for the tables.
      expect(actionsOf(bySid('EncryptForDlq')).sort()).toEqual([
        'kms:Decrypt',
        'kms:GenerateDataKey',
      ]);
    });
  });

  describe('alarms and dashboard', () => {
    it('has five alarms per pipeline, one on the anomaly rule’s DLQ and two of the reconciliation, all notifying the ops topic', () => {
      t.resourceCountIs('AWS::CloudWatch::Alarm', 28);
      t.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^OpsTopic') }],
        OKActions: [{ Ref: Match.stringLikeRegexp('^OpsTopic') }],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmName: Match.stringLikeRegexp('^billing-dedup-dev-'),
      });
    });

    it.each(['cost-events', 'budget-alerts', 'export-deliveries', 'export-chunks'])(
      '%s: DLQ ≥ 1, oldest message age, errors, throttles, conflicts',
      (stream) => {
        t.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `billing-dedup-dev-${stream}-dlq-not-empty`,
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Threshold: 1,
        });
        t.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `billing-dedup-dev-${stream}-oldest-message-age`,
          MetricName: 'ApproximateAgeOfOldestMessage',
          Threshold: 900,
        });
        t.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `billing-dedup-dev-${stream}-function-errors`,
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Threshold: 1,
        });
        t.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `billing-dedup-dev-${stream}-function-throttles`,
          MetricName: 'Throttles',
          Threshold: 1,
        });
      },
    );

    it('conflict alarm reads the EMF metric BillingDedup/conflict{service}', () => {
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: 'billing-dedup-dev-cost-events-conflicts',
        Namespace: 'BillingDedup',
        MetricName: 'conflict',
        Dimensions: [{ Name: 'service', Value: 'billing-dedup-dev-cost-ledger' }],
        Statistic: 'Sum',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('has one dashboard for the stage', () => {
      t.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      t.hasResourceProperties('AWS::CloudWatch::Dashboard', {
        DashboardName: 'billing-dedup-dev-operations',
      });
    });

    it('the oldest-message threshold comes from config', () => {
      synth({ oldestMessageAgeAlarmSeconds: '120' }).statelessTemplate.hasResourceProperties(
        'AWS::CloudWatch::Alarm',
        {
          MetricName: 'ApproximateAgeOfOldestMessage',
          Threshold: 120,
        },
      );
    });
  });

  it('outputs every topic, queue, DLQ and function under stable ids, without exports', () => {
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown }>;
    const expected = [
      'CostEventsTopicArn',
      'CostEventsQueueUrl',
      'CostEventsQueueArn',
      'CostEventsDlqUrl',
      'CostEventsDlqArn',
      'CostEventsStreamKind',
      'LateChargePolicy',
      'CostEventsConsumerFunctionName',
      'BudgetAlertsTopicArn',
      'BudgetAlertsQueueUrl',
      'BudgetAlertsQueueArn',
      'BudgetAlertsDlqUrl',
      'BudgetAlertsDlqArn',
      'BudgetAlertsConsumerFunctionName',
      'NotificationsTopicArn',
      'OpsTopicArn',
      'DashboardName',
      'DlqOperatorRoleArn',
      'Stage',
      'ExportBucketName',
      'ExportSources',
      'ExportDeliveriesTopicArn',
      'ExportDeliveriesQueueUrl',
      'ExportDeliveriesQueueArn',
      'ExportDeliveriesDlqUrl',
      'ExportDeliveriesDlqArn',
      'ExportDeliveriesConsumerFunctionName',
      'ArchiveSpoolQueueUrl',
      'ArchiveSpoolQueueArn',
      'ArchiveSpoolDlqUrl',
      'ArchiveSpoolDlqArn',
      'ArchiveSpoolConsumerFunctionName',
      'ExportChunksQueueUrl',
      'ExportChunksQueueArn',
      'ExportChunksDlqUrl',
      'ExportChunksDlqArn',
      'ExportChunksConsumerFunctionName',
    ];
    const exported = Object.keys(outputs).filter((id) => outputs[id].Export);
    expect(
      Object.keys(outputs)
        .filter((id) => !exported.includes(id))
        .sort(),
    ).toEqual([...expected].sort());
    expect(statelessOutputIds().sort()).toEqual([...expected].sort());
    // Only what the tenant stacks import, in every configuration (lib/tenant-stack.ts).
    expect(exported.map((id) => (outputs[id].Export as { Name: string }).Name).sort()).toEqual(
      Object.values(tenantStackImports('billing-dedup-dev-stateless')).sort(),
    );
    expect(outputs.CostEventsQueueUrl.Value).toEqual({
      Ref: queueByName(t, 'billing-dedup-dev-cost-events.fifo').id,
    });
    expect(outputs.CostEventsStreamKind.Value).toBe('fifo');
  });

  it('tags resources with project and stage', () => {
    for (const type of [
      'AWS::SQS::Queue',
      'AWS::SNS::Topic',
      'AWS::Lambda::Function',
      'AWS::IAM::Role',
    ]) {
      t.allResourcesProperties(type, {
        Tags: Match.arrayWith([
          { Key: 'project', Value: 'billing-dedup' },
          { Key: 'stage', Value: 'dev' },
        ]),
      });
    }
  });
});

describe('stateless stack (costStreamKind=standard, producers, e-mails)', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({
      stage: 'prod',
      costStreamKind: 'standard',
      costEventsPublishers: '111122223333,arn:aws:iam::444455556666:role/exporter',
      budgetAlertsPublishers: '777788889999',
      notificationEmails: 'finops@example.com',
      opsEmails: 'oncall@example.com',
      redriveOperators: 'arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/*',
    }).statelessTemplate;
  });

  it('moves the cost stream to a standard topic, queue and DLQ', () => {
    t.hasResourceProperties('AWS::SNS::Topic', {
      TopicName: 'billing-dedup-prod-cost-events',
      FifoTopic: Match.absent(),
    });
    const q = queueByName(t, 'billing-dedup-prod-cost-events');
    expect(q.resource.Properties?.FifoQueue).toBeUndefined();
    expect(
      dlqOf(t, 'billing-dedup-prod-cost-events').resource.Properties?.FifoQueue,
    ).toBeUndefined();
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [q.id, 'Arn'] },
      MaximumBatchingWindowInSeconds: 5,
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-prod-cost-ledger',
      Environment: { Variables: Match.objectLike({ [ENV.queueKind]: 'standard' }) },
    });
  });

  it('lets the configured producers publish', () => {
    const cost = onlyResource(t, 'AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: Match.stringLikeRegexp('^CostEventsTopic') }],
    });
    const producers = statementsOf(cost.resource).find(
      (x) => x.Sid === 'AllowPublishFromConfiguredProducers',
    )!;
    expect(producers).toMatchObject({ Effect: 'Allow', Action: 'sns:Publish' });
    expect(JSON.stringify(producers.Principal)).toContain(':iam::111122223333:root');
    expect(JSON.stringify(producers.Principal)).toContain(
      'arn:aws:iam::444455556666:role/exporter',
    );
    const alerts = onlyResource(t, 'AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: Match.stringLikeRegexp('^BudgetAlertsTopic') }],
    });
    const alertProducers = statementsOf(alerts.resource).find(
      (x) => x.Sid === 'AllowPublishFromConfiguredProducers',
    )!;
    expect(JSON.stringify(alertProducers.Principal)).toContain(':iam::777788889999:root');
  });

  it('lets the configured redrive operators (and only them, besides the DLQ operator role) send into the source queues', () => {
    const denies = Object.values(resourcesOfType(t, 'AWS::SQS::QueuePolicy'))
      .flatMap((p) => statementsOf(p))
      .filter((x) => x.Sid === 'DenySendExceptPipeline');
    // Five pipelines' queue + DLQ, and the anomaly rule's DLQ (only EventBridge for that rule may send).
    expect(denies).toHaveLength(11);
    const withOperators = denies.filter((x) =>
      JSON.stringify(x).includes('arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/*'),
    );
    // The five source queues, not the DLQs.
    expect(withOperators).toHaveLength(5);
    const operators = [
      { 'Fn::GetAtt': [expect.stringMatching(/^DlqOperatorRole/), 'Arn'] },
      'arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/*',
    ];
    for (const deny of withOperators) {
      const chunkQueue = JSON.stringify(deny.Resource).includes('ExportChunksPipelineQueue');
      const spoolQueue = JSON.stringify(deny.Resource).includes('ArchiveSpoolPipelineQueue');
      // The export-chunks queue also accepts the planner, which sends the tasks; the spool the four consumers.
      if (spoolQueue) {
        expect(deny.Condition?.ArnNotLike['aws:PrincipalArn']).toEqual([
          ...['CostEvents', 'BudgetAlerts', 'ExportDeliveries', 'ExportChunks'].map((role) => ({
            'Fn::GetAtt': [
              expect.stringMatching(new RegExp(`^${role}PipelineConsumerRole`)),
              'Arn',
            ],
          })),
          ...operators,
        ]);
        continue;
      }
      expect(deny.Condition?.ArnNotLike['aws:PrincipalArn']).toEqual(
        chunkQueue
          ? [
              {
                'Fn::GetAtt': [
                  expect.stringMatching(/^ExportDeliveriesPipelineConsumerRole/),
                  'Arn',
                ],
              },
              ...operators,
            ]
          : operators,
      );
    }
  });

  it('subscribes the configured e-mail addresses', () => {
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'finops@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^NotificationsTopic') },
    });
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^OpsTopic') },
    });
  });

  it('retains log groups outside dev', () => {
    for (const lg of Object.values(resourcesOfType(t, 'AWS::Logs::LogGroup')))
      expect(lg.DeletionPolicy).toBe('Retain');
  });
});
