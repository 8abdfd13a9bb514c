import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { ArchivedRecord } from '../core/archive';
import { parseArchiveLines } from '../core/archive-read';

/** Reading the evidence archive (the CLI's replay, the local run's checks): the SDK's S3 client. */

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
