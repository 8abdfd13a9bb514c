/**
 * A local stand-in of the BigQuery REST API and Google's OAuth 2.0 token endpoint (node http on a free
 * loopback port), in the shapes of test/fixtures/gcp: it holds billing export rows (ingestion
 * partition, export_time, invoice month, the month query's cells), answers the change probe by
 * computing it, runs a month's query job as a snapshot of that month's rows at insert time, pages its
 * results by `pageToken` / `maxResults`, and injects faults in order — a throttle (429 or 403
 * `rateLimitExceeded`, with `Retry-After`), a 5xx, a connection dropped in the middle of a page, an
 * expired page token — and can expire every job's results. Requests are recorded on the caller's clock.
 * Used by the integration tests and by the local run's acquisitions (`local/acquisitions/`), whose
 * ground truth is `monthTotals`: the month's money computed from the rows it holds.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify } from 'jose';
import Big from 'big.js';
import type { BigQueryCell, BigQueryRow } from '../../lambda/core/acquisition/gcp-billing-rows';
import { MONTH_COLUMNS } from '../../lambda/core/acquisition/gcp-billing-sql';
import { formatDecimal } from '../../lambda/core/decimal';

export interface StandInRow {
  partitionDay: string;
  exportTime: string;
  invoiceMonth: string;
  /** The month query's cells, in MONTH_COLUMNS order. */
  cells: BigQueryCell[];
}

export type BigQueryFault =
  /** The request is answered normally: places the faults after it on later requests. */
  | { kind: 'none' }
  | { kind: 'throttle'; status?: 429 | 403; retryAfterSeconds?: number }
  | { kind: 'server-error'; status?: number }
  | { kind: 'drop-mid-page' }
  | { kind: 'expire-page-token' };

export interface RecordedRequest {
  atMs: number;
  method: string;
  path: string;
  query: Record<string, string>;
}

interface Job {
  rows: BigQueryRow[];
  bytesBilled: number;
  expired: boolean;
}

export interface BigQueryStandIn {
  endpoint: string;
  tokenEndpoint: string;
  rows: StandInRow[];
  faults: BigQueryFault[];
  requests: RecordedRequest[];
  jobsInserted: string[];
  /** Every job's results expire (as after ~24 h). */
  expireAllJobs(): void;
  /** Σ cost + Σ credits of the rows of an invoice month (`YYYYMM`), per currency, exactly. */
  monthTotals(invoiceMonth: string): Record<string, string>;
  stop(): Promise<void>;
}

const BYTES_PER_ROW = 200;
const MIN_BILLED = 10 * 1024 * 1024;

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const send = (response: ServerResponse, status: number, body: unknown, headers = {}) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  response.end(JSON.stringify(body));
};

const errorBody = (code: number, reason: string, message: string) => ({
  error: { code, message, errors: [{ reason, message, domain: 'global' }], status: reason },
});

const CURRENCY = MONTH_COLUMNS.indexOf('currency');
const COST = MONTH_COLUMNS.indexOf('cost');
const CREDITS = MONTH_COLUMNS.indexOf('credit_amounts');

/** A scalar cell's text (the REST API writes every scalar, numbers included, as a string). */
export const cellText = (cell: BigQueryCell): string => {
  if (typeof cell.v !== 'string') throw new Error(`not a scalar cell: ${JSON.stringify(cell)}`);
  return cell.v;
};

/** The money of a month's rows as Google bills it: cost plus every credit, per currency. */
export const monthTotalsOf = (
  rows: readonly StandInRow[],
  invoiceMonth: string,
): Record<string, string> => {
  const sums = new Map<string, Big>();
  for (const row of rows.filter((r) => r.invoiceMonth === invoiceMonth)) {
    const currency = cellText(row.cells[CURRENCY]);
    let sum = (sums.get(currency) ?? new Big(0)).plus(cellText(row.cells[COST]));
    for (const credit of (row.cells[CREDITS].v as BigQueryCell[] | null) ?? [])
      sum = sum.plus(cellText(credit));
    sums.set(currency, sum);
  }
  return Object.fromEntries([...sums].map(([currency, sum]) => [currency, formatDecimal(sum)]));
};

export const startBigQueryStandIn = async (options: {
  clock: () => number;
  /** SPKI PEM of the service account's public key; the token endpoint verifies assertions with it. */
  publicKeyPem: string;
  clientEmail: string;
}): Promise<BigQueryStandIn> => {
  const rows: StandInRow[] = [];
  const faults: BigQueryFault[] = [];
  const requests: RecordedRequest[] = [];
  const jobs = new Map<string, Job>();
  const jobsInserted: string[] = [];
  const expiredTokens = new Set<string>();
  const tokens = new Set<string>();
  const publicKey = await importSPKI(options.publicKeyPem, 'RS256');
  let endpoint = '';
  let probes = 0;

  const billedFor = (count: number) => Math.max(MIN_BILLED, count * BYTES_PER_ROW);

  const probeRows = (): BigQueryRow[] => {
    const groups = new Map<string, StandInRow>();
    for (const row of rows) {
      const key = `${row.partitionDay}|${row.invoiceMonth}`;
      const seen = groups.get(key);
      if (!seen || seen.exportTime < row.exportTime) groups.set(key, row);
    }
    return [...groups.values()].map((row) => ({
      f: [{ v: row.partitionDay }, { v: row.invoiceMonth }, { v: row.exportTime }],
    }));
  };

  const pageOf = (jobId: string, job: Job, offset: number, maxResults: number) => {
    const slice = job.rows.slice(offset, offset + maxResults);
    const next = offset + slice.length;
    return {
      kind: 'bigquery#getQueryResultsResponse',
      etag: `etag-${jobId}-${offset}`,
      jobReference: { projectId: 'billing-reader-project', jobId, location: 'US' },
      totalRows: String(job.rows.length),
      ...(next < job.rows.length ? { pageToken: `${jobId}~${next}` } : {}),
      rows: slice,
      totalBytesProcessed: String(job.bytesBilled),
      jobComplete: true,
      cacheHit: false,
    };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://stand-in');
    requests.push({
      atMs: options.clock(),
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
    });
    if (url.pathname === '/token') {
      const assertion = new URLSearchParams(body).get('assertion') ?? '';
      try {
        const { payload } = await jwtVerify(assertion, publicKey, {
          issuer: options.clientEmail,
          audience: `${endpoint}/token`,
          currentDate: new Date(options.clock()),
        });
        if (payload.scope !== 'https://www.googleapis.com/auth/bigquery') throw new Error('scope');
      } catch {
        send(response, 400, {
          error: 'invalid_grant',
          error_description: 'Invalid JWT Signature.',
        });
        return;
      }
      const token = `ya29.stand-in-${tokens.size + 1}`;
      tokens.add(token);
      send(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
      return;
    }
    const bearer = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!tokens.has(bearer)) {
      send(
        response,
        401,
        errorBody(401, 'authError', 'Request had invalid authentication credentials.'),
      );
      return;
    }
    const fault = faults.shift();
    if (fault?.kind === 'throttle') {
      const status = fault.status ?? 429;
      send(
        response,
        status,
        errorBody(
          status,
          'rateLimitExceeded',
          'Exceeded rate limits: too many api requests per user per method for this user_method.',
        ),
        fault.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(fault.retryAfterSeconds) },
      );
      return;
    }
    if (fault?.kind === 'server-error') {
      const status = fault.status ?? 503;
      send(
        response,
        status,
        errorBody(
          status,
          'backendError',
          'Error encountered during execution. Retrying may solve the problem.',
        ),
      );
      return;
    }
    const projectPath = /^\/bigquery\/v2\/projects\/([^/]+)\/(queries|jobs)(?:\/([^/]+))?$/.exec(
      url.pathname,
    );
    if (!projectPath) {
      send(response, 404, errorBody(404, 'notFound', `Not found: ${url.pathname}`));
      return;
    }
    const [, , collection, id] = projectPath;
    if (request.method === 'POST' && collection === 'queries' && id === undefined) {
      const { query } = JSON.parse(body) as { query: string };
      if (!query.includes('_PARTITIONTIME')) {
        send(response, 400, errorBody(400, 'invalid', 'the stand-in runs only the change probe'));
        return;
      }
      const jobId = `job_probe_${++probes}`;
      const result = probeRows();
      jobs.set(jobId, { rows: result, bytesBilled: billedFor(rows.length / 4), expired: false });
      send(response, 200, {
        ...pageOf(jobId, jobs.get(jobId) as Job, 0, 100_000),
        kind: 'bigquery#queryResponse',
      });
      return;
    }
    if (request.method === 'POST' && collection === 'jobs' && id === undefined) {
      const insert = JSON.parse(body) as {
        jobReference: { jobId: string };
        configuration: { query: { query: string } };
      };
      const jobId = insert.jobReference.jobId;
      if (jobs.has(jobId)) {
        send(
          response,
          409,
          errorBody(409, 'duplicate', `Already Exists: Job billing-reader-project:US.${jobId}`),
        );
        return;
      }
      const month = /invoice\.month = '(\d{6})'/.exec(insert.configuration.query.query)?.[1];
      const selected = rows
        .filter((row) => row.invoiceMonth === month)
        .map((row) => ({ f: row.cells }));
      jobs.set(jobId, { rows: selected, bytesBilled: billedFor(rows.length), expired: false });
      jobsInserted.push(jobId);
      send(response, 200, {
        kind: 'bigquery#job',
        id: `billing-reader-project:US.${jobId}`,
        jobReference: { projectId: 'billing-reader-project', jobId, location: 'US' },
        status: { state: 'RUNNING' },
      });
      return;
    }
    const job = id === undefined ? undefined : jobs.get(decodeURIComponent(id));
    if (!job || job.expired) {
      send(
        response,
        404,
        errorBody(404, 'notFound', `Not found: Job billing-reader-project:US.${id}`),
      );
      return;
    }
    if (request.method === 'GET' && collection === 'jobs') {
      send(response, 200, {
        kind: 'bigquery#job',
        jobReference: { projectId: 'billing-reader-project', jobId: id, location: 'US' },
        status: { state: 'DONE' },
        statistics: {
          query: {
            totalBytesProcessed: String(job.bytesBilled),
            totalBytesBilled: String(job.bytesBilled),
          },
        },
      });
      return;
    }
    const token = url.searchParams.get('pageToken');
    if (fault?.kind === 'expire-page-token' && token !== null) expiredTokens.add(token);
    if (token !== null && expiredTokens.has(token)) {
      send(response, 400, errorBody(400, 'invalid', 'Invalid page token.'));
      return;
    }
    const offset = token === null ? 0 : Number(token.split('~')[1]);
    const page = pageOf(id, job, offset, Number(url.searchParams.get('maxResults') ?? 100_000));
    if (fault?.kind === 'drop-mid-page') {
      const text = JSON.stringify(page);
      response.writeHead(200, {
        'content-type': 'application/json; charset=UTF-8',
        'content-length': String(text.length),
      });
      response.write(text.slice(0, Math.floor(text.length / 2)));
      setImmediate(() => request.socket.destroy());
      return;
    }
    send(response, 200, page);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) =>
      send(response, 500, errorBody(500, 'internalError', String(error))),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    tokenEndpoint: `${endpoint}/token`,
    rows,
    faults,
    requests,
    jobsInserted,
    expireAllJobs: () => {
      for (const job of jobs.values()) job.expired = true;
    },
    monthTotals: (invoiceMonth) => monthTotalsOf(rows, invoiceMonth),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
