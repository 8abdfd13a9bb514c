/**
 * A local stand-in for an API Gateway HTTP API with one Lambda integration (payload format 2.0): an
 * HTTP server on a free loopback port that turns each request into an `APIGatewayProxyEventV2`, runs
 * the handler in-process and writes its answer back. It listens before the handler exists (the stack
 * is synthesized with the endpoint's URL as the Pub/Sub audience); until `attach` it answers 503.
 * Routes with IAM authorization (`iam`) verify SigV4 first (`iam-authorizer.ts`) and hand the signer as
 * `requestContext.authorizer.iam`, or answer 403 without running the handler, as API Gateway does.
 * Not emulated: stage throttling (the function's own per-key limit is), access logs, other authorizers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { verifySigV4, type LocalIamAuthorizer } from './iam-authorizer';

export type HttpApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;

/** API Gateway's payload limit for HTTP APIs; the function's own `maxBodyBytes` is lower. */
export const HTTP_API_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export interface LocalHttpApi {
  /** `http://127.0.0.1:<port>` (no trailing slash) */
  readonly url: string;
  attach(handler: HttpApiHandler): void;
  stop(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= HTTP_API_MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () =>
      resolve(size > HTTP_API_MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks)),
    );
    request.on('error', reject);
  });

/** The event API Gateway hands a Lambda integration (payload format version 2.0). */
export const httpApiEvent = (
  request: { method: string; url: string; headers: Record<string, string>; body: Buffer },
  now: Date,
): APIGatewayProxyEventV2 => {
  const url = new URL(request.url, 'http://localhost');
  const text = request.body.toString('utf8');
  const binary = Buffer.from(text, 'utf8').equals(request.body) === false;
  return {
    version: '2.0',
    routeKey: `${request.method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers: request.headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method: request.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId: `local-${now.getTime()}-${Math.random().toString(36).slice(2, 10)}`,
      routeKey: `${request.method} ${url.pathname}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(request.body.length > 0
      ? { body: binary ? request.body.toString('base64') : text, isBase64Encoded: binary }
      : { isBase64Encoded: false }),
  };
};

const forbidden = (response: ServerResponse) => {
  response.writeHead(403, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ message: 'Forbidden' }));
};

export const startLocalHttpApi = async (
  options: { iam?: LocalIamAuthorizer } = {},
): Promise<LocalHttpApi> => {
  let handler: HttpApiHandler | undefined;
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (body === undefined) {
        response.writeHead(413, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: 'Request Entity Too Large' }));
        return;
      }
      if (handler === undefined) {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        response.end(JSON.stringify({ message: 'Service Unavailable' }));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name.toLowerCase(),
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      );
      const method = request.method ?? 'GET';
      const url = new URL(request.url ?? '/', `http://${headers.host ?? 'localhost'}`);
      const iam = options.iam?.paths.includes(url.pathname) ? options.iam : undefined;
      const signer = iam && (await verifySigV4({ method, url, headers, body }, iam));
      if (iam !== undefined && signer === undefined) {
        forbidden(response);
        return;
      }
      const plain = httpApiEvent({ method, url: request.url ?? '/', headers, body }, new Date());
      const event: APIGatewayProxyEventV2 = signer
        ? ({
            ...plain,
            requestContext: { ...plain.requestContext, authorizer: { iam: signer } },
          } as APIGatewayProxyEventV2)
        : plain;
      let result: APIGatewayProxyResultV2;
      try {
        result = await handler(event);
      } catch {
        // An unhandled error of the integration: API Gateway answers 500.
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: 'Internal Server Error' }));
        return;
      }
      const structured =
        typeof result === 'string' ? { statusCode: 200, body: result, headers: {} } : result;
      response.writeHead(
        structured.statusCode ?? 200,
        structured.headers as Record<string, string>,
      );
      response.end(structured.body ?? '');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attach: (next) => {
      handler = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
