/**
 * Our export bucket as the Azure copier's target: HEAD with the Azure ETag a copy was made from
 * (object metadata `azure-etag`), text objects (manifests), and a blob streamed from the container into
 * one PUT of its known length.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { ExportBucketPort, TargetObject } from '../core/acquisition/azure-export-copy';
import type { AzureBlobContainer } from './azure-blob-container';

const SOURCE_ETAG = 'azure-etag';

const isNotFound = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

export class AzureExportBucket implements ExportBucketPort {
  /** S3 requests sent so far. */
  requests = 0;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly container: AzureBlobContainer,
  ) {}

  async head(key: string): Promise<TargetObject | undefined> {
    this.requests++;
    try {
      const response = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      const sourceEtag = response.Metadata?.[SOURCE_ETAG];
      return {
        size: Number(response.ContentLength ?? 0),
        ...(sourceEtag === undefined ? {} : { sourceEtag }),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async readText(key: string): Promise<string | undefined> {
    this.requests++;
    try {
      const response = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await (response.Body as { transformToString(): Promise<string> }).transformToString();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async putText(key: string, text: string): Promise<void> {
    this.requests++;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: text,
        ContentType: 'application/json',
      }),
    );
  }

  async copyBlob(blob: { name: string; size: number; etag: string }, key: string): Promise<void> {
    const body = await this.container.open(blob.name, blob.etag);
    this.requests++;
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentLength: blob.size,
          Metadata: { [SOURCE_ETAG]: blob.etag },
        }),
      );
    } finally {
      body.destroy();
    }
  }
}
