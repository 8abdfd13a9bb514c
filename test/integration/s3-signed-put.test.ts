import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { HttpResponse } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  S3PutError,
  SignedS3Put,
  signedS3PutLike,
  type RequestSender,
} from '../../lambda/adapters/s3-signed-put';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators/local-aws';
import { carriedSignature, expectedSignature } from '../support/sigv4-check';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';

const BUCKET = 'signed-put-test';
let s3: LocalS3;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
});

afterAll(() => s3.stop());

const bodyOf = async (key: string) => {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return {
    bytes: Buffer.from(await object.Body!.transformToByteArray()),
    contentType: object.ContentType,
  };
};

/** The real HTTP handler, counting the requests it sends. */
const counting = (first?: () => HttpResponse): RequestSender & { sent: number } => {
  const real = new NodeHttpHandler();
  const sender = {
    sent: 0,
    handle: async (request: Parameters<RequestSender['handle']>[0]) => {
      sender.sent++;
      if (sender.sent === 1 && first) return { response: first() };
      return real.handle(request);
    },
  };
  return sender;
};

/**
 * The real HTTP handler, checking each request's signature first (s3rver does not verify V4
 * signatures; test/support/sigv4-check.ts does, as S3 would).
 */
const checkingSignatures = (secret: string): RequestSender & { checked: number } => {
  const real = new NodeHttpHandler();
  const sender = {
    checked: 0,
    handle: async (request: Parameters<RequestSender['handle']>[0]) => {
      expect(
        expectedSignature(
          {
            method: request.method,
            path: request.path,
            headers: request.headers,
            body: request.body as Uint8Array,
          },
          secret,
        ),
      ).toBe(carriedSignature(request.headers));
      sender.checked++;
      return real.handle(request);
    },
  };
  return sender;
};

describe('the signed PutObject (the consumers’ archive writes) against the local S3', () => {
  it('stores the object whole under a key that needs encoding, signed as S3 checks it', async () => {
    const key = 'cost-events/tenant=acme/period=2026-11/day=2026-11-03/a b+c!(é)*~.jsonl.gz';
    const body = Buffer.from('{"messageId":"m-1"}\n'.repeat(50));
    const sender = checkingSignatures(LOCAL_CREDENTIALS.secretAccessKey);
    await signedS3PutLike(s3.client, { requestHandler: sender }).putObject({
      bucket: BUCKET,
      key,
      body,
      contentType: 'application/gzip',
    });
    expect(sender.checked).toBe(1);
    expect(await bodyOf(key)).toEqual({ bytes: body, contentType: 'application/gzip' });
  });

  it('signs the session token of temporary credentials (as a Lambda role’s are)', async () => {
    const sender = checkingSignatures(LOCAL_CREDENTIALS.secretAccessKey);
    let token: string | undefined;
    const put = new SignedS3Put({
      region: LOCAL_REGION,
      credentials: { ...LOCAL_CREDENTIALS, sessionToken: 'session-token' },
      endpoint: s3.endpoint,
      forcePathStyle: true,
      requestHandler: {
        handle: (request) => {
          token = request.headers['x-amz-security-token'];
          expect(
            request.headers.authorization.split('SignedHeaders=')[1].split(',')[0].split(';'),
          ).toContain('x-amz-security-token');
          return sender.handle(request);
        },
      },
    });
    const key = 'cost-events/with-token.jsonl.gz';
    await put.putObject({ bucket: BUCKET, key, body: Buffer.from('t'), contentType: 'text/plain' });
    expect(token).toBe('session-token');
    expect((await bodyOf(key)).bytes.toString()).toBe('t');
  });

  it('a second put of the same key replaces the object (a redelivered batch overwrites its copy)', async () => {
    const put = signedS3PutLike(s3.client);
    const key = 'cost-events/again.jsonl.gz';
    await put.putObject({
      bucket: BUCKET,
      key,
      body: Buffer.from('one'),
      contentType: 'text/plain',
    });
    await put.putObject({
      bucket: BUCKET,
      key,
      body: Buffer.from('two'),
      contentType: 'text/plain',
    });
    expect((await bodyOf(key)).bytes.toString()).toBe('two');
  });

  it('sends the body’s MD5, which S3 checks (an Object Lock bucket requires it)', async () => {
    const key = 'cost-events/md5.jsonl.gz';
    const body = Buffer.from('checked');
    await signedS3PutLike(s3.client).putObject({
      bucket: BUCKET,
      key,
      body,
      contentType: 'application/gzip',
    });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    // s3rver's ETag of a single PUT is the body's MD5, as S3's.
    expect(head.ETag).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
  });

  it('a refused put throws S3’s error code and is not retried', async () => {
    const sender = counting();
    const put = new SignedS3Put({
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'wrong' },
      endpoint: s3.endpoint,
      forcePathStyle: true,
      requestHandler: sender,
      sleep: () => Promise.resolve(),
    });
    const refused = put.putObject({
      bucket: BUCKET,
      key: 'cost-events/refused.jsonl.gz',
      body: Buffer.from('x'),
      contentType: 'application/gzip',
    });
    await expect(refused).rejects.toBeInstanceOf(S3PutError);
    await expect(refused).rejects.toMatchObject({ name: 'InvalidAccessKeyId', statusCode: 403 });
    expect(sender.sent).toBe(1);
  });

  it('a throttled put (503 SlowDown) is sent again and stored', async () => {
    const sender = counting(
      () =>
        new HttpResponse({
          statusCode: 503,
          headers: {},
          body: Buffer.from(
            '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>',
          ),
        }),
    );
    const key = 'cost-events/throttled.jsonl.gz';
    await signedS3PutLike(s3.client, {
      requestHandler: sender,
      sleep: () => Promise.resolve(),
    }).putObject({
      bucket: BUCKET,
      key,
      body: Buffer.from('after a retry'),
      contentType: 'application/gzip',
    });
    expect(sender.sent).toBe(2);
    expect((await bodyOf(key)).bytes.toString()).toBe('after a retry');
  });
});
