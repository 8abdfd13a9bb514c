import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { secureBucketProps } from './secure-bucket';

/**
 * The principals AWS Data Exports delivers with and the resources it delivers for (AWS Data Exports
 * user guide, "Setting up an Amazon S3 bucket for data exports"). Data Exports is a global service
 * homed in us-east-1, whatever the bucket's region.
 */
export const DATA_EXPORTS_PRINCIPALS = [
  'billingreports.amazonaws.com',
  'bcm-data-exports.amazonaws.com',
] as const;

export const dataExportsSourceArns = (partition: string, account: string): string[] => [
  `arn:${partition}:cur:us-east-1:${account}:definition/*`,
  `arn:${partition}:bcm-data-exports:us-east-1:${account}:export/*`,
];

/** Conditions scoping a Data Exports delivery to exports of this account. */
const dataExportsConditions = () => ({
  StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
  ArnLike: { 'aws:SourceArn': dataExportsSourceArns(Aws.PARTITION, Aws.ACCOUNT_ID) },
});

export interface ExportBucketProps {
  readonly stage: string;
  /** Alias of the bucket's key. */
  readonly keyAlias: string;
  /** How long a replaced or deleted object version is kept. */
  readonly noncurrentVersionRetention: Duration;
  /** How long the server access logs are kept. */
  readonly accessLogRetention: Duration;
}

export interface ExportBucketResources {
  readonly bucket: s3.Bucket;
  readonly key: kms.Key;
  readonly accessLogBucket: s3.Bucket;
}

/**
 * The bucket AWS Data Exports (and our CLI, for other providers) deliver FOCUS files into: SSE-KMS with
 * its own key, versioned (an overwriting export replaces its files; the previous versions expire after
 * a while), TLS only, no public access, no ACLs, server access logs into a log bucket, retained.
 * Its policy lets Data Exports deliver for this account only. Created at the stack's top level
 * (logical ids `ExportBucket…`, `ExportKey…`, `ExportAccessLogBucket…`).
 */
export function createExportBucket(stack: Stack, props: ExportBucketProps): ExportBucketResources {
  const key = new kms.Key(stack, 'ExportKey', {
    alias: props.keyAlias,
    description: `billing-dedup ${props.stage}: encrypts the billing export files`,
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // S3 asks KMS for a data key on behalf of the writer: Data Exports' delivery needs the key too.
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowDataExportsDelivery',
      principals: DATA_EXPORTS_PRINCIPALS.map((service) => new iam.ServicePrincipal(service)),
      actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
      resources: ['*'],
      conditions: dataExportsConditions(),
    }),
  );

  // Server access logs only support SSE-S3 on their target bucket.
  const accessLogBucket = new s3.Bucket(stack, 'ExportAccessLogBucket', {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ id: 'expire-access-logs', expiration: props.accessLogRetention }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  NagSuppressions.addResourceSuppressions(accessLogBucket, [
    {
      id: 'AwsSolutions-S1',
      reason:
        'This is the server access log bucket of the export bucket; logging its own accesses into itself ' +
        'would log every log delivery, and into another bucket only moves the finding one bucket further.',
    },
  ]);

  const bucket = new s3.Bucket(stack, 'ExportBucket', {
    ...secureBucketProps(key, { bucket: accessLogBucket, prefix: 'export-bucket/' }),
    lifecycleRules: [
      {
        id: 'expire-replaced-versions',
        noncurrentVersionExpiration: props.noncurrentVersionRetention,
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      },
      { id: 'remove-expired-delete-markers', expiredObjectDeleteMarker: true },
    ],
    removalPolicy: RemovalPolicy.RETAIN,
  });

  // AWS's documented delivery policy, with aws:SourceAccount compared exactly.
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowDataExportsDelivery',
      principals: DATA_EXPORTS_PRINCIPALS.map((service) => new iam.ServicePrincipal(service)),
      actions: ['s3:PutObject', 's3:GetBucketPolicy'],
      resources: [bucket.bucketArn, bucket.arnForObjects('*')],
      conditions: dataExportsConditions(),
    }),
  );
  return { bucket, key, accessLogBucket };
}
