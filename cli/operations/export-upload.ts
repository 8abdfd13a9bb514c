/**
 * `export put`: export files → one execution of an export, in the layout AWS delivers that format in:
 * FOCUS and CUR 2.0 (and the legacy CUR's Parquet) in the AWS Data Exports layout; a legacy CUR CSV
 * (`lineItem/*` columns) as a legacy CUR assembly (`legacy-cur-manifest.ts`: the files in the
 * assembly's folder, its manifest in the assembly folder and then in the period folder). Data files
 * first, the manifests last: a manifest's object-created event is what starts the pipeline, so it must
 * never name a file that is not there yet.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { recognizeColumnFormat } from '../../lambda/core/exports/column-format';
import { legacyCurManifestFor } from '../../lambda/core/exports/legacy-cur-manifest';
import { manifestFor, type ManifestSpec } from '../../lambda/core/exports/manifest';
import { contentTypeOf, manifestColumns, type ExportFile } from './export-files';

export interface ExportTarget {
  bucket: string;
  /** Without leading or trailing `/`. */
  prefix: string;
  exportName: string;
  period: string;
  executionId: string;
}

export interface UploadResult {
  manifestKey: string;
  manifestUri: string;
  dataFileKeys: string[];
  bytes: number;
}

/** The tenant's default export prefix (the CDK export sources use the same default). */
export const defaultExportPrefix = (tenant: string): string => `exports/${tenant}`;

export const DEFAULT_EXPORT_NAME = 'focus';

/** `20261130T094912047Z-1a2b3c4d`: sorts by creation time, unique without coordination. */
export const newExecutionId = (now: number): string =>
  `${new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '')}-${randomBytes(4).toString('hex')}`;

/** S3's smallest part (except the last); larger files go up in parts of `partBytes`. */
export const MIN_PART_BYTES = 5 * 1024 ** 2;
const DEFAULT_PART_BYTES = 16 * 1024 ** 2;
const MAX_PARTS = 10_000;

export interface UploadOptions {
  /** Bytes per multipart part (default 16 MiB; at least 5 MiB; raised so a file fits 10,000 parts). */
  partBytes?: number;
  /** Receives the bytes sent so far, after each part. */
  onBytes?: (sent: number) => void;
}

const readPart = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new Error(`the file changed while it was being uploaded`);
  return buffer;
};

/**
 * One file as one object: a single PUT up to the part size, else a multipart upload read part by part
 * (one part in memory), aborted on failure so no orphaned parts are left (they would be billed).
 */
const uploadFile = async (
  s3: S3Client,
  bucket: string,
  key: string,
  file: ExportFile,
  partBytes: number,
  onPart: (bytes: number) => void,
): Promise<void> => {
  const contentType = contentTypeOf(file.format);
  const handle = await open(file.path);
  try {
    if (file.size <= partBytes) {
      const body = await readPart(handle, 0, file.size);
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }),
      );
      onPart(file.size);
      return;
    }
    const size = Math.max(partBytes, Math.ceil(file.size / MAX_PARTS));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
    );
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let position = 0; position < file.size; position += size) {
        const length = Math.min(size, file.size - position);
        const PartNumber = parts.length + 1;
        const { ETag } = await s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId,
            PartNumber,
            Body: await readPart(handle, position, length),
          }),
        );
        parts.push({ ETag: String(ETag), PartNumber });
        onPart(length);
      }
      await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw error;
    }
  } finally {
    await handle.close();
  }
};

/** Uploads the files, then the manifest. */
export const uploadExport = async (
  s3: S3Client,
  target: ExportTarget,
  files: readonly ExportFile[],
  options: UploadOptions = {},
): Promise<UploadResult> => {
  const partBytes = Math.max(MIN_PART_BYTES, options.partBytes ?? DEFAULT_PART_BYTES);
  const spec: ManifestSpec = {
    bucket: target.bucket,
    prefix: target.prefix,
    exportName: target.exportName,
    billingPeriod: target.period,
    executionId: target.executionId,
    columns: manifestColumns(files),
    dataFileNames: files.map((file) => file.name),
  };
  const legacy = recognizeColumnFormat(manifestColumns(files)) === 'cur-legacy-csv';
  const manifest = legacy ? legacyCurManifestFor(spec) : manifestFor(spec);
  let sent = 0;
  for (const [index, file] of files.entries()) {
    await uploadFile(s3, target.bucket, manifest.dataFileKeys[index], file, partBytes, (bytes) => {
      sent += bytes;
      options.onBytes?.(sent);
    });
  }
  const manifestKeys =
    'assemblyManifestKey' in manifest
      ? [manifest.assemblyManifestKey, manifest.manifestKey]
      : [manifest.manifestKey];
  for (const key of manifestKeys) {
    await s3.send(
      new PutObjectCommand({
        Bucket: target.bucket,
        Key: key,
        Body: manifest.json,
        ContentType: 'application/json',
      }),
    );
  }
  return {
    manifestKey: manifest.manifestKey,
    manifestUri: manifest.manifestUri,
    dataFileKeys: manifest.dataFileKeys,
    bytes: sent,
  };
};
