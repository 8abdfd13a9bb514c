import { Tags } from 'aws-cdk-lib';
import { NagSuppressions } from 'cdk-nag';
import { ARCHIVE_WRITER_TAG } from '../../contract/archive';
import { consumerEnvironment } from '../../contract/environment';
import { allowArchiveWrites } from './archive-bucket';
import type { ConsumerFunction } from './consumer-function';

/** The archive a stage's consumers write into (names from the stateful stack). */
export interface ArchiveTarget {
  readonly bucketName: string;
  readonly keyArn: string;
}

/**
 * A consumer that archives every batch before acknowledging it: told the bucket, allowed to put
 * (nothing else), and tagged as an archive writer of its stage (the bucket policy refuses the rest).
 */
export function makeArchiveWriter(
  consumer: ConsumerFunction,
  archive: ArchiveTarget,
  stage: string,
): void {
  for (const [name, value] of Object.entries(
    consumerEnvironment({ archiveBucketName: archive.bucketName }),
  ))
    consumer.fn.addEnvironment(name, value);
  allowArchiveWrites(consumer.role, archive);
  Tags.of(consumer.role).add(ARCHIVE_WRITER_TAG, stage);
  NagSuppressions.addResourceSuppressions(
    consumer.role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Archive object keys are derived from each batch (stream, tenant, period, day, hash of the message ' +
          'ids), so the writer needs s3:PutObject on every key of the archive bucket, and nothing else on it.',
        appliesTo: [
          { regex: '/^Resource::arn:<AWS::Partition>:s3:::<ArchiveBucket[0-9A-F]+>\\/\\*$/' },
        ],
      },
    ],
    true,
  );
}
