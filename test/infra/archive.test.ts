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

  it('the four consumers are the archive writers: tagged, told the bucket, allowed only s3:PutObject', () => {
    const st = s.statelessTemplate;
    const roles = Object.entries(resourcesOfType(st, 'AWS::IAM::Role')).filter(([, role]) =>
      JSON.stringify(role.Properties?.Tags ?? []).includes(ARCHIVE_WRITER_TAG),
    );
    expect(roles).toHaveLength(4);
    for (const [, role] of roles)
      expect(role.Properties?.Tags).toContainEqual({ Key: ARCHIVE_WRITER_TAG, Value: 'dev' });

    const grants = archiveStatements(st);
    expect(grants).toHaveLength(4);
    for (const { st: statement, roles: granted } of grants) {
      expect(statement.Effect).toBe('Allow');
      expect(statement.Action).toBe('s3:PutObject');
      expect(roles.map(([id]) => ({ Ref: id }))).toContainEqual((granted as unknown[])[0]);
    }
    const functions = Object.values(resourcesOfType(st, 'AWS::Lambda::Function')).filter(
      (fn) =>
        (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables?.[ENV.archiveBucketName] !== undefined,
    );
    expect(functions).toHaveLength(4);
    // No role of the app may delete from the archive (the bucket policy would refuse it anyway).
    const deletes = Object.values(resourcesOfType(st, 'AWS::IAM::Policy')).flatMap((policy) =>
      statementsOf(policy).filter((statement) =>
        /s3:(Delete|\*)/.test(JSON.stringify(statement.Action)),
      ),
    );
    expect(deletes).toEqual([]);
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
