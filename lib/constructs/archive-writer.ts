import { Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import {
  ARCHIVE_OVERSIZE_KEYS,
  ARCHIVE_WRITER_TAG,
  archiveOversizeWriterTagValue,
} from '../../contract/archive';
import { consumerEnvironment } from '../../contract/environment';
import { allowArchiveWrites } from './archive-bucket';
import type { ConsumerFunction } from './consumer-function';

/** The archive a stage's consumers write into (names from the stateful stack). */
export interface ArchiveTarget {
  readonly bucketName: string;
  readonly keyArn: string;
}

/**
 * How a function writes the archive. `all`: puts every object itself (the archiver; the consumers with
 * `archiveDelivery=direct`). `oversize`: sends its records to the spool and may put only `oversize-`
 * objects (the consumers with `archiveDelivery=spool`).
 */
export type ArchiveWrites =
  { readonly keys: 'all' } | { readonly keys: 'oversize'; readonly spool: sqs.IQueue };

/** The put resource as cdk-nag prints it, per kind of writer. */
const NAG_RESOURCE = {
  all: '/^Resource::arn:<AWS::Partition>:s3:::<ArchiveBucket[0-9A-F]+>\\/\\*$/',
  oversize: '/^Resource::arn:<AWS::Partition>:s3:::<ArchiveBucket[0-9A-F]+>\\/\\*\\/oversize-\\*$/',
};

/**
 * A function that archives: told the bucket (and the spool), allowed to put the keys it writes (nothing
 * else on the bucket), and tagged as an archive writer of its stage (the bucket policy refuses the rest).
 */
export function makeArchiveWriter(
  consumer: ConsumerFunction,
  archive: ArchiveTarget,
  stage: string,
  writes: ArchiveWrites = { keys: 'all' },
): void {
  const spool = writes.keys === 'oversize' ? writes.spool : undefined;
  for (const [name, value] of Object.entries(
    consumerEnvironment({
      archiveBucketName: archive.bucketName,
      ...(spool ? { archiveSpoolUrl: spool.queueUrl } : {}),
    }),
  ))
    consumer.fn.addEnvironment(name, value);
  const keys = spool ? ARCHIVE_OVERSIZE_KEYS : '*';
  allowArchiveWrites(consumer.role, archive, keys);
  Tags.of(consumer.role).add(
    ARCHIVE_WRITER_TAG,
    spool ? archiveOversizeWriterTagValue(stage) : stage,
  );
  if (spool)
    consumer.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SpoolEveryBatch',
        actions: ['sqs:SendMessage'],
        resources: [spool.queueArn],
      }),
    );
  NagSuppressions.addResourceSuppressions(
    consumer.role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: spool
          ? 'A record too large for a spool message is put as <partition>/oversize-<hash of its message ids>, ' +
            'so the consumer needs s3:PutObject on those keys of the archive bucket, and nothing else on it.'
          : 'Archive object keys are derived from each batch (stream, tenant, period, day, hash of the message ' +
            'ids), so the writer needs s3:PutObject on every key of the archive bucket, and nothing else on it.',
        appliesTo: [{ regex: NAG_RESOURCE[writes.keys] }],
      },
    ],
    true,
  );
}
