/**
 * Our export bucket as the Azure copier's target: the acquisitions' bucket writer
 * (`acquisition-bucket.ts`), plus HEAD with the Azure ETag a copy was made from (object metadata
 * `azure-etag`) and a blob streamed from the container into one PUT of its known length.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ExportBucketPort, TargetObject } from '../core/acquisition/azure-export-copy';
import { AcquisitionBucket } from './acquisition-bucket';
import type { AzureBlobContainer } from './azure-blob-container';

const SOURCE_ETAG = 'azure-etag';

export class AzureExportBucket extends AcquisitionBucket implements ExportBucketPort {
  constructor(
    s3: S3Client,
    bucket: string,
    private readonly container: AzureBlobContainer,
  ) {
    super(s3, bucket);
  }

  async head(key: string): Promise<TargetObject | undefined> {
    const found = await this.headObject(key);
    if (found === undefined) return undefined;
    const sourceEtag = found.metadata[SOURCE_ETAG];
    return { size: found.size, ...(sourceEtag === undefined ? {} : { sourceEtag }) };
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
