/**
 * A local stand-in of the Cost Management Query API (node http on a free loopback port), built from
 * Microsoft's documented example (test/fixtures/azure/query-billing-account-grouping.json): it serves
 * the given rows in pages of the example's shape, each page but the last with a `nextLink` back to
 * itself, and injects faults in order — a 429 with given headers, a 5xx, a connection dropped before
 * the answer. Every request is recorded with the time of the test's clock.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';

export type QueryFault =
  | { kind: 'throttle'; headers: Record<string, string> }
  | { kind: 'server-error'; status?: number }
  | { kind: 'drop' };

export interface RecordedRequest {
  atMs: number;
  method: string;
  url: string;
  body: string;
}

export interface CostQueryStandIn {
  endpoint: string;
  requests: RecordedRequest[];
  /** Faults answered to the next requests, one each, before pages are served again. */
  faults: QueryFault[];
  stop(): Promise<void>;
}

const example = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/azure/query-billing-account-grouping.json'), 'utf8'),
) as {
  responses: {
    200: { body: { id: string; name: string; type: string; properties: Record<string, unknown> } };
  };
};

/** The example's rows (cost, resource group, currency), as the example writes them. */
export const EXAMPLE_ROWS_TEXT = [
  ['19.545363672276512', 'JapanUnifia-Trial', 'USD'],
  ['173.41979241290323', 'RVIIOT-TRIAL', 'USD'],
  ['20.359416562625452', 'VSTSHOL-1595322048000', 'USD'],
];

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

/** `rows` are JSON texts of each row (numbers written exactly as given). */
export const startCostQueryStandIn = async (options: {
  rowsJson: string[];
  pageSize: number;
  clock: () => number;
}): Promise<CostQueryStandIn> => {
  const requests: RecordedRequest[] = [];
  const faults: QueryFault[] = [];
  const template = example.responses[200].body;
  let endpoint = '';
  const server: Server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const url = request.url ?? '/';
      requests.push({ atMs: options.clock(), method: request.method ?? '', url, body });
      const fault = faults.shift();
      if (fault?.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      if (fault?.kind === 'throttle') {
        response.writeHead(429, { 'content-type': 'application/json', ...fault.headers });
        response.end('{"error":{"code":"429","message":"Too many requests. Please retry."}}');
        return;
      }
      if (fault?.kind === 'server-error') {
        response.writeHead(fault.status ?? 503, { 'content-type': 'application/json' });
        response.end('{"error":{"code":"ServiceUnavailable"}}');
        return;
      }
      const skip = /\$skiptoken=(\d+)/.exec(url);
      const page = skip ? Number(skip[1]) : 0;
      const rows = options.rowsJson.slice(page * options.pageSize, (page + 1) * options.pageSize);
      const last = (page + 1) * options.pageSize >= options.rowsJson.length;
      const path = url.split('?')[0].replace(/\/query$/i, '/Query');
      const nextLink = last
        ? null
        : `${endpoint}${path}?api-version=2023-03-01&$skiptoken=${page + 1}`;
      const properties = `{"nextLink":${JSON.stringify(nextLink)},"columns":${JSON.stringify(template.properties.columns)},"rows":[${rows.join(',')}]}`;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        `{"id":${JSON.stringify(template.id)},"name":${JSON.stringify(template.name)},"type":${JSON.stringify(template.type)},"properties":${properties}}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    endpoint,
    requests,
    faults,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
