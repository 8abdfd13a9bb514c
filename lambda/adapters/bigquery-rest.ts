/**
 * The BigQuery REST API (v2) over plain `fetch` — the four calls the billing acquisition makes are
 * plain JSON, and `@google-cloud/bigquery` is not a dependency (docs/gcp-acquisition.md):
 *
 * - `POST /projects/{p}/queries` (jobs.query) then `GET /projects/{p}/queries/{jobId}` for the change
 *   probe, a small result read to its end;
 * - `POST /projects/{p}/jobs` (jobs.insert) with our job id: a 409 (the id exists) is that same job;
 * - `GET /projects/{p}/queries/{jobId}` (jobs.getQueryResults) with `pageToken`, `maxResults`,
 *   `location`, polled while `jobComplete` is false; `GET /projects/{p}/jobs/{jobId}` (jobs.get) once,
 *   for the bytes billed.
 *
 * Throttling and failures: a 429, or a 403 whose reason is `rateLimitExceeded`, waits the answer's
 * `Retry-After` (else `throttleFallbackMs`) before the next request — never an immediate retry; 5xx,
 * `backendError` and dropped connections back off with jitter; a 404 of the job or a 400 on a page
 * token is `ResultsGoneError` (the results expired: the caller runs the query again). A wait longer
 * than `maxWaitMs` ends the call with `ThrottledError` (the cursor keeps the place; the scheduled
 * function continues the pass as a delayed SQS step at the error's `notBefore`).
 */
import { jitteredBackoff } from '../core/backoff';
import { ThrottledUntilError, TransientError } from '../core/errors';
import { throttleWaitMs } from '../core/acquisition/cost-query-throttle';
import {
  ResultsGoneError,
  type BigQueryPort,
  type JobRef,
  type ResultsPage,
} from '../core/acquisition/gcp-billing-pull';
import type { BigQueryRow } from '../core/acquisition/gcp-billing-rows';

export const BIGQUERY_ENDPOINT = 'https://bigquery.googleapis.com';

/**
 * The longest throttle wait slept inside a call (1 minute); a longer one ends the pass with
 * `ThrottledError` and the scheduled function continues it as a delayed SQS step instead of waiting.
 */
export const BIGQUERY_MAX_SLEEP_MS = 60_000;

export interface BigQueryRestOptions {
  /** The project jobs run in (and are billed to). */
  project: string;
  token: () => Promise<string>;
  fetch?: typeof fetch;
  endpoint?: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** A throttle without Retry-After waits this long (default 30 s). */
  throttleFallbackMs?: number;
  /** Attempts per request for 5xx and dropped connections (default 6). */
  maxAttempts?: number;
  /** A throttle wait longer than this ends the call with `ThrottledError` (default `BIGQUERY_MAX_SLEEP_MS`). */
  maxWaitMs?: number;
  /** How long one getQueryResults call may wait for the job (default 60 s). */
  pollTimeoutMs?: number;
}

export interface BigQueryStats {
  requests: number;
  retries: number;
  throttles: number;
  throttleWaitMs: number;
  polls: number;
}

export class ThrottledError extends ThrottledUntilError {
  override name = 'ThrottledError';
  constructor(notBefore: number) {
    super(
      notBefore,
      `BigQuery throttled the acquisition: resume after ${new Date(notBefore).toISOString()}`,
    );
  }
}

interface ErrorBody {
  error?: { code?: number; message?: string; errors?: { reason?: string }[] };
}

const reasonsOf = (body: unknown): string[] =>
  ((body as ErrorBody | undefined)?.error?.errors ?? []).map((e) => e.reason ?? '');

const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const numberOf = (value: unknown): number | undefined => {
  const n = typeof value === 'string' || typeof value === 'number' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

export class BigQueryRest implements BigQueryPort {
  readonly stats: BigQueryStats = {
    requests: 0,
    retries: 0,
    throttles: 0,
    throttleWaitMs: 0,
    polls: 0,
  };
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private notBefore = 0;

  constructor(private readonly options: BigQueryRestOptions) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleepFor;
  }

  private url(path: string, query: Record<string, string | number | undefined> = {}): string {
    const base = `${this.options.endpoint ?? BIGQUERY_ENDPOINT}/bigquery/v2/projects/${encodeURIComponent(this.options.project)}${path}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) params.set(name, String(value));
    const text = params.toString();
    return text === '' ? base : `${base}?${text}`;
  }

  /** One call, repeated through throttles and transient failures; the answer's status and JSON. */
  private async call(
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const backoff = jitteredBackoff({
      baseMs: 1000,
      capMs: 30_000,
      sleep: this.sleep,
      ...(this.options.random ? { random: this.options.random } : {}),
    });
    const maxAttempts = this.options.maxAttempts ?? 6;
    for (let attempt = 0; ; attempt++) {
      const wait = this.notBefore - this.now();
      if (wait > 0) {
        if (wait > (this.options.maxWaitMs ?? BIGQUERY_MAX_SLEEP_MS))
          throw new ThrottledError(this.notBefore);
        this.stats.throttleWaitMs += wait;
        await this.sleep(wait);
      }
      this.stats.requests++;
      let status: number;
      let text: string;
      let headers: Headers;
      try {
        const response = await this.fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${await this.options.token()}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        status = response.status;
        headers = response.headers;
        text = await response.text();
      } catch (error) {
        if (attempt + 1 >= maxAttempts)
          throw new TransientError(`BigQuery ${method} failed: ${String(error)}`);
        this.stats.retries++;
        await backoff(attempt);
        continue;
      }
      let json: unknown;
      try {
        json = text === '' ? {} : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const reasons = reasonsOf(json);
      if (status === 429 || (status === 403 && reasons.includes('rateLimitExceeded'))) {
        this.stats.throttles++;
        this.notBefore =
          this.now() +
          throttleWaitMs(headers.entries(), this.now(), this.options.throttleFallbackMs ?? 30_000);
        continue;
      }
      const transient = status >= 500 || json === undefined || reasons.includes('backendError');
      if (transient && attempt + 1 < maxAttempts) {
        this.stats.retries++;
        await backoff(attempt);
        continue;
      }
      if (transient)
        throw new TransientError(`BigQuery ${method} answered ${status}: ${text.slice(0, 300)}`);
      return { status, json };
    }
  }

  private failure(what: string, status: number, json: unknown): Error {
    const message = (json as ErrorBody | undefined)?.error?.message ?? '';
    return new Error(`BigQuery ${what} answered ${status}: ${message.slice(0, 300)}`);
  }

  /** getQueryResults until the job is complete; a 404 or a refused token is `ResultsGoneError`. */
  private async results(
    job: JobRef,
    pageToken: string | undefined,
    maxResults: number,
  ): Promise<Record<string, unknown>> {
    for (;;) {
      const { status, json } = await this.call(
        'GET',
        this.url(`/queries/${encodeURIComponent(job.jobId)}`, {
          location: job.location,
          maxResults,
          pageToken,
          timeoutMs: this.options.pollTimeoutMs ?? 60_000,
        }),
      );
      if (status === 404 || (status === 400 && pageToken !== undefined))
        throw new ResultsGoneError(
          `the results of job ${job.jobId} are gone (${status}): the query runs again`,
        );
      if (status !== 200) throw this.failure(`getQueryResults of ${job.jobId}`, status, json);
      const answer = json as Record<string, unknown>;
      if (answer.jobComplete === true) {
        const errors = (answer.errors as { message?: string }[] | undefined) ?? [];
        if (answer.rows === undefined && errors.length > 0)
          throw new Error(
            `BigQuery job ${job.jobId} failed: ${errors.map((e) => e.message).join('; ')}`,
          );
        return answer;
      }
      this.stats.polls++;
    }
  }

  private async bytesBilled(job: JobRef): Promise<number> {
    const { status, json } = await this.call(
      'GET',
      this.url(`/jobs/${encodeURIComponent(job.jobId)}`, { location: job.location }),
    );
    if (status === 404) throw new ResultsGoneError(`job ${job.jobId} is gone`);
    if (status !== 200) throw this.failure(`jobs.get ${job.jobId}`, status, json);
    const statistics = (json as { statistics?: { query?: Record<string, unknown> } }).statistics
      ?.query;
    return numberOf(statistics?.totalBytesBilled) ?? numberOf(statistics?.totalBytesProcessed) ?? 0;
  }

  async queryAll(
    sql: string,
    location: string,
  ): Promise<{ rows: BigQueryRow[]; bytesBilled: number }> {
    const { status, json } = await this.call('POST', this.url('/queries'), {
      query: sql,
      useLegacySql: false,
      location,
      timeoutMs: this.options.pollTimeoutMs ?? 60_000,
    });
    if (status !== 200) throw this.failure('jobs.query', status, json);
    let answer = json as Record<string, unknown>;
    const reference = answer.jobReference as { jobId: string; location?: string };
    const job = { jobId: reference.jobId, location: reference.location ?? location };
    if (answer.jobComplete !== true) answer = await this.results(job, undefined, 10_000);
    const rows = [...((answer.rows as BigQueryRow[] | undefined) ?? [])];
    while (typeof answer.pageToken === 'string') {
      answer = await this.results(job, answer.pageToken, 10_000);
      rows.push(...((answer.rows as BigQueryRow[] | undefined) ?? []));
    }
    return { rows, bytesBilled: await this.bytesBilled(job) };
  }

  async insertJob(job: JobRef, sql: string): Promise<void> {
    const { status, json } = await this.call('POST', this.url('/jobs'), {
      jobReference: { projectId: this.options.project, jobId: job.jobId, location: job.location },
      configuration: { query: { query: sql, useLegacySql: false } },
    });
    if (status === 200 || status === 409) return;
    throw this.failure(`jobs.insert ${job.jobId}`, status, json);
  }

  async page(job: JobRef, pageToken: string | undefined, maxResults: number): Promise<ResultsPage> {
    const answer = await this.results(job, pageToken, maxResults);
    const next =
      typeof answer.pageToken === 'string' && answer.pageToken !== ''
        ? answer.pageToken
        : undefined;
    const totalRows = numberOf(answer.totalRows);
    return {
      rows: (answer.rows as BigQueryRow[] | undefined) ?? [],
      ...(next === undefined ? {} : { pageToken: next }),
      ...(totalRows === undefined ? {} : { totalRows }),
      ...(pageToken === undefined ? { bytesBilled: await this.bytesBilled(job) } : {}),
    };
  }
}
