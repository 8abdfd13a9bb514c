import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * What every data bucket of the stack is: encrypted with its own KMS key (bucket keys on), versioned,
 * TLS 1.2+ only, never public, owned by the bucket owner, and logging its accesses.
 */
export function secureBucketProps(
  encryptionKey: kms.IKey,
  accessLogs: { bucket: s3.IBucket; prefix: string },
): s3.BucketProps {
  return {
    encryption: s3.BucketEncryption.KMS,
    encryptionKey,
    bucketKeyEnabled: true,
    versioned: true,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: accessLogs.bucket,
    serverAccessLogsPrefix: accessLogs.prefix,
  };
}
