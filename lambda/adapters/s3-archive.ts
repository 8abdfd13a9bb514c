import { gzipSync } from 'node:zlib';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ArchiveObject, ArchivePort } from '../core/archive';

/** gzip-compressed JSON Lines: one archived record a line. */
export const archiveObjectBody = (object: ArchiveObject): Buffer =>
  gzipSync(object.records.map((record) => `${JSON.stringify(record)}\n`).join(''));

/** The evidence archive in S3: each object put whole, at its deterministic key (a redelivery overwrites it). */
export class S3Archive implements ArchivePort {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(objects: readonly ArchiveObject[]): Promise<void> {
    await Promise.all(
      objects.map((object) =>
        this.s3.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: object.key,
            Body: archiveObjectBody(object),
            ContentType: 'application/gzip',
          }),
        ),
      ),
    );
  }
}
