import { Match, Template } from 'aws-cdk-lib/assertions';
import { ARCHIVE_WRITER_TAG } from '../../contract/archive';
import { ENV } from '../../contract/environment';
import {
  Statement,
  Synthesized,
  onlyResource,
  resourcesOfType,
  statementsOf,
  synth,
} from './helpers';

const archiveBucket = (t: Template) =>
  onlyResource(t, 'AWS::S3::Bucket', {
    LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'archive-bucket/' }),
  });

const lifecycleRules = (t: Template) =>
  (
    archiveBucket(t).resource.Properties?.LifecycleConfiguration as {
      Rules: Record<string, unknown>[];
    }
  ).Rules;

/** Every statement of the stateless stack's role policies that names the archive bucket. */
const archiveStatements = (t: Template): { policy: string; roles: unknown; st: Statement }[] =>
  Object.entries(resourcesOfType(t, 'AWS::IAM::Policy')).flatMap(([policy, resource]) =>
    statementsOf(resource)
      .filter((st) => JSON.stringify(st.Resource).includes('ArchiveBucket'))
      .map((st) => ({ policy, roles: resource.Properties?.Roles, st })),
  );

type Resource = ReturnType<typeof resourcesOfType>[string];

const tagOf = (role: Resource): string | undefined =>
  (role.Properties?.Tags as { Key: string; Value: string }[] | undefined)?.find(
    (tag) => tag.Key === ARCHIVE_WRITER_TAG,
  )?.Value;

/** Roles tagged as archive writers, by logical id. */
const archiveWriters = (t: Template): [string, Resource][] =>
  Object.entries(resourcesOfType(t, 'AWS::IAM::Role')).filter(
    ([, role]) => tagOf(role) !== undefined,
  );

const functionsWith = (t: Template, variable: string) =>
  Object.values(resourcesOfType(t, 'AWS::Lambda::Function')).filter(
    (fn) =>
      (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables?.[variable] !== undefined,
  );

/** The key pattern after the bucket ARN in a statement's `Fn::Join` resource (`*`, `*\/oversize-*`). */
const keyPatterns = (resources: unknown): string[] =>
  (Array.isArray(resources) ? resources : [resources]).map((resource) => {
    const parts = (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    return String(parts[parts.length - 1]).replace(/^\//, '');
  });

const matches = (pattern: string, key: string): boolean =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(key);

/** Whether the bucket policy's Deny statements refuse a put of `key` by a role with this writer tag. */
const putDenied = (policy: Statement[], tag: string | undefined, key: string): boolean =>
  policy.some((statement) => {
    if (statement.Effect !== 'Deny' || statement.Action !== 's3:PutObject') return false;
    const inScope = statement.Resource
      ? keyPatterns(statement.Resource).some((pattern) => matches(pattern, key))
      : !keyPatterns(statement.NotResource).some((pattern) => matches(pattern, key));
    const allowed = (statement.Condition as { StringNotEquals: Record<string, string | string[]> })
      .StringNotEquals[`aws:PrincipalTag/${ARCHIVE_WRITER_TAG}`];
    return inScope && !(tag !== undefined && [allowed].flat().includes(tag));
  });

describe('evidence archive bucket (defaults)', () => {
  let s: Synthesized;
  let t: Template;
  beforeAll(() => {
    s = synth();
    t = s.statefulTemplate;
  });

  it('SSE-KMS with its own rotating key, versioned, public access blocked, ACLs off, logged, retained', () => {
    const { resource } = archiveBucket(t);
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.Properties).toEqual(
      expect.objectContaining({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            {
              BucketKeyEnabled: true,
              ServerSideEncryptionByDefault: {
                SSEAlgorithm: 'aws:kms',
                KMSMasterKeyID: { 'Fn::GetAtt': [expect.stringMatching(/^ArchiveKey/), 'Arn'] },
              },
            },
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    );
    expect(resource.Properties?.ObjectLockEnabled).toBeUndefined();
    t.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      Description: Match.stringLikeRegexp('evidence archive'),
    });
    t.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/billing-dedup-dev-data-archive',
    });
  });

  it('Standard-IA after 30 days, Glacier Instant Retrieval after 90, every version expires after 7 years', () => {
    expect(lifecycleRules(t)).toContainEqual(
      expect.objectContaining({
        Status: 'Enabled',
        Transitions: [
          { StorageClass: 'STANDARD_IA', TransitionInDays: 30 },
          { StorageClass: 'GLACIER_IR', TransitionInDays: 90 },
        ],
        ExpirationInDays: 2557,
        NoncurrentVersionExpiration: { NoncurrentDays: 2557 },
      }),
    );
  });

  it('bucket policy: TLS only, no delete for anyone, puts only from the stage’s archive writers', () => {
    const statements = statementsOf(
      onlyResource(t, 'AWS::S3::BucketPolicy', {
        Bucket: { Ref: Match.stringLikeRegexp('^ArchiveBucket') },
      }).resource,
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const bySid = (sid: string) => statements.find((st) => st.Sid === sid);
    expect(bySid('DenyEveryDelete')).toEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: expect.arrayContaining(['s3:DeleteObject', 's3:DeleteObjectVersion']),
      }),
    );
    expect(bySid('DenyEveryDelete')?.Condition).toBeUndefined();
    expect(bySid('DenyPutButArchiveWriters')).toEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:PutObject',
        Condition: { StringNotEquals: { [`aws:PrincipalTag/${ARCHIVE_WRITER_TAG}`]: 'dev' } },
      }),
    );
    // Nothing is allowed by the bucket policy: writers get s3:PutObject from their own role only.
    expect(statements.filter((st) => st.Effect === 'Allow')).toEqual([]);
  });

  it('who may put what: the archiver every key, the consumers (tagged oversize writers) only oversize- keys, nobody else', () => {
    const policy = statementsOf(
      onlyResource(t, 'AWS::S3::BucketPolicy', {
        Bucket: { Ref: Match.stringLikeRegexp('^ArchiveBucket') },
      }).resource,
    );
    const archiverKey = 'cost-events/tenant=acme/period=2026-11/day=2026-11-02/spool-0123.jsonl.gz';
    const oversizeKey =
      'cost-events/tenant=acme/period=2026-11/day=2026-11-02/oversize-0123.jsonl.gz';
    expect(putDenied(policy, 'dev', archiverKey)).toBe(false);
    expect(putDenied(policy, 'dev', oversizeKey)).toBe(false);
    expect(putDenied(policy, 'dev:oversize', oversizeKey)).toBe(false);
    expect(putDenied(policy, 'dev:oversize', archiverKey)).toBe(true);
    expect(putDenied(policy, 'dev:oversize', 'cost-events/x.jsonl.gz')).toBe(true);
    expect(putDenied(policy, undefined, oversizeKey)).toBe(true);
    expect(putDenied(policy, 'prod', archiverKey)).toBe(true);
    expect(putDenied(policy, 'prod:oversize', oversizeKey)).toBe(true);
  });

  it('spool mode (default): only the archiver puts every key; the four consumers send to the spool and put oversize- keys only', () => {
    const st = s.statelessTemplate;
    const writers = archiveWriters(st);
    expect(writers.map(([, role]) => tagOf(role)).sort()).toEqual([
      'dev',
      'dev:oversize',
      'dev:oversize',
      'dev:oversize',
      'dev:oversize',
    ]);
    const [archiver] = writers.filter(([, role]) => tagOf(role) === 'dev');
    expect(JSON.stringify(archiver[1].Properties?.Description)).toContain('archiver');
    const grants = archiveStatements(st);
    expect(grants).toHaveLength(5);
    for (const { st: statement, roles: granted } of grants) {
      expect(statement.Effect).toBe('Allow');
      expect(statement.Action).toBe('s3:PutObject');
      const [roleRef] = granted as { Ref: string }[];
      const keys = JSON.stringify(statement.Resource);
      if (roleRef.Ref === archiver[0]) expect(keys).toMatch(/\/\*"\]\]\}$/);
      else expect(keys).toContain('/*/oversize-*');
    }
    const spoolSends = Object.values(resourcesOfType(st, 'AWS::IAM::Policy')).flatMap((policy) =>
      statementsOf(policy).filter((statement) => statement.Sid === 'SpoolEveryBatch'),
    );
    expect(spoolSends).toHaveLength(4);
    for (const statement of spoolSends) {
      expect(statement.Action).toBe('sqs:SendMessage');
      expect(JSON.stringify(statement.Resource)).toMatch(/ArchiveSpoolPipelineQueue/);
    }
    expect(functionsWith(st, ENV.archiveBucketName)).toHaveLength(5);
    expect(functionsWith(st, ENV.archiveSpoolUrl)).toHaveLength(4);
    // No role of the app may delete from the archive (the bucket policy would refuse it anyway).
    const deletes = Object.values(resourcesOfType(st, 'AWS::IAM::Policy')).flatMap((policy) =>
      statementsOf(policy).filter((statement) =>
        /s3:(Delete|\*)/.test(JSON.stringify(statement.Action)),
      ),
    );
    expect(deletes).toEqual([]);
  });

  it('the spool: 256 KiB messages, its DLQ, the archiver gathering 1,000 messages or 60 s, only the consumers may send', () => {
    const st = s.statelessTemplate;
    st.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'billing-dedup-dev-archive-spool',
      MaximumMessageSize: 262144,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: Match.anyValue() }),
    });
    st.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^ArchiveSpoolPipelineConsumer') },
      BatchSize: 1000,
      MaximumBatchingWindowInSeconds: 60,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    st.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-archive-spool-dlq-not-empty',
    });
    const spoolPolicy = Object.values(resourcesOfType(st, 'AWS::SQS::QueuePolicy')).find((policy) =>
      JSON.stringify(policy.Properties?.Queues).includes('ArchiveSpoolPipelineQueue'),
    );
    const deny = statementsOf(spoolPolicy!).find(
      (statement) => statement.Sid === 'DenySendExceptPipeline',
    );
    const senders = JSON.stringify(deny?.Condition);
    for (const role of ['CostEvents', 'BudgetAlerts', 'ExportDeliveries', 'ExportChunks'])
      expect(senders).toContain(`${role}PipelineConsumerRole`);
  });
});

describe('evidence archive, archiveDelivery=direct', () => {
  it('the consumers put every key themselves and nothing is spooled; the archiver stays to drain the spool', () => {
    const st = synth({ archiveDelivery: 'direct' }).statelessTemplate;
    expect(archiveWriters(st).map(([, role]) => tagOf(role))).toEqual([
      'dev',
      'dev',
      'dev',
      'dev',
      'dev',
    ]);
    for (const { st: statement } of archiveStatements(st))
      expect(JSON.stringify(statement.Resource)).not.toContain('oversize');
    expect(functionsWith(st, ENV.archiveSpoolUrl)).toEqual([]);
    const spoolSends = Object.values(resourcesOfType(st, 'AWS::IAM::Policy')).flatMap((policy) =>
      statementsOf(policy).filter((statement) => statement.Sid === 'SpoolEveryBatch'),
    );
    expect(spoolSends).toEqual([]);
    st.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^ArchiveSpoolPipelineConsumer') },
    });
  });

  it('refuses an unknown mode', () => {
    expect(() => synth({ archiveDelivery: 'firehose' })).toThrow(/archiveDelivery/);
  });
});

describe('evidence archive configuration', () => {
  it('transitions and retention follow the configuration; Object Lock in compliance mode on request', () => {
    const t = synth({
      archiveRetentionDays: '3650',
      archiveInfrequentAccessAfterDays: '60',
      archiveGlacierInstantAfterDays: '180',
      archiveObjectLock: true,
    }).statefulTemplate;
    expect(lifecycleRules(t)).toContainEqual(
      expect.objectContaining({
        Transitions: [
          { StorageClass: 'STANDARD_IA', TransitionInDays: 60 },
          { StorageClass: 'GLACIER_IR', TransitionInDays: 180 },
        ],
        ExpirationInDays: 3650,
        NoncurrentVersionExpiration: { NoncurrentDays: 3650 },
      }),
    );
    expect(archiveBucket(t).resource.Properties).toEqual(
      expect.objectContaining({
        ObjectLockEnabled: true,
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 3650 } },
        },
      }),
    );
  });

  it('refuses transitions S3 would refuse, naming the value to use', () => {
    expect(() =>
      synth({ archiveGlacierInstantAfterDays: '95', archiveInfrequentAccessAfterDays: '70' }),
    ).toThrow(
      /archiveGlacierInstantAfterDays: 95 is less than 30 days after archiveInfrequentAccessAfterDays \(70\).*set it to 100 or more/,
    );
    expect(() => synth({ archiveRetentionDays: '90', exportVersionRetentionDays: '90' })).toThrow(
      /archiveRetentionDays: 90 days does not outlast the last transition/,
    );
  });
});
