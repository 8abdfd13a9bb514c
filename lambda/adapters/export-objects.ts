/**
 * The export bucket as the planner and the chunk worker read it: manifests as text, data files' sizes
 * and Parquet row groups, and a task's rows (CSV streamed from the cursor, Parquet by ranged reads).
 */
import type { Readable } from 'node:stream';
import { fail } from '../core/errors';
import { readDataStatus } from '../core/exports/data-status';
import type { DataFile } from '../core/exports/manifest';
import type { ManifestObjectsPort } from '../core/exports/plan-delivery';
import type { ExportTask, FileFacts, FilePin } from '../core/exports/plan';
import { readCsvRows } from '../core/exports/readers/csv';
import {
  parquetRowSource,
  readParquetFile,
  type ParquetRowSource,
} from '../core/exports/readers/parquet';
import type { ExportRow } from '../core/exports/rows';
import { ObjectChangedError, s3AsyncBuffer, VersionGoneError, type S3Objects } from './s3-objects';

/** A manifest is a small JSON document; anything bigger is not one. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

const isMissing = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

const pinOf = (version: { eTag: string; versionId?: string }): FilePin => ({
  ...(version.versionId ? { versionId: version.versionId } : {}),
  eTag: version.eTag,
});

const readPinOf = (pin: FilePin | undefined) =>
  pin ? { ifMatch: pin.eTag, ...(pin.versionId ? { versionId: pin.versionId } : {}) } : {};

/** The planned version of a task's file cannot be read: the execution cannot be the snapshot it was. */
const pinLost = (task: ExportTask, error: unknown): never => {
  const planned = task.pin?.versionId
    ? `version ${task.pin.versionId}`
    : `ETag ${task.pin?.eTag ?? '(none)'}`;
  return fail(
    'invalid-field',
    task.objectKey,
    error instanceof VersionGoneError
      ? `the data file's planned ${planned} no longer exists (deleted or expired since planning)`
      : `the data file was overwritten since planning (planned ${planned}); an execution never mixes two versions of a file`,
  );
};

export class ExportObjects implements ManifestObjectsPort {
  constructor(private readonly objects: S3Objects) {}

  async readText(bucket: string, key: string, versionId?: string): Promise<string> {
    let stream: Readable;
    const version = versionId === undefined ? {} : { versionId };
    try {
      const { size } = await this.objects.head(bucket, key, version);
      if (size > MAX_MANIFEST_BYTES) {
        return fail(
          'too-large',
          'manifestKey',
          `${size} bytes: a manifest is at most ${MAX_MANIFEST_BYTES}`,
        );
      }
      stream = await this.objects.openStream(bucket, key, version);
    } catch (error) {
      if (isMissing(error))
        return fail(
          'invalid-field',
          'manifestKey',
          `s3://${bucket}/${key} does not exist (deleted since it was delivered)`,
        );
      throw error;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks).toString('utf8');
  }

  /** The legacy CUR Athena data-status object's `status`; undefined when there is none. */
  async dataStatus(bucket: string, key: string): Promise<string | undefined> {
    try {
      return await readDataStatus(await s3AsyncBuffer(this.objects, bucket, key));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Size (Parquet: row groups) of the file's current version, and that version as its pin. */
  async factsOf(file: DataFile): Promise<FileFacts | undefined> {
    try {
      if (file.format !== 'parquet') {
        const version = await this.objects.head(file.bucket, file.key);
        return { key: file.key, size: version.size, pin: pinOf(version) };
      }
      const buffer = await s3AsyncBuffer(this.objects, file.bucket, file.key);
      const parquet = await readParquetFile(buffer);
      return {
        key: file.key,
        size: buffer.byteLength,
        rowGroups: parquet.rowGroups.map((group) => group.rowCount),
        pin: pinOf(buffer),
      };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /**
   * A task's rows from `fromRow` on, read from the version the plan pinned; a pinned version that is
   * gone or overwritten fails the file. The S3 stream is closed when the caller stops early. Parquet
   * rows can also be read as slices of columns (`ParquetRowSource`), from the same pinned version.
   */
  rowsOf(bucket: string, task: ExportTask, fromRow: number): AsyncIterable<ExportRow> {
    if (task.kind === 'csv-file') return pinChecked(task, this.csvRows(bucket, task, fromRow));
    const source = parquetRowSource(
      async () => {
        const file = await s3AsyncBuffer(this.objects, bucket, task.objectKey, { pin: task.pin });
        return { file, parquet: await readParquetFile(file) };
      },
      { fromGroup: task.firstRowGroup, toGroup: task.endRowGroup },
    );
    const pinned: ParquetRowSource = {
      [Symbol.asyncIterator]: () => pinChecked(task, source)[Symbol.asyncIterator](),
      slices: (columnsOf) => pinChecked(task, source.slices(columnsOf)),
    };
    return pinned;
  }

  private async *csvRows(
    bucket: string,
    task: ExportTask & { kind: 'csv-file' },
    fromRow: number,
  ): AsyncGenerator<ExportRow> {
    const stream = await this.objects.openStream(bucket, task.objectKey, readPinOf(task.pin));
    try {
      yield* readCsvRows(stream, { gzip: task.format === 'csv.gz', fromRow });
    } finally {
      stream.destroy();
    }
  }
}

/** `items` of a task's file, a pinned version that is gone or overwritten failing the file. */
async function* pinChecked<T>(task: ExportTask, items: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (error) {
    if (error instanceof ObjectChangedError || error instanceof VersionGoneError)
      pinLost(task, error);
    throw error;
  }
}
