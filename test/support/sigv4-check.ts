/**
 * An independent check of an S3 SigV4 `Authorization` header, written from AWS's description of
 * header-based authentication for S3 (canonical request → string to sign → HMAC chain), with node:crypto
 * only. The local S3 (s3rver) does not verify V4 signatures, so tests of our own signed requests check
 * them here; test/unit/sigv4-check.test.ts holds it to AWS's published example.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SignedRequestParts {
  method: string;
  /** The path exactly as sent (already percent-encoded; S3 signs it without encoding it again). */
  path: string;
  /** The canonical query string (sorted, encoded); '' for none. */
  query?: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

const sha256Hex = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Uint8Array | string, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** The signature the request should carry, or why it cannot be checked. */
export const expectedSignature = (request: SignedRequestParts, secret: string): string => {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  const authorization = headers.authorization ?? '';
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) throw new Error(`not a SigV4 authorization header: ${authorization}`);
  const [, , day, region, service, signedHeaders] = match;
  const payloadHash = headers['x-amz-content-sha256'];
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(request.body))
    throw new Error('x-amz-content-sha256 is not the hash of the body');
  const names = signedHeaders.split(';');
  const canonicalRequest = [
    request.method,
    request.path,
    request.query ?? '',
    ...names.map((name) => `${name}:${(headers[name] ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    headers['x-amz-date'],
    scope,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
};

/** The signature the request carries. */
export const carriedSignature = (headers: Record<string, string>): string =>
  /Signature=([0-9a-f]{64})$/.exec(
    Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '',
  )?.[1] ?? '';
