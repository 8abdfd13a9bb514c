/**
 * The Cost Management Query API over plain `fetch` (the SDK packages return only the first page):
 * `POST {scope}/providers/Microsoft.CostManagement/query`, then the same body POSTed to every
 * `nextLink` until there is none. A durable cursor (scope, month, nextLink, pages done, not-before)
 * is written after each page is handed over, so a crashed pull resumes at the next page. A 429 waits
 * the longest retry-after Cost Management gives (`core/acquisition/cost-query-throttle.ts`) and records
 * it in the cursor first, so not even a restarted pull calls before it; 5xx and dropped connections
 * back off with jitter. Numbers in rows are kept exact (`parseJsonExact`).
 */
import { jitteredBackoff } from '../core/backoff';
import { ThrottledUntilError, TransientError } from '../core/errors';
import { parseJsonExact } from '../core/json';
import { throttleWaitMs } from '../core/acquisition/cost-query-throttle';

export const COST_QUERY_API_VERSION = '2023-03-01';
export const AZURE_MANAGEMENT_ENDPOINT = 'https://management.azure.com';

export interface CostQueryCursor {
  scope: string;
  /** `YYYY-MM`. */
  month: string;
  /** Where the next page is; absent before the first page and after the last. */
  nextLink?: string;
  pagesDone: number;
  done: boolean;
  /** Epoch ms before which no request may be sent (the last throttle's wait). */
  notBefore?: number;
}

export interface CostQueryCursorStore {
  read(scope: string, month: string): Promise<CostQueryCursor | undefined>;
  write(cursor: CostQueryCursor): Promise<void>;
}

export interface QueryPage {
  /** 0-based: a page handed over again after a crash has the same index. */
  index: number;
  columns: { name: string; type: string }[];
  /** Cells as the API sent them; numbers stay exact (`number` or `JsonNumberText`). */
  rows: unknown[][];
}

export interface CostQueryOptions {
  token: () => Promise<string>;
  store: CostQueryCursorStore;
  fetch?: typeof fetch;
  endpoint?: string;
  apiVersion?: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** A throttle without retry-after headers waits this long (default 60 s). */
  throttleFallbackMs?: number;
  /** Attempts per page for 5xx and dropped connections (default 5). */
  maxAttempts?: number;
  /** A wait longer than this ends the call with `ThrottledError` (the cursor keeps `notBefore`). */
  maxWaitMs?: number;
  random?: () => number;
}

export interface PullStats {
  pages: number;
  rows: number;
  retries: number;
  throttles: number;
  throttleWaitMs: number;
}

/** The pull must wait longer than this invocation may: resume at `notBefore` (epoch ms). */
export class ThrottledError extends ThrottledUntilError {
  override name = 'ThrottledError';
  constructor(notBefore: number) {
    super(
      notBefore,
      `Cost Management throttled the query: resume after ${new Date(notBefore).toISOString()}`,
    );
  }
}

const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const propertiesOf = (text: string): Record<string, unknown> => {
  const document = parseJsonExact(text) as { properties?: Record<string, unknown> };
  if (typeof document !== 'object' || document === null || typeof document.properties !== 'object')
    throw new Error('the query answer has no properties');
  return document.properties;
};

export class CostManagementQuery {
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: CostQueryOptions) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleepFor;
  }

  private firstUrl(scope: string): string {
    const endpoint = this.options.endpoint ?? AZURE_MANAGEMENT_ENDPOINT;
    const path = scope.replace(/^\/+|\/+$/g, '');
    return `${endpoint}/${path}/providers/Microsoft.CostManagement/query?api-version=${this.options.apiVersion ?? COST_QUERY_API_VERSION}`;
  }

  private async waitUntil(notBefore: number | undefined, stats: PullStats): Promise<void> {
    if (notBefore === undefined) return;
    const wait = notBefore - this.now();
    if (wait <= 0) return;
    if (wait > (this.options.maxWaitMs ?? Infinity)) throw new ThrottledError(notBefore);
    stats.throttleWaitMs += wait;
    await this.sleep(wait);
  }

  /** One page: POST until it answers 200, honouring throttles and backing off on failures. */
  private async page(
    url: string,
    body: string,
    cursor: CostQueryCursor,
    stats: PullStats,
  ): Promise<Record<string, unknown>> {
    const backoff = jitteredBackoff({
      baseMs: 1000,
      capMs: 30_000,
      sleep: this.sleep,
      ...(this.options.random ? { random: this.options.random } : {}),
    });
    const maxAttempts = this.options.maxAttempts ?? 5;
    for (let attempt = 0; ; attempt++) {
      await this.waitUntil(cursor.notBefore, stats);
      let response: Response;
      try {
        response = await this.fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await this.options.token()}`,
            'content-type': 'application/json',
          },
          body,
        });
      } catch (error) {
        if (attempt + 1 >= maxAttempts)
          throw new TransientError(`Cost Management query failed: ${String(error)}`);
        stats.retries++;
        await backoff(attempt);
        continue;
      }
      const text = await response.text().catch(() => undefined);
      if (response.status === 200 && text !== undefined) return propertiesOf(text);
      if (response.status === 429) {
        const wait = throttleWaitMs(
          response.headers.entries(),
          this.now(),
          this.options.throttleFallbackMs ?? 60_000,
        );
        stats.throttles++;
        cursor.notBefore = this.now() + wait;
        await this.options.store.write(cursor);
        continue;
      }
      if ((response.status >= 500 || text === undefined) && attempt + 1 < maxAttempts) {
        stats.retries++;
        await backoff(attempt);
        continue;
      }
      throw new TransientError(
        `Cost Management query answered ${response.status}: ${(text ?? '').slice(0, 300)}`,
      );
    }
  }

  /**
   * Pulls every page of the query for (scope, month) from where its cursor is, handing each page to
   * `onPage` before the cursor moves past it (a crash in between hands the page over again).
   */
  async pull(
    scope: string,
    month: string,
    query: unknown,
    onPage: (page: QueryPage) => Promise<void>,
  ): Promise<PullStats> {
    const stats: PullStats = { pages: 0, rows: 0, retries: 0, throttles: 0, throttleWaitMs: 0 };
    const cursor = (await this.options.store.read(scope, month)) ?? {
      scope,
      month,
      pagesDone: 0,
      done: false,
    };
    const body = JSON.stringify(query);
    while (!cursor.done) {
      const properties = await this.page(
        cursor.nextLink ?? this.firstUrl(scope),
        body,
        cursor,
        stats,
      );
      const rows = Array.isArray(properties.rows) ? (properties.rows as unknown[][]) : [];
      const columns = Array.isArray(properties.columns)
        ? (properties.columns as { name: string; type: string }[])
        : [];
      await onPage({ index: cursor.pagesDone, columns, rows });
      stats.pages++;
      stats.rows += rows.length;
      const nextLink =
        typeof properties.nextLink === 'string' && properties.nextLink !== ''
          ? properties.nextLink
          : undefined;
      cursor.pagesDone++;
      cursor.done = nextLink === undefined;
      if (nextLink === undefined) delete cursor.nextLink;
      else cursor.nextLink = nextLink;
      await this.options.store.write(cursor);
    }
    return stats;
  }
}
