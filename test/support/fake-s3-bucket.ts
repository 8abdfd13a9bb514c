/**
 * An S3 bucket played by aws-sdk-client-mock, for what the local S3 (s3rver) cannot do: versions,
 * If-Match (412), NoSuchVersion. HEAD, GET (ranged or whole) and ListObjectsV2 as S3 answers them.
 * With `others`, a request naming another bucket than `bucket` goes to that client (say the local S3
 * holding the evidence archive), so one client serves both.
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type GetObjectCommandInput,
  type HeadObjectCommandInput,
  type ListObjectsV2CommandInput,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

interface Version {
  versionId: string;
  eTag: string;
  bytes: Buffer;
}

/** A bucket as S3 answers HEAD and GET: VersionId, If-Match (412), Range; `versioned: false` keeps only the latest. */
export const fakeBucket = (
  versioned: boolean,
  route: { bucket: string; others: S3Client } | undefined = undefined,
) => {
  const objects = new Map<string, Version[]>();
  const client = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const mock = mockClient(client);
  const failure = (name: string, status: number) =>
    Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
  const pick = (input: { Key?: string; VersionId?: string; IfMatch?: string }) => {
    const versions = objects.get(String(input.Key)) ?? [];
    const version =
      input.VersionId === undefined
        ? versions.at(-1)
        : versions.find((candidate) => candidate.versionId === input.VersionId);
    if (!version) throw failure(input.VersionId ? 'NoSuchVersion' : 'NoSuchKey', 404);
    if (input.IfMatch !== undefined && input.IfMatch !== version.eTag)
      throw failure('PreconditionFailed', 412);
    return version;
  };
  const elsewhere = (input: { Bucket?: string }) =>
    route !== undefined && input.Bucket !== route.bucket;
  mock.on(ListObjectsV2Command).callsFake((input: { Bucket?: string; Prefix?: string }) => {
    if (elsewhere(input))
      return route!.others.send(new ListObjectsV2Command(input as ListObjectsV2CommandInput));
    const keys = [...objects.keys()].filter((key) => key.startsWith(input.Prefix ?? '')).sort();
    return { Contents: keys.map((Key) => ({ Key })), KeyCount: keys.length };
  });
  mock.on(HeadObjectCommand).callsFake((input: { Bucket?: string; Key?: string }) => {
    if (elsewhere(input))
      return route!.others.send(new HeadObjectCommand(input as HeadObjectCommandInput));
    const version = pick(input);
    return {
      ContentLength: version.bytes.length,
      ETag: version.eTag,
      ...(versioned ? { VersionId: version.versionId } : {}),
    };
  });
  mock
    .on(GetObjectCommand)
    .callsFake((input: { Range?: string; Key?: string; Bucket?: string }) => {
      if (elsewhere(input))
        return route!.others.send(new GetObjectCommand(input as GetObjectCommandInput));
      const { bytes, eTag } = pick(input);
      const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(input.Range ?? '') ?? [];
      const start = first === undefined ? 0 : Number(first);
      const end = last === undefined ? bytes.length : Math.min(Number(last) + 1, bytes.length);
      const body = bytes.subarray(start, end);
      return {
        Body: Object.assign(Readable.from([body]), {
          transformToByteArray: () => Promise.resolve(new Uint8Array(body)),
        }),
        ETag: eTag,
        ...(input.Range ? { ContentRange: `bytes ${start}-${end - 1}/${bytes.length}` } : {}),
      };
    });
  const put = (key: string, content: string | Uint8Array) => {
    const bytes = Buffer.from(content);
    const versions = objects.get(key) ?? [];
    const version = {
      versionId: `v${versions.length + 1}`,
      eTag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      bytes,
    };
    objects.set(key, versioned ? [...versions, version] : [version]);
  };
  const deleteVersion = (key: string, versionId: string) =>
    objects.set(
      key,
      (objects.get(key) ?? []).filter((version) => version.versionId !== versionId),
    );
  return { client, mock, put, deleteVersion };
};
