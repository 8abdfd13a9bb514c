import { gzipSync } from 'node:zlib';
import type { ArchiveObject, ArchivePort } from '../core/archive';
import type { ObjectStore } from './s3-signed-put';

/** gzip-compressed JSON Lines: one archived record a line. */
export const archiveObjectBody = (object: ArchiveObject): Buffer =>
  gzipSync(object.records.map((record) => `${JSON.stringify(record)}\n`).join(''));

/**
 * The evidence archive in S3: each object put whole, at its deterministic key (a redelivery overwrites
 * it). The put is `SignedS3Put` in the functions (no S3 client in their bundles).
 */
export class S3Archive implements ArchivePort {
  constructor(
    private readonly store: ObjectStore,
    private readonly bucket: string,
  ) {}

  async put(objects: readonly ArchiveObject[]): Promise<void> {
    await Promise.all(
      objects.map((object) =>
        this.store.putObject({
          bucket: this.bucket,
          key: object.key,
          body: archiveObjectBody(object),
          contentType: 'application/gzip',
        }),
      ),
    );
  }
}
