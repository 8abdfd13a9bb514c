/**
 * A local stand-in for an HTTP API route's IAM authorization: the request's SigV4 signature (service
 * `execute-api`) is recomputed with `@smithy/signature-v4` from the secret of the access key it names,
 * over the headers it says it signed, and compared in constant time. A match yields what API Gateway
 * hands the function as `requestContext.authorizer.iam`; anything else is API Gateway's bare 403, and the
 * function never runs. Not emulated: the caller's execute-api:Invoke permission (every local identity
 * has it) and session tokens' expiry.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';

export interface LocalIamIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** As API Gateway reports the signer, e.g. `arn:aws:sts::<acct>:assumed-role/<role>/<session>`. */
  readonly userArn: string;
  readonly accountId: string;
}

export interface LocalIamAuthorizer {
  readonly region: string;
  /** Paths whose routes have IAM authorization. */
  readonly paths: readonly string[];
  readonly identities: readonly LocalIamIdentity[];
}

export interface IamContext {
  readonly accessKey: string;
  readonly accountId: string;
  readonly callerId: string;
  readonly userArn: string;
  readonly userId: string;
  readonly principalOrgId: null;
  readonly cognitoIdentity: null;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/execute-api\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

const parseAmzDate = (value: string): Date | undefined => {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return match
    ? new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`)
    : undefined;
};

/** The signer's IAM context when the signature verifies; undefined answers 403. */
export const verifySigV4 = async (
  request: { method: string; url: URL; headers: Record<string, string>; body: Buffer },
  authorizer: LocalIamAuthorizer,
): Promise<IamContext | undefined> => {
  const parsed = AUTHORIZATION.exec(request.headers.authorization ?? '');
  if (parsed === null || parsed[3] !== authorizer.region) return undefined;
  const [, accessKeyId, , , signedHeaderList, signature] = parsed;
  const identity = authorizer.identities.find((i) => i.accessKeyId === accessKeyId);
  const signingDate = parseAmzDate(request.headers['x-amz-date'] ?? '');
  if (identity === undefined || signingDate === undefined) return undefined;
  if (identity.sessionToken !== undefined)
    if (request.headers['x-amz-security-token'] !== identity.sessionToken) return undefined;
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return undefined;
  // The signature covers the body through its hash: a stated hash must be the body's.
  const bodyHash = createHash('sha256').update(request.body).digest('hex');
  const statedHash = request.headers['x-amz-content-sha256'];
  if (statedHash !== undefined && statedHash !== bodyHash) return undefined;
  const signer = new SignatureV4({
    service: 'execute-api',
    region: authorizer.region,
    credentials: identity,
    sha256: Sha256,
    // Sign exactly the headers the caller signed: add no payload-hash header of our own.
    applyChecksum: false,
  });
  const resigned = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      port: request.url.port ? Number(request.url.port) : undefined,
      path: request.url.pathname,
      query: Object.fromEntries(request.url.searchParams),
      headers: Object.fromEntries(
        signedHeaders
          .filter((name) => name !== 'authorization' && name !== 'x-amz-date')
          .map((name) => [
            name,
            name === 'x-amz-content-sha256' ? bodyHash : (request.headers[name] ?? ''),
          ]),
      ),
      body: request.body,
    }),
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(resigned.headers.authorization))?.[1];
  if (expected === undefined || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return undefined;
  const session = identity.userArn.split('/').pop() ?? '';
  return {
    accessKey: accessKeyId,
    accountId: identity.accountId,
    callerId: `AROALOCAL:${session}`,
    userArn: identity.userArn,
    userId: `AROALOCAL:${session}`,
    principalOrgId: null,
    cognitoIdentity: null,
  };
};
