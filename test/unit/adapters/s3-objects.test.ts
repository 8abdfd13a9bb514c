/** The S3 adapter: exact byte ranges, version pinning with If-Match, and the AsyncBuffer's block cache. */
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type GetObjectCommandInput,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ObjectChangedError,
  RangeNotSatisfiableError,
  s3AsyncBuffer,
  S3Objects,
  VersionGoneError,
} from '../../../lambda/adapters/s3-objects';

const client = new S3Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const s3 = mockClient(client);

const BUCKET = 'exports';
const KEY = 'focus/data/part-0.parquet';
const SIZE = 10_000;
const content = Buffer.from(Array.from({ length: SIZE }, (_, i) => (i * 13) % 256));
let eTag = '"v1"';
/** Extra bytes the fake server appends to every ranged answer (an emulator's over-long answer). */
let overshoot = 0;

const serviceError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

const body = (bytes: Buffer) =>
  Object.assign(Readable.from([bytes]), {
    transformToByteArray: async () => new Uint8Array(bytes),
  });

/** S3's answer to a GET: If-Match, Range (`bytes=a-b`, b clamped to the end), 416 past the end. */
const answerGet = (input: GetObjectCommandInput) => {
  if (input.IfMatch !== undefined && input.IfMatch !== eTag)
    throw serviceError('PreconditionFailed', 412);
  if (input.Range === undefined) return { Body: body(content), ETag: eTag, ContentLength: SIZE };
  const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(input.Range) ?? [];
  const start = Number(first);
  if (start >= SIZE) throw serviceError('InvalidRange', 416);
  const end = Math.min(Number(last), SIZE - 1) + 1;
  return {
    Body: body(content.subarray(start, Math.min(SIZE, end + overshoot))),
    ContentRange: `bytes ${start}-${end - 1}/${SIZE}`,
    ETag: eTag,
  };
};

const gets = () => s3.commandCalls(GetObjectCommand).map((call) => call.args[0].input);
const ranges = () => gets().map((input) => input.Range);

beforeEach(() => {
  s3.reset();
  eTag = '"v1"';
  overshoot = 0;
  s3.on(GetObjectCommand).callsFake(answerGet);
  s3.on(HeadObjectCommand).callsFake(() => ({ ContentLength: SIZE, ETag: eTag }));
  s3.on(PutObjectCommand).resolves({ ETag: '"written"' });
});

describe('S3Objects', () => {
  const objects = () => new S3Objects(client);

  it('readRange(start, end) asks for bytes start..end-1 and returns exactly them', async () => {
    const bytes = await objects().readRange(BUCKET, KEY, 100, 164);
    expect(ranges()).toEqual(['bytes=100-163']);
    expect(Buffer.from(bytes).equals(content.subarray(100, 164))).toBe(true);
  });

  it('a range running past the end returns the bytes up to the end', async () => {
    const bytes = await objects().readRange(BUCKET, KEY, SIZE - 3, SIZE + 50);
    expect(Buffer.from(bytes).equals(content.subarray(SIZE - 3))).toBe(true);
  });

  it('a range starting past the end is a RangeNotSatisfiableError naming the object', async () => {
    await expect(objects().readRange(BUCKET, KEY, SIZE, SIZE + 1)).rejects.toThrow(
      RangeNotSatisfiableError,
    );
    await expect(objects().readRange(BUCKET, KEY, SIZE, SIZE + 1)).rejects.toThrow(
      `s3://${BUCKET}/${KEY}`,
    );
  });

  it('an empty range sends nothing; a negative, reversed or fractional one is refused before any request', async () => {
    expect(await objects().readRange(BUCKET, KEY, 5, 5)).toHaveLength(0);
    for (const [start, end] of [
      [-1, 4],
      [8, 4],
      [0.5, 4],
    ])
      await expect(objects().readRange(BUCKET, KEY, start, end)).rejects.toThrow(RangeError);
    expect(gets()).toHaveLength(0);
  });

  it('an answer longer than the range is cut to the range; a shorter one is an error', async () => {
    overshoot = 10;
    const bytes = await objects().readRange(BUCKET, KEY, 0, 1);
    expect(Buffer.from(bytes).equals(content.subarray(0, 1))).toBe(true);
    s3.on(GetObjectCommand).resolves({
      Body: body(content.subarray(0, 2)) as never,
      ContentRange: `bytes 0-3/${SIZE}`,
    });
    await expect(objects().readRange(BUCKET, KEY, 0, 4)).rejects.toThrow(
      /asked for bytes 0-3, got 2 bytes/,
    );
  });

  it('with ifMatch, a changed object is an ObjectChangedError, not another version of the bytes', async () => {
    eTag = '"v2"';
    await expect(objects().readRange(BUCKET, KEY, 0, 10, { ifMatch: '"v1"' })).rejects.toThrow(
      ObjectChangedError,
    );
    expect(gets()[0].IfMatch).toBe('"v1"');
  });

  it('with versionId, every request names the version; a version S3 no longer has is a VersionGoneError', async () => {
    s3.on(HeadObjectCommand).callsFake((input: { VersionId?: string }) => {
      if (input.VersionId === 'gone') throw serviceError('NotFound', 404);
      return { ContentLength: SIZE, ETag: eTag, VersionId: input.VersionId ?? 'latest' };
    });
    s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => {
      if (input.VersionId === 'gone') throw serviceError('NoSuchVersion', 404);
      return answerGet(input);
    });
    const s3Objects = objects();
    expect(await s3Objects.head(BUCKET, KEY)).toEqual({
      size: SIZE,
      eTag: '"v1"',
      versionId: 'latest',
    });
    await s3Objects.readRange(BUCKET, KEY, 0, 10, { versionId: 'v-1', ifMatch: '"v1"' });
    (await s3Objects.openStream(BUCKET, KEY, { versionId: 'v-1' })).destroy();
    expect(gets().map((input) => [input.VersionId, input.IfMatch])).toEqual([
      ['v-1', '"v1"'],
      ['v-1', undefined],
    ]);
    await expect(s3Objects.readRange(BUCKET, KEY, 0, 10, { versionId: 'gone' })).rejects.toThrow(
      VersionGoneError,
    );
    await expect(s3Objects.head(BUCKET, KEY, { versionId: 'gone' })).rejects.toThrow(
      /version gone of s3:\/\/exports\/focus\/data\/part-0.parquet no longer exists/,
    );
  });

  it('objectSize is the HEAD Content-Length; openStream streams the whole object', async () => {
    const s3Objects = objects();
    expect(await s3Objects.objectSize(BUCKET, KEY)).toBe(SIZE);
    const chunks: Buffer[] = [];
    for await (const chunk of await s3Objects.openStream(BUCKET, KEY)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(gets()[0].Range).toBeUndefined();
    expect(s3Objects.requests).toBe(2);
  });

  it('putObject writes the body with its content type and encoding and returns the ETag', async () => {
    const s3Objects = objects();
    expect(
      await s3Objects.putObject(BUCKET, 'out/report.json.gz', 'x', {
        contentType: 'application/json',
        contentEncoding: 'gzip',
      }),
    ).toEqual({ eTag: '"written"' });
    expect(s3.commandCalls(PutObjectCommand)[0].args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'out/report.json.gz',
      Body: 'x',
      ContentType: 'application/json',
      ContentEncoding: 'gzip',
    });
    expect(s3Objects.requests).toBe(1);
  });
});

describe('s3AsyncBuffer', () => {
  const open = (options = {}) =>
    s3AsyncBuffer(new S3Objects(client), BUCKET, KEY, { blockSize: 1000, ...options });
  const sliceEquals = async (
    buffer: Awaited<ReturnType<typeof open>>,
    start: number,
    end?: number,
  ) =>
    expect(Buffer.from(await buffer.slice(start, end)).equals(content.subarray(start, end))).toBe(
      true,
    );

  it('takes size and ETag from one HEAD; every GET is pinned to that ETag', async () => {
    const buffer = await open();
    expect(buffer.byteLength).toBe(SIZE);
    expect(buffer.eTag).toBe('"v1"');
    await sliceEquals(buffer, 10, 20);
    expect(s3.commandCalls(HeadObjectCommand)).toHaveLength(1);
    expect(gets().map((input) => input.IfMatch)).toEqual(['"v1"']);
  });

  it('a small read fetches its whole block: the next reads in that block cost nothing', async () => {
    const buffer = await open();
    await sliceEquals(buffer, SIZE - 8, SIZE);
    await sliceEquals(buffer, SIZE - 400, SIZE - 8);
    await sliceEquals(buffer, SIZE - 1000, SIZE - 990);
    expect(ranges()).toEqual([`bytes=9000-9999`]);
    expect(buffer.stats).toEqual({ requests: 1, bytesFetched: 1000 });
  });

  it('consecutive missing blocks are fetched with one GET, around the cached ones', async () => {
    const buffer = await open();
    await sliceEquals(buffer, 3500, 3600);
    await sliceEquals(buffer, 1200, 6100);
    expect(ranges()).toEqual(['bytes=3000-3999', 'bytes=1000-2999', 'bytes=4000-6999']);
  });

  it('concurrent reads of one block share one GET', async () => {
    const buffer = await open();
    await Promise.all([
      sliceEquals(buffer, 0, 10),
      sliceEquals(buffer, 20, 30),
      sliceEquals(buffer, 500, 999),
    ]);
    expect(ranges()).toEqual(['bytes=0-999']);
  });

  it('least recently used blocks are evicted past maxCacheBytes and fetched again when read', async () => {
    const buffer = await open({ maxCacheBytes: 2000 });
    await sliceEquals(buffer, 0, 1); // block 0
    await sliceEquals(buffer, 1000, 1001); // block 1
    await sliceEquals(buffer, 0, 1); // block 0 is now the most recent
    await sliceEquals(buffer, 2000, 2001); // block 2 evicts block 1
    await sliceEquals(buffer, 0, 1);
    await sliceEquals(buffer, 1000, 1001);
    expect(ranges()).toEqual([
      'bytes=0-999',
      'bytes=1000-1999',
      'bytes=2000-2999',
      'bytes=1000-1999',
    ]);
  });

  it('a read larger than the cache goes to S3 as asked, uncached', async () => {
    const buffer = await open({ maxCacheBytes: 2000 });
    await sliceEquals(buffer, 123, 4567);
    await sliceEquals(buffer, 200, 300);
    expect(ranges()).toEqual(['bytes=123-4566', 'bytes=0-999']);
  });

  it('end defaults to the size and is clamped to it; a read at or past the end is empty; a negative start is refused', async () => {
    const buffer = await open();
    await sliceEquals(buffer, 9500);
    expect((await buffer.slice(9990, SIZE + 100)).byteLength).toBe(10);
    expect((await buffer.slice(SIZE, SIZE + 5)).byteLength).toBe(0);
    await expect(buffer.slice(-1, 5)).rejects.toThrow(RangeError);
  });

  it('an object overwritten during the read fails with ObjectChangedError; nothing of it is cached', async () => {
    const buffer = await open();
    await sliceEquals(buffer, 0, 10);
    eTag = '"v2"';
    await expect(buffer.slice(5000, 5010)).rejects.toThrow(ObjectChangedError);
    await expect(buffer.slice(5000, 5010)).rejects.toThrow(ObjectChangedError);
    expect(ranges()).toEqual(['bytes=0-999', 'bytes=5000-5999', 'bytes=5000-5999']);
  });

  it('a pinned version is read with its version id and ETag on the HEAD and on every GET', async () => {
    s3.on(HeadObjectCommand).callsFake((input: { VersionId?: string; IfMatch?: string }) => ({
      ContentLength: SIZE,
      ETag: eTag,
      VersionId: input.VersionId,
    }));
    const buffer = await open({ pin: { versionId: 'v-7', eTag: '"v1"' } });
    await sliceEquals(buffer, 0, 10);
    await sliceEquals(buffer, 5000, 5010);
    expect(buffer.versionId).toBe('v-7');
    const [head] = s3.commandCalls(HeadObjectCommand).map((call) => call.args[0].input);
    expect([head.VersionId, head.IfMatch]).toEqual(['v-7', '"v1"']);
    expect(gets().map((input) => [input.VersionId, input.IfMatch])).toEqual([
      ['v-7', '"v1"'],
      ['v-7', '"v1"'],
    ]);
  });

  it('a known version skips the HEAD; an object shorter than that version is an error', async () => {
    const buffer = await open({ version: { size: SIZE + 500, eTag: '"v1"' } });
    expect(s3.commandCalls(HeadObjectCommand)).toHaveLength(0);
    await sliceEquals(buffer, 0, 10);
    await expect(buffer.slice(SIZE - 10, SIZE + 10)).rejects.toThrow(/expected 1500/);
  });

  it('refuses a block size that is not a positive integer', async () => {
    await expect(open({ blockSize: 0 })).rejects.toThrow(RangeError);
  });
});
