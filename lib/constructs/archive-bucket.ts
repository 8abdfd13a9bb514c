import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import {
  ARCHIVE_OVERSIZE_KEYS,
  ARCHIVE_WRITER_TAG,
  archiveOversizeWriterTagValue,
} from '../../contract/archive';
import { secureBucketProps } from './secure-bucket';

export interface ArchiveBucketProps {
  readonly stage: string;
  /** Alias of the bucket's key. */
  readonly keyAlias: string;
  /** How long an archived object (and every replaced version of it) is kept. */
  readonly retention: Duration;
  readonly infrequentAccessAfter: Duration;
  readonly glacierInstantAfter: Duration;
  /** Object Lock in compliance mode, every object locked for `retention`. */
  readonly objectLock: boolean;
  /** Where the server access logs go (the export bucket's log bucket). */
  readonly accessLogBucket: s3.IBucket;
}

export interface ArchiveBucketResources {
  readonly bucket: s3.Bucket;
  readonly key: kms.Key;
}

/** Every way an object or one of its versions can be removed or its lock weakened. */
export const ARCHIVE_DENIED_ACTIONS = [
  's3:DeleteObject',
  's3:DeleteObjectVersion',
  's3:PutObjectRetention',
  's3:BypassGovernanceRetention',
  's3:PutObjectLegalHold',
];

/**
 * The evidence archive: every message every consumer received, as received, with its outcome
 * (docs/architecture.md "Evidence archive"). SSE-KMS with its own key, versioned (a redelivered batch
 * overwrites its object; the replaced version is kept as long as the current one), TLS only, no public
 * access, no ACLs, access logs, retained; Standard-IA, then Glacier Instant Retrieval, then expiry.
 * Its policy refuses every delete to everyone (only the lifecycle removes objects) and every put to any
 * principal but the stage's archive writers (roles tagged `ARCHIVE_WRITER_TAG` = stage: the archiver,
 * and the consumers with `archiveDelivery=direct`); roles tagged as oversize writers (the consumers with
 * `archiveDelivery=spool`) may put `oversize-` objects only.
 */
export function createArchiveBucket(
  stack: Stack,
  props: ArchiveBucketProps,
): ArchiveBucketResources {
  const key = new kms.Key(stack, 'ArchiveKey', {
    alias: props.keyAlias,
    description: `billing-dedup ${props.stage}: encrypts the evidence archive`,
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const bucket = new s3.Bucket(stack, 'ArchiveBucket', {
    ...secureBucketProps(key, { bucket: props.accessLogBucket, prefix: 'archive-bucket/' }),
    ...(props.objectLock
      ? { objectLockDefaultRetention: s3.ObjectLockRetention.compliance(props.retention) }
      : {}),
    lifecycleRules: [
      {
        id: 'archive-tiers-and-retention',
        transitions: [
          {
            storageClass: s3.StorageClass.INFREQUENT_ACCESS,
            transitionAfter: props.infrequentAccessAfter,
          },
          {
            storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL,
            transitionAfter: props.glacierInstantAfter,
          },
        ],
        expiration: props.retention,
        noncurrentVersionExpiration: props.retention,
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      },
      { id: 'remove-expired-delete-markers', expiredObjectDeleteMarker: true },
    ],
    removalPolicy: RemovalPolicy.RETAIN,
  });

  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'DenyEveryDelete',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ARCHIVE_DENIED_ACTIONS,
      resources: [bucket.arnForObjects('*')],
    }),
  );
  const writerTag = `aws:PrincipalTag/${ARCHIVE_WRITER_TAG}`;
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'DenyPutButArchiveWriters',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      notResources: [bucket.arnForObjects(ARCHIVE_OVERSIZE_KEYS)],
      conditions: { StringNotEquals: { [writerTag]: props.stage } },
    }),
  );
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'DenyOversizePutButArchiveWriters',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects(ARCHIVE_OVERSIZE_KEYS)],
      conditions: {
        StringNotEquals: {
          [writerTag]: [props.stage, archiveOversizeWriterTagValue(props.stage)],
        },
      },
    }),
  );
  return { bucket, key };
}

/**
 * The one thing an archive writer may do: put objects (every key, or only `keys`), its key used only
 * through S3 in this region.
 */
export function allowArchiveWrites(
  role: iam.IRole,
  archive: { bucketName: string; keyArn: string },
  keys = '*',
): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ArchiveEveryBatch',
      actions: ['s3:PutObject'],
      resources: [`arn:${Aws.PARTITION}:s3:::${archive.bucketName}/${keys}`],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'UseArchiveKeyThroughS3',
      actions: ['kms:GenerateDataKey'],
      resources: [archive.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
    }),
  );
}
