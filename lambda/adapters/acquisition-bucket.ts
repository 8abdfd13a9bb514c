/**
 * Our export bucket as an acquisition's target (Azure export copies, Google Cloud billing pages): text
 * objects (data pages, manifests) read back and written whole, and HEAD with the source's version a
 * copy was made from (object metadata). Every provider's writer is this class or extends it.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { AcquisitionBucketPort } from '../core/acquisition/manifest-last';

export const isNotFound = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

export class AcquisitionBucket implements AcquisitionBucketPort {
  /** S3 requests sent so far. */
  requests = 0;

  constructor(
    protected readonly s3: S3Client,
    protected readonly bucket: string,
  ) {}

  /** Size and user metadata of an object; undefined when there is none. */
  protected async headObject(
    key: string,
  ): Promise<{ size: number; metadata: Record<string, string> } | undefined> {
    this.requests++;
    try {
      const response = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(response.ContentLength ?? 0), metadata: response.Metadata ?? {} };
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

  async putText(key: string, text: string, contentType = 'application/json'): Promise<void> {
    this.requests++;
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: text, ContentType: contentType }),
    );
  }
}
