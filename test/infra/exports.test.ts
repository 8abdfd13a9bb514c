import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../contract/environment';
import { parseExportSourcesJson } from '../../contract/export-sources';
import { ConfigError, contextFrom, resolveConfig } from '../../lib/config';
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

const SOURCES = [
  { tenant: 'acme', prefix: 'acme/' },
  { tenant: 'globex', prefix: 'exports/globex.eu/', source: 'azure' },
];
const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const BUCKET_REF = { Ref: expect.stringMatching(/^ExportBucket/) };
const DATA_EXPORTS_SOURCE_ARNS = [
  {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':cur:us-east-1:',
        { Ref: 'AWS::AccountId' },
        ':definition/*',
      ],
    ],
  },
  {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':bcm-data-exports:us-east-1:',
        { Ref: 'AWS::AccountId' },
        ':export/*',
      ],
    ],
  },
];

const envOf = (t: Template, name: string) =>
  (fnByName(t, name).resource.Properties?.Environment as { Variables: Record<string, unknown> })
    .Variables;
const roleIdOf = (t: Template, functionName: string) =>
  (fnByName(t, functionName).resource.Properties?.Role as { 'Fn::GetAtt': string[] })[
    'Fn::GetAtt'
  ][0];
const policyOf = (t: Template, roleId: string): Statement[] => {
  const policies = t.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: roleId }] },
  });
  expect(Object.keys(policies)).toHaveLength(1);
  return statementsOf(Object.values(policies)[0]);
};
const sidOf = (statements: Statement[], sid: string) => {
  const found = statements.filter((x) => x.Sid === sid);
  expect(found).toHaveLength(1);
  return found[0];
};
const queuePolicyOf = (t: Template, queueId: string): Statement[] =>
  statementsOf(onlyResource(t, 'AWS::SQS::QueuePolicy', { Queues: [{ Ref: queueId }] }).resource);
const notificationsOf = (t: Template) => {
  const found = Object.values(resourcesOfType(t, 'Custom::S3BucketNotifications'));
  expect(found).toHaveLength(1);
  return found[0];
};
const rulesOf = (t: Template) =>
  (
    notificationsOf(t).Properties?.NotificationConfiguration as {
      TopicConfigurations: {
        Events: string[];
        Filter: { Key: { FilterRules: { Name: string; Value: string }[] } };
        TopicArn: unknown;
      }[];
    }
  ).TopicConfigurations;

describe('export bucket (stateful stack, created)', () => {
  let s: Synthesized;
  let t: Template;
  beforeAll(() => {
    s = synth({ exportSources: SOURCES });
    t = s.statefulTemplate;
  });

  const exportBucket = () =>
    onlyResource(t, 'AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'export-bucket/' }),
    });

  it('is SSE-KMS with its own rotating key, versioned, private, ACL-free and retained', () => {
    const { resource } = exportBucket();
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.UpdateReplacePolicy).toBe('Retain');
    expect(resource.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [expect.stringMatching(/^ExportKey/), 'Arn'] },
            },
          },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LoggingConfiguration: {
        DestinationBucketName: { Ref: expect.stringMatching(/^ExportAccessLogBucket/) },
        LogFilePrefix: 'export-bucket/',
      },
    });
    t.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      Description: Match.stringLikeRegexp('export files'),
    });
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/billing-dedup-dev-exports' });
  });

  it('keeps replaced versions (the files executions pinned) as long as the archive: 2557 days by default', () => {
    const rules = (
      exportBucket().resource.Properties?.LifecycleConfiguration as {
        Rules: Record<string, unknown>[];
      }
    ).Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Status: 'Enabled',
        NoncurrentVersionExpiration: { NoncurrentDays: 2557 },
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
      }),
    );
    // Current versions are never expired: the bucket is the billing record.
    for (const rule of rules) expect(rule.ExpirationInDays).toBeUndefined();
    const followed = synth({ archiveRetentionDays: '400' }).statefulTemplate;
    followed.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 400 } }),
        ]),
      },
    });
    const longer = synth({ exportVersionRetentionDays: '3000' }).statefulTemplate;
    longer.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 3000 } }),
        ]),
      },
    });
  });

  it('refuses an export version retention shorter than the archive retention, naming the fix', () => {
    expect(() => synth({ exportVersionRetentionDays: '30' })).toThrow(
      /exportVersionRetentionDays: 30 days is shorter than archiveRetentionDays \(2557\).*Leave it unset/,
    );
  });

  it('bucket policy: TLS 1.2+ only, and AWS Data Exports may deliver for this account only', () => {
    const statements = statementsOf(
      onlyResource(t, 'AWS::S3::BucketPolicy', {
        Bucket: { Ref: Match.stringLikeRegexp('^ExportBucket') },
      }).resource,
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
      }),
    );
    const delivery = sidOf(statements, 'AllowDataExportsDelivery');
    expect(delivery.Effect).toBe('Allow');
    expect(delivery.Principal).toEqual({
      Service: ['billingreports.amazonaws.com', 'bcm-data-exports.amazonaws.com'],
    });
    expect(actionsOf(delivery).sort()).toEqual(['s3:GetBucketPolicy', 's3:PutObject']);
    expect(delivery.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: { 'aws:SourceArn': DATA_EXPORTS_SOURCE_ARNS },
    });
    // Only AWS Data Exports is allowed anything; everything else in the policy is a Deny.
    expect(statements.filter((x) => x.Effect === 'Allow')).toHaveLength(1);
  });

  it('export key policy lets Data Exports encrypt its deliveries, scoped the same way', () => {
    const key = onlyResource(t, 'AWS::KMS::Key', {
      Description: Match.stringLikeRegexp('export files'),
    });
    const statement = sidOf(statementsOf(key.resource, 'KeyPolicy'), 'AllowDataExportsDelivery');
    expect(actionsOf(statement).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    expect(statement.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: { 'aws:SourceArn': DATA_EXPORTS_SOURCE_ARNS },
    });
  });

  it('access log bucket: SSE-S3 (the only encryption log delivery supports), private, logs expire', () => {
    const { resource } = onlyResource(t, 'AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [Match.objectLike({ Id: 'expire-access-logs', ExpirationInDays: 30 })],
      },
    });
    expect(resource.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
        ],
      },
      PublicAccessBlockConfiguration: { BlockPublicPolicy: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    // Log delivery through the bucket policy (logging.s3.amazonaws.com), not an ACL.
    expect(resource.Properties?.AccessControl).toBeUndefined();
  });

  it('messaging key lets S3 publish the bucket’s events to the encrypted topic, for this account only', () => {
    const key = onlyResource(t, 'AWS::KMS::Key', {
      Description: Match.stringLikeRegexp('SNS topics and SQS queues'),
    });
    const statement = sidOf(
      statementsOf(key.resource, 'KeyPolicy'),
      'AllowS3ExportBucketNotifications',
    );
    expect(statement.Principal).toEqual({ Service: 's3.amazonaws.com' });
    expect(statement.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnEquals: {
        'aws:SourceArn': {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::', BUCKET_REF]],
        },
      },
    });
  });

  it('the stateful stack references nothing of the stateless one (no cycle)', () => {
    // The period closer role names the stateless stack's ARN as a literal (DescribeStacks for the CLI)
    // and explains it in its cdk-nag metadata: a name is not a reference, so only those may mention it.
    const resources = Object.values(t.toJSON().Resources as Record<string, object>).map(
      (resource) => ({ ...resource, Metadata: undefined }),
    );
    const template = JSON.stringify(resources).replaceAll(
      ':stack/billing-dedup-dev-stateless/*',
      ':stack/<sibling>/*',
    );
    expect(template).not.toMatch(/Fn::ImportValue|stateless/);
  });
});

/** The configuration bundled with an export function's code (contract/function-config.ts). */
const bundledConfigOf = (s: Synthesized, stream: 'deliveries' | 'chunks') =>
  JSON.parse(s.stateless.exports[stream].consumer.bundledConfig as string);

describe('export pipeline (stateless stack, two sources)', () => {
  let t: Template;
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synth({ exportSources: SOURCES });
    t = synthesized.statelessTemplate;
  });

  it('outputs the bucket name (created by the stateful stack)', () => {
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(importOf(outputs.ExportBucketName.Value)).toMatch(/RefExportBucket/);
  });

  it('outputs the export sources as the CLI reads them back (export put checks --prefix)', () => {
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(parseExportSourcesJson(outputs.ExportSources.Value as string)).toEqual(SOURCES);
  });

  it('notifies object-created manifests, one rule per configured prefix, onto the export-deliveries topic', () => {
    const resource = notificationsOf(t);
    expect(resource.Properties?.Managed).toBe(false);
    expect(importOf(resource.Properties?.BucketName)).toMatch(/RefExportBucket/);
    const rules = rulesOf(t);
    expect(rules).toHaveLength(2);
    expect(
      rules.map((rule) =>
        Object.fromEntries(rule.Filter.Key.FilterRules.map((f) => [f.Name, f.Value])),
      ),
    ).toEqual([
      { prefix: 'acme/', suffix: '-Manifest.json' },
      { prefix: 'exports/globex.eu/', suffix: '-Manifest.json' },
    ]);
    for (const rule of rules) {
      expect(rule.Events).toEqual(['s3:ObjectCreated:*']);
      expect(rule.TopicArn).toEqual({ Ref: expect.stringMatching(/^ExportDeliveriesTopic/) });
    }
    // S3 checks its permission when the configuration is written: the topic policy comes first.
    expect(resource.DependsOn).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ExportDeliveriesTopicPolicy/)]),
    );
  });

  it('topic: standard, encrypted; S3 may publish only for the export bucket and this account', () => {
    t.hasResourceProperties('AWS::SNS::Topic', {
      TopicName: 'billing-dedup-dev-export-deliveries',
      FifoTopic: Match.absent(),
      KmsMasterKeyId: Match.anyValue(),
    });
    const statements = statementsOf(
      onlyResource(t, 'AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: Match.stringLikeRegexp('^ExportDeliveriesTopic') }],
      }).resource,
    );
    const allows = statements.filter((x) => x.Effect === 'Allow');
    // Exactly one: CDK's SnsDestination would add a second one without aws:SourceAccount.
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Principal: { Service: 's3.amazonaws.com' },
      Action: 'sns:Publish',
      Condition: {
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnEquals: {
          'aws:SourceArn': [
            {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':s3:::',
                  { 'Fn::ImportValue': expect.stringMatching(/RefExportBucket/) },
                ],
              ],
            },
          ],
        },
      },
    });
  });

  it('export-deliveries: subscribed queue; only its topic, its DLQ and the operators may send', () => {
    const queue = queueByName(t, 'billing-dedup-dev-export-deliveries');
    expect(queue.resource.Properties).toMatchObject({
      VisibilityTimeout: 6 * 120 + 5,
      RedrivePolicy: { maxReceiveCount: 5 },
    });
    const deny = sidOf(queuePolicyOf(t, queue.id), 'DenySendExceptPipeline');
    expect(deny.Condition).toEqual({
      ArnNotEquals: {
        'aws:SourceArn': [
          { Ref: expect.stringMatching(/^ExportDeliveriesTopic/) },
          { 'Fn::GetAtt': [dlqOf(t, 'billing-dedup-dev-export-deliveries').id, 'Arn'] },
        ],
      },
      ArnNotLike: {
        'aws:PrincipalArn': [{ 'Fn::GetAtt': [expect.stringMatching(/^DlqOperatorRole/), 'Arn'] }],
      },
    });
  });

  it('export-chunks: no topic; only the planner (and the operators, and its DLQ) may send', () => {
    const queue = queueByName(t, 'billing-dedup-dev-export-chunks');
    expect(queue.resource.Properties).toMatchObject({
      VisibilityTimeout: 6 * 300,
      RedrivePolicy: { maxReceiveCount: 20 },
    });
    t.resourcePropertiesCountIs(
      'AWS::SNS::Subscription',
      { Endpoint: { 'Fn::GetAtt': [queue.id, 'Arn'] } },
      0,
    );
    const deny = sidOf(queuePolicyOf(t, queue.id), 'DenySendExceptPipeline');
    expect(deny.Condition).toEqual({
      ArnNotEquals: {
        'aws:SourceArn': [
          { 'Fn::GetAtt': [dlqOf(t, 'billing-dedup-dev-export-chunks').id, 'Arn'] },
        ],
      },
      ArnNotLike: {
        'aws:PrincipalArn': [
          { 'Fn::GetAtt': [roleIdOf(t, 'billing-dedup-dev-export-planner'), 'Arn'] },
          { 'Fn::GetAtt': [expect.stringMatching(/^DlqOperatorRole/), 'Arn'] },
        ],
      },
    });
    const dlqDeny = sidOf(
      queuePolicyOf(t, dlqOf(t, 'billing-dedup-dev-export-chunks').id),
      'DenySendExceptPipeline',
    );
    expect(dlqDeny.Condition?.ArnNotLike).toEqual({
      'aws:PrincipalArn': [
        { 'Fn::GetAtt': [roleIdOf(t, 'billing-dedup-dev-export-chunk'), 'Arn'] },
      ],
    });
  });

  it('chunk worker takes one task per invocation (its memory bounds one task), no batching window', () => {
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: {
        'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-export-chunks').id, 'Arn'],
      },
      BatchSize: 1,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(fnByName(t, 'billing-dedup-dev-export-chunk').resource.Properties).toMatchObject({
      Timeout: 300,
      MemorySize: 1024,
    });
    expect(fnByName(t, 'billing-dedup-dev-export-planner').resource.Properties).toMatchObject({
      Timeout: 120,
      MemorySize: 512,
    });
  });

  it('planner environment', () => {
    const env = envOf(t, 'billing-dedup-dev-export-planner');
    expect(env).toMatchObject({
      [ENV.streamName]: 'export-deliveries',
      FUNCTION_CONFIG_FILE: 'billing-dedup-config.json',
      [ENV.exportParquetRowsPerTask]: '200000',
      [ENV.chunkQueueUrl]: { Ref: queueByName(t, 'billing-dedup-dev-export-chunks').id },
      [ENV.deliveryMode]: 'raw',
      [ENV.queueKind]: 'standard',
    });
    expect(importOf(env[ENV.exportBucketName])).toMatch(/RefExportBucket/);
    expect(importOf(env[ENV.ledgerTableName])).toMatch(/RefLedgerTable/);
    expect(importOf(env[ENV.dedupTableName])).toMatch(/RefDedupTable/);
    expect(env[ENV.notificationsTopicArn]).toBeUndefined();
    // The prefixes grow with tenants: bundled with the code, not in the 4 KB environment.
    expect(env[ENV.exportSources]).toBeUndefined();
    expect(bundledConfigOf(synthesized, 'deliveries')).toEqual({ exportSources: SOURCES });
  });

  it('chunk worker environment', () => {
    const env = envOf(t, 'billing-dedup-dev-export-chunk');
    expect(env).toMatchObject({
      [ENV.streamName]: 'export-chunks',
      FUNCTION_CONFIG_FILE: 'billing-dedup-config.json',
      [ENV.exportDiffThreshold]: '1',
      [ENV.exportCsvSubchunkRows]: '50000',
      // The worker fails the execution of a task on the receive SQS would dead-letter it after.
      [ENV.exportChunkMaxReceiveCount]: '20',
      [ENV.maxConcurrency]: '1',
      [ENV.notificationsTopicArn]: { Ref: expect.stringMatching(/^NotificationsTopic/) },
      // Corrections of closed periods are booked like the cost consumer's charges.
      [ENV.lateChargePolicy]: 'roll-forward',
      [ENV.totalShards]: '8',
      // Stream-versus-export drift: notified above 1 % of the export and 1 unit.
      [ENV.provisionalDriftPercent]: '1',
      [ENV.provisionalDriftFloor]: '1',
    });
    expect(importOf(env[ENV.exportBucketName])).toMatch(/RefExportBucket/);
    expect(importOf(env[ENV.ledgerTableName])).toMatch(/RefLedgerTable/);
    expect(env[ENV.chunkQueueUrl]).toBeUndefined();
    const tuned = synth({
      exportDiffNotifyThreshold: '0.01',
      exportCsvSubchunkRows: '20000',
      exportParquetRowsPerTask: '100000',
      lateChargePolicy: 'reject',
      totalShards: '4',
      additiveSources: 'metering,gcp',
      provisionalDriftThreshold: '{"percent": "2.50", "floor": 5}',
    }).statelessTemplate;
    expect(env[ENV.additiveSources]).toBeUndefined();
    expect(envOf(tuned, 'billing-dedup-dev-export-chunk')).toMatchObject({
      [ENV.additiveSources]: 'metering,gcp',
      [ENV.provisionalDriftPercent]: '2.5',
      [ENV.provisionalDriftFloor]: '5',
      [ENV.exportDiffThreshold]: '0.01',
      [ENV.exportCsvSubchunkRows]: '20000',
      [ENV.lateChargePolicy]: 'reject',
      [ENV.totalShards]: '4',
    });
    expect(envOf(tuned, 'billing-dedup-dev-export-planner')).toMatchObject({
      [ENV.exportParquetRowsPerTask]: '100000',
    });
  });

  it('planner IAM: EXPORT# plans, its own dedup items, reads under the prefixes, sends to the chunk queue only', () => {
    const st = policyOf(t, roleIdOf(t, 'billing-dedup-dev-export-planner'));
    const plans = sidOf(st, 'ExportPlans');
    expect(actionsOf(plans).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(importOf(plans.Resource)).toMatch(/LedgerTable.*Arn/);
    expect(plans.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EXPORT#*'] },
    });
    expect(sidOf(st, 'DedupTableAccess').Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['export-deliveries#*'] },
    });
    expect(sidOf(st, 'SendChunkTasks')).toMatchObject({
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-export-chunks').id, 'Arn'] },
    });
    const reads = sidOf(st, 'ReadExportObjects');
    expect(reads.Action).toEqual(['s3:GetObject', 's3:GetObjectVersion']);
    expect(JSON.stringify(reads.Resource)).toMatch(/"\/acme\/\*"/);
    expect(JSON.stringify(reads.Resource)).toMatch(/"\/exports\/globex\.eu\/\*"/);
    expect(sidOf(st, 'DecryptExportObjectsThroughS3')).toMatchObject({
      Action: 'kms:Decrypt',
      Condition: { StringEquals: { 'kms:ViaService': expect.anything() } },
    });
    expect(st.some((x) => actionsOf(x).some((a) => a.startsWith('sns:')))).toBe(false);
    // Its only write to S3 is archiving its batches (test/infra/archive.test.ts).
    const writes = st.filter((x) => actionsOf(x).some((a) => /^s3:(Put|Delete)/.test(a)));
    expect(writes.map((x) => x.Sid)).toEqual(['ArchiveEveryBatch']);
  });

  it('chunk worker IAM: EXPORT# items, account partitions (SNAPSHOT and DRIFT writes, total shards read, closed-period corrections, no Delete), notifications', () => {
    const st = policyOf(t, roleIdOf(t, 'billing-dedup-dev-export-chunk'));
    const executions = sidOf(st, 'ExportExecutions');
    // BatchGetItem: the CURRENT pointers a closed period's statement ranks (the correction pass).
    expect(actionsOf(executions).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(executions.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EXPORT#*'] },
    });
    const snapshots = sidOf(st, 'AccountSnapshots');
    // Query: a superseded provider's stream part in the account-period's total shards (drift pass).
    expect(actionsOf(snapshots).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(snapshots.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TENANT#*'] },
    });
    const dedup = sidOf(st, 'DedupTableAccess');
    expect(actionsOf(dedup).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(dedup.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['export-chunks#*'] },
    });
    expect(sidOf(st, 'PublishDiffNotifications')).toMatchObject({
      Action: 'sns:Publish',
      Resource: { Ref: expect.stringMatching(/^NotificationsTopic/) },
    });
    // It sends only to its own DLQ (poison tasks) and its archive records to the spool, never into a source queue.
    const sends = st.filter((x) => actionsOf(x).includes('sqs:SendMessage'));
    expect(sends.map((x) => x.Resource)).toEqual([
      { 'Fn::GetAtt': [dlqOf(t, 'billing-dedup-dev-export-chunks').id, 'Arn'] },
      { 'Fn::GetAtt': [queueByName(t, 'billing-dedup-dev-archive-spool').id, 'Arn'] },
    ]);
  });

  it('shows the provisional drift of the chunk worker on the operations dashboard, against the threshold', () => {
    const body = JSON.stringify(
      Object.values(resourcesOfType(t, 'AWS::CloudWatch::Dashboard'))[0].Properties?.DashboardBody,
    );
    for (const metric of ['provisionalDriftPercent', 'provisionalDrift', 'provisionalDriftAbove'])
      expect(body).toContain(`\\"${metric}\\"`);
    expect(body).toContain('billing-dedup-dev-export-chunk');
    expect(body).toContain('notified above 1 %');
  });

  it('alarms for both export pipelines', () => {
    for (const stream of ['export-deliveries', 'export-chunks'])
      for (const what of [
        'dlq-not-empty',
        'oldest-message-age',
        'function-errors',
        'function-throttles',
      ])
        t.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `billing-dedup-dev-${stream}-${what}`,
        });
  });
});

describe('export pipeline without sources', () => {
  let t: Template;
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synth();
    t = synthesized.statelessTemplate;
  });

  it('still notifies every manifest of the bucket, so the planner can reject it naming exportSources', () => {
    const rules = rulesOf(t);
    expect(rules).toHaveLength(1);
    expect(rules[0].Filter.Key.FilterRules).toEqual([{ Name: 'suffix', Value: '-Manifest.json' }]);
  });

  it('grants no read of the bucket', () => {
    for (const name of ['billing-dedup-dev-export-planner', 'billing-dedup-dev-export-chunk']) {
      const st = policyOf(t, roleIdOf(t, name)).filter((x) => x.Sid !== 'ArchiveEveryBatch');
      expect(st.some((x) => actionsOf(x).some((a) => a.startsWith('s3:')))).toBe(false);
    }
    for (const stream of ['deliveries', 'chunks'] as const)
      expect(bundledConfigOf(synthesized, stream)).toEqual({ exportSources: [] });
  });
});

describe('an existing export bucket (exportBucketName)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({
      exportBucketName: 'finops-exports',
      exportBucketKeyArn: KEY_ARN,
      exportSources: SOURCES,
    });
  });

  it('uses the named bucket and leaves its policy alone; the created bucket stays, unused, so the exports never change', () => {
    // The stateful stack's own bucket (and its access log bucket and key) exists in every configuration,
    // beside the archive and its key.
    s.statefulTemplate.resourceCountIs('AWS::S3::Bucket', 3);
    s.statefulTemplate.resourceCountIs('AWS::KMS::Key', 4);
    s.statelessTemplate.resourceCountIs('AWS::S3::BucketPolicy', 0);
    expect(JSON.stringify(s.statelessTemplate.toJSON())).not.toMatch(/RefExportBucket/);
  });

  it('notifies from the named bucket, merged with its other notifications (Managed: false)', () => {
    const t = s.statelessTemplate;
    expect(notificationsOf(t).Properties).toMatchObject({
      BucketName: 'finops-exports',
      Managed: false,
    });
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ExportBucketName.Value).toBe('finops-exports');
    expect(envOf(t, 'billing-dedup-dev-export-planner')[ENV.exportBucketName]).toBe(
      'finops-exports',
    );
    const topicAllow = statementsOf(
      onlyResource(t, 'AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: Match.stringLikeRegexp('^ExportDeliveriesTopic') }],
      }).resource,
    ).find((x) => x.Effect === 'Allow');
    expect(topicAllow?.Condition?.ArnEquals).toEqual({
      'aws:SourceArn': [
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::finops-exports']] },
      ],
    });
  });

  it('the functions may decrypt with the configured key, through S3 only', () => {
    const t = s.statelessTemplate;
    for (const name of ['billing-dedup-dev-export-planner', 'billing-dedup-dev-export-chunk']) {
      expect(sidOf(policyOf(t, roleIdOf(t, name)), 'DecryptExportObjectsThroughS3')).toEqual(
        expect.objectContaining({
          Action: 'kms:Decrypt',
          Resource: KEY_ARN,
          Condition: {
            StringEquals: {
              'kms:ViaService': {
                'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
              },
            },
          },
        }),
      );
    }
  });

  it('without exportBucketKeyArn (SSE-S3) no key is granted', () => {
    const t = synth({
      exportBucketName: 'finops-exports',
      exportSources: SOURCES,
    }).statelessTemplate;
    const st = policyOf(t, roleIdOf(t, 'billing-dedup-dev-export-chunk'));
    expect(st.find((x) => x.Sid === 'DecryptExportObjectsThroughS3')).toBeUndefined();
  });
});

describe('export configuration errors name the key and the fix', () => {
  const problemsOf = (values: Record<string, unknown>): string => {
    try {
      resolveConfig(contextFrom(values));
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it.each([
    [
      { provisionalDriftThreshold: '{"percent": "-1", "floor": "1"}' },
      'provisionalDriftThreshold: percent must be an exact decimal ≥ 0',
    ],
    [
      { provisionalDriftThreshold: '{"percent": "1"}' },
      'provisionalDriftThreshold: floor is missing, e.g. {"percent": "1", "floor": "1"}',
    ],
    [
      { provisionalDriftThreshold: '{"ratio": "0.01", "percent": "1", "floor": "1"}' },
      'provisionalDriftThreshold: unknown field(s) ratio',
    ],
    [{ exportSources: '[{"tenant":"acme"' }, 'exportSources: not valid JSON'],
    [
      { exportSources: '{"tenant":"acme"}' },
      'exportSources must be a list of { tenant, prefix, source? }',
    ],
    [
      { exportSources: [{ tenant: 'Acme', prefix: 'acme/' }] },
      'exportSources[0].tenant "Acme" must be a tenant slug as the ledger keeps it',
    ],
    [
      {
        exportSources: [
          { tenant: 'globex', prefix: 'globex/' },
          { tenant: 'acme.corp', prefix: 'acme/' },
        ],
      },
      'exportSources[1].tenant "acme.corp" must be a tenant slug as the ledger keeps it: lower-case a-z, 0-9 and "-"',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme/', source: 'my_cloud' }] },
      'exportSources[0].source "my_cloud" must be a source slug as the ledger keeps it: lower-case a-z, 0-9 and "-"',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme' }] },
      'exportSources[0].prefix must be a key prefix ending in "/"',
    ],
    [
      {
        exportSources: [
          { tenant: 'acme', prefix: 'a/' },
          { tenant: 'globex', prefix: 'a/b/' },
        ],
      },
      'exportSources[1].prefix "a/b/" overlaps exportSources[0].prefix "a/"',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme/', region: 'x' }] },
      'exportSources[0].region is not a known field',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme/', precedence: 'focus' }] },
      'exportSources[0].precedence must be a non-empty list of export names under the prefix',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme/', precedence: ['focus', '/cur'] }] },
      'exportSources[0].precedence must be a non-empty list of export names under the prefix',
    ],
    [
      { exportSources: [{ tenant: 'acme', prefix: 'acme/', precedence: ['focus', 'focus'] }] },
      'exportSources[0].precedence names "focus" twice',
    ],
    [
      {
        exportSources: Array.from({ length: 201 }, (_, i) => ({
          tenant: `tenant-${i}`,
          prefix: `billing/exports/tenant-${i}/`,
        })),
      },
      'exportSources: 201 prefixes, over the 200 a stage takes',
    ],
    [{ exportBucketName: 'Finops_Exports' }, 'exportBucketName: must be an S3 bucket name'],
    [
      { exportBucketKeyArn: 'alias/exports', exportBucketName: 'finops-exports' },
      'exportBucketKeyArn: must be a KMS key ARN',
    ],
    [
      { exportBucketKeyArn: KEY_ARN },
      'exportBucketKeyArn: only applies to an existing bucket; set exportBucketName too',
    ],
    [
      { exportDiffNotifyThreshold: '-1' },
      'exportDiffNotifyThreshold: must be an exact decimal ≥ 0',
    ],
    [
      { exportDiffNotifyThreshold: 'ten' },
      'exportDiffNotifyThreshold: must be an exact decimal ≥ 0',
    ],
    [
      { exportCsvSubchunkRows: '10' },
      'exportCsvSubchunkRows: must be between 100 and 1000000 rows',
    ],
    [
      { exportChunkTimeoutSeconds: '1000' },
      'exportChunkTimeoutSeconds: must be between 60 and 900 seconds',
    ],
    [
      { exportChunkMaxReceiveCount: '2' },
      'exportChunkMaxReceiveCount: must be between 3 and 1000 receives',
    ],
  ])('%j', (values, message) => {
    expect(problemsOf(values)).toContain(message);
  });

  it('accepts the list from -c as JSON text and from cdk.json as JSON', () => {
    const text = resolveConfig(contextFrom({ exportSources: JSON.stringify(SOURCES) }));
    const json = resolveConfig(contextFrom({ exportSources: SOURCES }));
    expect(text.exportSources).toEqual(SOURCES);
    expect(json.exportSources).toEqual(SOURCES);
  });
});
