import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  HttpResponse,
  Provider,
} from '@smithy/types';

/** One object to store whole (the archive's only write). */
export interface ObjectPut {
  bucket: string;
  key: string;
  body: Uint8Array;
  contentType: string;
}

/** Where objects are put: `SignedS3Put` in the functions; tests wrap it to inject faults. */
export interface ObjectStore {
  putObject(object: ObjectPut): Promise<void>;
}

/** The one thing an HTTP handler must do here (`NodeHttpHandler` does it; tests may wrap it). */
export interface RequestSender {
  handle(request: HttpRequest): Promise<{ response: HttpResponse }>;
}

export interface SignedS3PutOptions {
  region: string | Provider<string>;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** An S3-compatible endpoint (emulators); absent: the region's S3 endpoint. */
  endpoint?: string | Provider<string | undefined>;
  /** Bucket in the path instead of the host name (emulators; buckets with dots). */
  forcePathStyle?: boolean;
  /** Attempts of one put on a throttled, 5xx or network failure (default 3). */
  maxAttempts?: number;
  requestHandler?: RequestSender;
  /** Waits between attempts (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
}

/** An S3 error as the SDK names it (`AccessDenied`, `SlowDown`, …), with the HTTP status. */
export class S3PutError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

/** A key's path: each segment percent-encoded as S3 signs it (RFC 3986 unreserved characters kept). */
export const encodeKeyPath = (key: string): string =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');

/** The region's S3 host (the `aws-cn` partition has its own domain). */
export const regionalS3Host = (region: string): string =>
  `s3.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;

/** Where a put of `key` in `bucket` goes: virtual-hosted on AWS, path-style on an endpoint or a dotted bucket. */
export const objectLocation = (
  bucket: string,
  key: string,
  region: string,
  endpoint?: string,
  forcePathStyle = false,
): { protocol: string; hostname: string; port?: number; path: string } => {
  const base = new URL(endpoint ?? `https://${regionalS3Host(region)}`);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pathStyle = forcePathStyle || bucket.includes('.');
  return {
    protocol: base.protocol,
    hostname: pathStyle ? base.hostname : `${bucket}.${base.hostname}`,
    ...(base.port ? { port: Number(base.port) } : {}),
    path: `${prefix}/${pathStyle ? `${bucket}/` : ''}${encodeKeyPath(key)}`,
  };
};

const RETRYABLE_CODES = new Set(['SlowDown', 'RequestTimeout', 'RequestTimeTooSkewed']);
const isRetryable = (error: unknown): boolean =>
  error instanceof S3PutError
    ? error.statusCode >= 500 || error.statusCode === 429 || RETRYABLE_CODES.has(error.code)
    : true; // no answer: a network failure

const readText = async (body: unknown): Promise<string> => {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')
    return '';
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * PutObject as one SigV4-signed HTTP request, built from the pieces the DynamoDB client already loads
 * (the signer, the Node HTTP handler, the credential chain) instead of the whole S3 client, which
 * would add about 290 KB and most of a consumer's module init (docs/benchmarks.md, "Cold start").
 * It sends `Content-MD5` (an Object Lock bucket requires a checksum) and the signed payload hash,
 * and retries throttling, 5xx answers and network failures with jittered back-off.
 */
export class SignedS3Put implements ObjectStore {
  private readonly signer: SignatureV4;
  private readonly region: Provider<string>;
  private readonly endpoint: Provider<string | undefined>;
  private readonly http: RequestSender;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SignedS3PutOptions) {
    const region = options.region;
    this.region = typeof region === 'string' ? () => Promise.resolve(region) : region;
    const endpoint = options.endpoint;
    this.endpoint = typeof endpoint === 'function' ? endpoint : () => Promise.resolve(endpoint);
    this.signer = new SignatureV4({
      service: 's3',
      region: this.region,
      credentials: options.credentials,
      sha256: Sha256,
      // S3 signs the path as sent: the key is encoded once, never twice.
      uriEscapePath: false,
    });
    this.http = options.requestHandler ?? new NodeHttpHandler({ connectionTimeout: 5_000 });
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async putObject({ bucket, key, body, contentType }: ObjectPut): Promise<void> {
    const location = objectLocation(
      bucket,
      key,
      await this.region(),
      await this.endpoint(),
      this.options.forcePathStyle,
    );
    const request = new HttpRequest({
      method: 'PUT',
      ...location,
      headers: {
        host: location.port ? `${location.hostname}:${location.port}` : location.hostname,
        'content-type': contentType,
        'content-length': String(body.byteLength),
        'content-md5': createHash('md5').update(body).digest('base64'),
      },
      body,
    });
    const attempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(request);
        return;
      } catch (error) {
        if (attempt >= attempts || !isRetryable(error)) throw error;
        await this.sleep(Math.random() * 100 * 2 ** attempt);
      }
    }
  }

  private async send(request: HttpRequest): Promise<void> {
    const signed = await this.signer.sign(request);
    const { response } = await this.http.handle(signed as HttpRequest);
    const text = await readText(response.body);
    if (response.statusCode >= 200 && response.statusCode < 300) return;
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `Http${response.statusCode}`;
    const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text.slice(0, 200);
    throw new S3PutError(code, response.statusCode, `S3 PutObject refused: ${code}: ${message}`);
  }
}

/** Whether an endpoint is configured for S3 (emulators): then buckets go in the path. */
const endpointOf = (env: NodeJS.ProcessEnv): string | undefined =>
  env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;

/** The functions' put: the runtime's region and credential chain, the environment's S3 endpoint if any. */
export const signedS3PutFor = (env: NodeJS.ProcessEnv = process.env): SignedS3Put => {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set: the archive cannot name its S3 endpoint');
  const endpoint = endpointOf(env);
  return new SignedS3Put({
    region,
    credentials: defaultProvider(),
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
  });
};

/** A put to where an SDK S3 client points, with its credentials (local runs and tests inject such clients). */
export const signedS3PutLike = (
  client: S3Client,
  options: Pick<SignedS3PutOptions, 'requestHandler' | 'sleep' | 'maxAttempts'> = {},
): SignedS3Put => {
  const config = client.config as unknown as {
    region: Provider<string>;
    credentials: AwsCredentialIdentityProvider;
    forcePathStyle?: boolean;
    endpoint?: Provider<{ protocol: string; hostname: string; port?: number; path: string }>;
  };
  const configured = config.endpoint;
  return new SignedS3Put({
    region: config.region,
    credentials: config.credentials,
    forcePathStyle: Boolean(config.forcePathStyle),
    ...(configured
      ? {
          endpoint: async () => {
            const { protocol, hostname, port, path } = await configured();
            return `${protocol}//${hostname}${port ? `:${port}` : ''}${path}`;
          },
        }
      : {}),
    ...options,
  });
};
