/**
 * Reading billing export files from S3: byte ranges, sizes, streams, and hyparquet's `AsyncBuffer`
 * backed by ranged GETs through a block cache. Every request this adapter sends is counted.
 */
import type { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type GetObjectCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { AsyncBuffer } from 'hyparquet';

export interface ObjectVersion {
  size: number;
  /** With its quotes, as S3 returns it. */
  eTag: string;
  /** Set by a versioned bucket. */
  versionId?: string;
}

export interface ReadOptions {
  /** Fail with `ObjectChangedError` instead of reading another version of the object. */
  ifMatch?: string;
  /** Read this version (`VersionGoneError` when it no longer exists). */
  versionId?: string;
}

export interface PutOptions {
  contentType?: string;
  contentEncoding?: string;
}

/** The object was overwritten between two reads of one logical file. */
export class ObjectChangedError extends Error {
  override readonly name = 'ObjectChangedError';
}

/** The version asked for does not exist (deleted, expired, or not a version of this object). */
export class VersionGoneError extends Error {
  override readonly name = 'VersionGoneError';
}

/** A range that starts at or past the end of the object. */
export class RangeNotSatisfiableError extends Error {
  override readonly name = 'RangeNotSatisfiableError';
}

const location = (bucket: string, key: string) => `s3://${bucket}/${key}`;

const checkRange = (start: number, end: number): void => {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start)
    throw new RangeError(
      `invalid byte range [${start}, ${end}): integers with 0 <= start <= end expected`,
    );
};

/** `bytes a-b/total` → a and total. */
const parseContentRange = (header: string | undefined): { start: number; total: number } => {
  const match = /^bytes (\d+)-\d+\/(\d+)$/.exec(header ?? '');
  if (!match) throw new Error(`ranged GET answered without a usable Content-Range (${header})`);
  return { start: Number(match[1]), total: Number(match[2]) };
};

const statusOf = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** The request parameters that pin a read to one version of the object. */
const pinned = (options: ReadOptions) => ({
  ...(options.versionId === undefined ? {} : { VersionId: options.versionId }),
  ...(options.ifMatch === undefined ? {} : { IfMatch: options.ifMatch }),
});

/**
 * S3's refusals of a pinned read, as errors that say so: 412 (If-Match failed) → `ObjectChangedError`;
 * with a VersionId, 404 / `NoSuchVersion` or 400 (not a version id S3 knows) → `VersionGoneError`.
 */
const pinnedReadError = (error: unknown, where: string, options: ReadOptions): unknown => {
  const status = statusOf(error);
  if (status === 412)
    return new ObjectChangedError(`${where} changed since it was pinned (ETag ${options.ifMatch})`);
  if (
    options.versionId !== undefined &&
    ((error as { name?: string }).name === 'NoSuchVersion' || status === 404 || status === 400)
  )
    return new VersionGoneError(`version ${options.versionId} of ${where} no longer exists`);
  return error;
};

export class S3Objects {
  /** S3 requests sent so far (HEAD, GET, PUT). */
  requests = 0;

  constructor(private readonly client: S3Client) {}

  private async get(
    input: GetObjectCommand['input'],
    options: ReadOptions,
  ): Promise<GetObjectCommandOutput> {
    this.requests++;
    try {
      return await this.client.send(new GetObjectCommand({ ...input, ...pinned(options) }));
    } catch (error) {
      const where = location(String(input.Bucket), String(input.Key));
      if (statusOf(error) === 416)
        throw new RangeNotSatisfiableError(`${input.Range} starts past the end of ${where}`);
      throw pinnedReadError(error, where, options);
    }
  }

  /**
   * Bytes [start, end) of the object (end exclusive, like `Array.prototype.slice`); fewer when the
   * object ends before `end`. A range starting past the end is a `RangeNotSatisfiableError`.
   */
  async readRange(
    bucket: string,
    key: string,
    start: number,
    end: number,
    options: ReadOptions = {},
  ): Promise<Uint8Array> {
    checkRange(start, end);
    if (start === end) return new Uint8Array(0);
    const response = await this.get(
      { Bucket: bucket, Key: key, Range: `bytes=${start}-${end - 1}` },
      options,
    );
    const body = await (
      response.Body as { transformToByteArray(): Promise<Uint8Array> }
    ).transformToByteArray();
    const served = parseContentRange(response.ContentRange);
    const expected = Math.min(end, served.total) - start;
    if (served.start !== start || body.length < expected)
      throw new Error(
        `${location(bucket, key)}: asked for bytes ${start}-${end - 1}, got ${body.length} bytes from ${served.start} (${response.ContentRange})`,
      );
    // Some emulators answer a range with more than was asked for; S3 never does.
    return body.length === expected ? body : body.subarray(0, expected);
  }

  /** Size, ETag and version id of the object's current version, or of the version `options` pin. */
  async head(bucket: string, key: string, options: ReadOptions = {}): Promise<ObjectVersion> {
    this.requests++;
    let response;
    try {
      response = await this.client.send(
        new HeadObjectCommand({ Bucket: bucket, Key: key, ...pinned(options) }),
      );
    } catch (error) {
      throw pinnedReadError(error, location(bucket, key), options);
    }
    if (response.ContentLength === undefined || response.ETag === undefined)
      throw new Error(`${location(bucket, key)}: HEAD answered without Content-Length or ETag`);
    return {
      size: response.ContentLength,
      eTag: response.ETag,
      ...(response.VersionId ? { versionId: response.VersionId } : {}),
    };
  }

  async objectSize(bucket: string, key: string): Promise<number> {
    return (await this.head(bucket, key)).size;
  }

  /** The whole object as a stream (for gunzip and CSV parsing); the caller consumes or destroys it. */
  async openStream(bucket: string, key: string, options: ReadOptions = {}): Promise<Readable> {
    const response = await this.get({ Bucket: bucket, Key: key }, options);
    return response.Body as Readable;
  }

  /** Writes the object (a known-length body: S3 needs the length of a single PUT up front). */
  async putObject(
    bucket: string,
    key: string,
    body: Uint8Array | string,
    options: PutOptions = {},
  ): Promise<{ eTag: string }> {
    this.requests++;
    const response = await this.client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentType: options.contentType,
        ContentEncoding: options.contentEncoding,
      }),
    );
    return { eTag: String(response.ETag) };
  }
}

export interface AsyncBufferOptions {
  /** Ranged GETs are aligned to blocks of this size (default 256 KiB): small reads come for free after one. */
  blockSize?: number;
  /** Cached bytes, least recently used evicted (default 16 MiB). A larger read goes to S3 uncached. */
  maxCacheBytes?: number;
  /** Skip the HEAD when size and ETag are already known. */
  version?: ObjectVersion;
  /** Read this version (HEAD and every GET carry it). */
  pin?: { versionId?: string; eTag: string };
}

export interface S3AsyncBuffer extends AsyncBuffer {
  readonly eTag: string;
  readonly versionId?: string;
  /** Ranged GETs this buffer sent (the HEAD not included). */
  readonly stats: { requests: number; bytesFetched: number };
}

const DEFAULT_BLOCK_SIZE = 256 * 1024;
const DEFAULT_MAX_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * hyparquet's `AsyncBuffer` over one version of an S3 object: every GET carries `If-Match` of the ETag
 * seen first (and the version id, when the bucket gave one or `pin` names it), so an overwrite during
 * the read fails with `ObjectChangedError` (or reads the pinned version) instead of mixing two files. Reads are widened to whole blocks, consecutive missing blocks are fetched with one GET, blocks
 * already being fetched are shared, and a read bigger than the cache bypasses it.
 */
export const s3AsyncBuffer = async (
  objects: S3Objects,
  bucket: string,
  key: string,
  options: AsyncBufferOptions = {},
): Promise<S3AsyncBuffer> => {
  const blockSize = options.blockSize ?? DEFAULT_BLOCK_SIZE;
  const maxCacheBytes = options.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES;
  if (!Number.isSafeInteger(blockSize) || blockSize < 1)
    throw new RangeError(`blockSize must be a positive integer, not ${blockSize}`);
  const { size, eTag, versionId } =
    options.version ??
    (await objects.head(
      bucket,
      key,
      options.pin ? { versionId: options.pin.versionId, ifMatch: options.pin.eTag } : {},
    ));
  const readPin: ReadOptions = { ifMatch: eTag, ...(versionId ? { versionId } : {}) };
  const stats = { requests: 0, bytesFetched: 0 };
  /** Insertion order is recency order: a hit is re-inserted, eviction takes the first. */
  const blocks = new Map<number, Promise<Uint8Array>>();
  let cachedBytes = 0;

  const fetch = async (start: number, end: number): Promise<Uint8Array> => {
    stats.requests++;
    const bytes = await objects.readRange(bucket, key, start, end, readPin);
    stats.bytesFetched += bytes.length;
    if (bytes.length !== end - start)
      throw new Error(
        `${location(bucket, key)}: ${bytes.length} bytes at ${start}, expected ${end - start} (size ${size})`,
      );
    return bytes;
  };
  const blockEnd = (index: number) => Math.min(size, (index + 1) * blockSize);
  const remember = (index: number, block: Promise<Uint8Array>) => {
    blocks.set(index, block);
    cachedBytes += blockEnd(index) - index * blockSize;
    for (const [oldest] of blocks) {
      if (cachedBytes <= maxCacheBytes || blocks.size <= 1) break;
      blocks.delete(oldest);
      cachedBytes -= blockEnd(oldest) - oldest * blockSize;
    }
  };
  const blockAt = (index: number): Promise<Uint8Array> | undefined => {
    const block = blocks.get(index);
    if (block) {
      blocks.delete(index);
      blocks.set(index, block);
    }
    return block;
  };
  const loadBlocks = (first: number, last: number): Promise<Uint8Array>[] => {
    const found = new Map<number, Promise<Uint8Array>>();
    for (let index = first; index <= last; index++) {
      const cached = blockAt(index);
      if (cached) found.set(index, cached);
    }
    for (let runStart = first; runStart <= last; runStart++) {
      if (found.has(runStart)) continue;
      let runEnd = runStart;
      while (runEnd + 1 <= last && !found.has(runEnd + 1)) runEnd++;
      const run = fetch(runStart * blockSize, blockEnd(runEnd));
      for (let index = runStart; index <= runEnd; index++) {
        const offset = (index - runStart) * blockSize;
        const length = blockEnd(index) - index * blockSize;
        const block = run.then((bytes) => bytes.subarray(offset, offset + length));
        block.catch(() => blocks.get(index) === block && blocks.delete(index));
        found.set(index, block);
        remember(index, block);
      }
      runStart = runEnd;
    }
    return Array.from(
      { length: last - first + 1 },
      (_, i) => found.get(first + i) as Promise<Uint8Array>,
    );
  };

  const slice = async (start: number, end: number = size): Promise<ArrayBuffer> => {
    const clampedEnd = Math.min(end, size);
    checkRange(start, Math.max(start, clampedEnd));
    if (start >= clampedEnd) return new ArrayBuffer(0);
    if (clampedEnd - start > maxCacheBytes) {
      const bytes = await fetch(start, clampedEnd);
      return bytes.buffer.slice(
        bytes.byteOffset,
        bytes.byteOffset + bytes.byteLength,
      ) as ArrayBuffer;
    }
    const first = Math.floor(start / blockSize);
    const last = Math.floor((clampedEnd - 1) / blockSize);
    const parts = await Promise.all(loadBlocks(first, last));
    const result = new Uint8Array(clampedEnd - start);
    parts.forEach((block, i) => {
      const blockStart = (first + i) * blockSize;
      const from = Math.max(start, blockStart) - blockStart;
      const to = Math.min(clampedEnd, blockStart + block.length) - blockStart;
      result.set(block.subarray(from, to), Math.max(start, blockStart) - start);
    });
    return result.buffer;
  };

  return { byteLength: size, eTag, ...(versionId ? { versionId } : {}), stats, slice };
};
