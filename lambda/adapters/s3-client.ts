import { S3Client } from '@aws-sdk/client-s3';

/** Path-style addressing when an S3 endpoint is configured (emulators have no virtual-host buckets). */
export const s3ClientFor = (env: NodeJS.ProcessEnv = process.env): S3Client =>
  new S3Client({ forcePathStyle: Boolean(env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL) });
