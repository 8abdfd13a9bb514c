import { gunzipSync, gzipSync } from 'node:zlib';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { ArchivedRecord, ArchiveObject, ArchivePort } from '../core/archive';
import { parseArchiveLines } from '../core/archive-read';

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

/** The keys of the archived objects under `prefix`, in key order. */
export const archivedKeys = async (
  s3: S3Client,
  bucket: string,
  prefix = '',
): Promise<string[]> => {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((object) => String(object.Key)));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
};

/** One archived object's records (its current version); a line that is not a record throws, naming it. */
export const readArchivedObject = async (
  s3: S3Client,
  bucket: string,
  key: string,
): Promise<ArchivedRecord[]> => {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const bytes = await object.Body!.transformToByteArray();
  return parseArchiveLines(gunzipSync(bytes).toString('utf8'), `s3://${bucket}/${key}`);
};

/** Every record archived under `prefix`. */
export const readArchivedRecords = async (
  s3: S3Client,
  bucket: string,
  prefix: string,
): Promise<ArchivedRecord[]> => {
  const records: ArchivedRecord[] = [];
  for (const key of await archivedKeys(s3, bucket, prefix))
    records.push(...(await readArchivedObject(s3, bucket, key)));
  return records;
};
