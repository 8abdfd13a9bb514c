/**
 * The Cost Management Query client against a local stand-in built from Microsoft's documented example:
 * paging with the same body to every nextLink, throttles honoured with the longest retry-after (on an
 * injected clock, no wall time), 5xx and dropped connections retried, and a cursor that survives a crash.
 */
import Big from 'big.js';
import {
  CostManagementQuery,
  ThrottledError,
  type CostQueryCursor,
  type CostQueryCursorStore,
  type QueryPage,
} from '../../../lambda/adapters/cost-management-query';
import { requiredDecimal } from '../../../lambda/core/formats/fields';
import { throttleWaitMs } from '../../../lambda/core/acquisition/cost-query-throttle';
import {
  EXAMPLE_ROWS_TEXT,
  startCostQueryStandIn,
  type CostQueryStandIn,
} from '../../support/cost-query-stand-in';

const SCOPE = '/providers/Microsoft.Billing/billingAccounts/70664866';
const QUERY = {
  type: 'Usage',
  timeframe: 'Custom',
  timePeriod: { from: '2024-09-01T00:00:00Z', to: '2024-09-30T23:59:59Z' },
  dataset: {
    granularity: 'None',
    aggregation: { totalCost: { name: 'PreTaxCost', function: 'Sum' } },
    grouping: [{ type: 'Dimension', name: 'ResourceGroup' }],
  },
};
/** The example's three rows and four more of the same shape: 7 rows, 3 pages of 3. */
const ROWS = [
  ...EXAMPLE_ROWS_TEXT,
  ['0.000000000000000001', 'rg-tiny', 'USD'],
  ['1234567.891011121314', 'rg-large', 'USD'],
  ['-5.5', 'rg-refund', 'USD'],
  ['7', 'rg-whole', 'USD'],
];
const ROWS_JSON = ROWS.map(([cost, group, currency]) => `[${cost},"${group}","${currency}"]`);
const EXACT_TOTAL = ROWS.reduce((sum, [cost]) => sum.plus(cost), new Big(0)).toString();

class MemoryCursors implements CostQueryCursorStore {
  readonly saved = new Map<string, CostQueryCursor>();
  writes = 0;
  async read(scope: string, month: string) {
    const cursor = this.saved.get(`${scope}|${month}`);
    return cursor && { ...cursor };
  }
  async write(cursor: CostQueryCursor) {
    this.writes++;
    this.saved.set(`${cursor.scope}|${cursor.month}`, { ...cursor });
  }
}

let clockMs = 1_000_000;
const clock = () => clockMs;
const sleep = async (ms: number) => {
  clockMs += ms;
};
let standIn: CostQueryStandIn;

beforeEach(async () => {
  standIn = await startCostQueryStandIn({ rowsJson: ROWS_JSON, pageSize: 3, clock });
});
afterEach(() => standIn.stop());

const client = (
  store: CostQueryCursorStore,
  extra: Partial<ConstructorParameters<typeof CostManagementQuery>[0]> = {},
) =>
  new CostManagementQuery({
    token: async () => 'token',
    store,
    endpoint: standIn.endpoint,
    now: clock,
    sleep,
    random: () => 0.5,
    ...extra,
  });

const collect = () => {
  const pages: QueryPage[] = [];
  return { pages, onPage: async (page: QueryPage) => void pages.push(page) };
};

const totalOf = (pages: QueryPage[]): string =>
  pages
    .flatMap((page) => page.rows)
    .reduce((sum, row) => sum.plus(requiredDecimal(row[0], 'PreTaxCost')), new Big(0))
    .toString();

describe('paging', () => {
  it('POSTs the same body to the query and to every nextLink; every row once, exactly', async () => {
    const { pages, onPage } = collect();
    const stats = await client(new MemoryCursors()).pull(SCOPE, '2024-09', QUERY, onPage);

    expect(stats).toEqual({ pages: 3, rows: 7, retries: 0, throttles: 0, throttleWaitMs: 0 });
    expect(standIn.requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
    expect(new Set(standIn.requests.map((request) => request.body))).toEqual(
      new Set([JSON.stringify(QUERY)]),
    );
    expect(standIn.requests[0].url).toBe(
      `${SCOPE}/providers/Microsoft.CostManagement/query?api-version=2023-03-01`,
    );
    expect(standIn.requests.slice(1).map((request) => request.url)).toEqual([
      expect.stringContaining('$skiptoken=1'),
      expect.stringContaining('$skiptoken=2'),
    ]);
    expect(pages.flatMap((page) => page.rows.map((row) => row[1]))).toEqual(
      ROWS.map((row) => row[1]),
    );
    expect(totalOf(pages)).toBe(EXACT_TOTAL);
  });
});

describe('throttling', () => {
  const headerCases: [string, Record<string, string>, number][] = [
    ['qpu', { 'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': '17' }, 17_000],
    ['entity', { 'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after': '23' }, 23_000],
    ['tenant', { 'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after': '41' }, 41_000],
    ['Retry-After seconds', { 'retry-after': '9' }, 9_000],
    [
      'all of them: the longest wins',
      {
        'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': '5',
        'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after': '61',
        'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after': '30',
        'retry-after': '12',
      },
      61_000,
    ],
    ['none: the fallback', {}, 60_000],
  ];

  it.each(headerCases)(
    'a 429 with %s: no request before the wait',
    async (_name, headers, waitMs) => {
      standIn.faults.push({ kind: 'throttle', headers });
      const { pages, onPage } = collect();

      const stats = await client(new MemoryCursors()).pull(SCOPE, '2024-09', QUERY, onPage);

      const [throttled, retried] = standIn.requests;
      expect(retried.atMs - throttled.atMs).toBeGreaterThanOrEqual(waitMs);
      expect(retried.url).toBe(throttled.url);
      expect(stats).toMatchObject({ throttles: 1, throttleWaitMs: waitMs, pages: 3 });
      expect(totalOf(pages)).toBe(EXACT_TOTAL);
    },
  );

  it('Retry-After as an HTTP date waits until that date', () => {
    const now = Date.parse('2024-09-20T10:00:00Z');
    expect(throttleWaitMs([['Retry-After', 'Fri, 20 Sep 2024 10:00:30 GMT']], now, 60_000)).toBe(
      30_000,
    );
  });

  it('a throttle longer than the invocation may wait ends the pull; a restarted pull waits it out', async () => {
    const store = new MemoryCursors();
    standIn.faults.push({
      kind: 'throttle',
      headers: { 'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after': '300' },
    });
    const throttledAt = clockMs;
    await expect(
      client(store, { maxWaitMs: 60_000 }).pull(SCOPE, '2024-09', QUERY, async () => undefined),
    ).rejects.toThrow(ThrottledError);
    expect(standIn.requests).toHaveLength(1);

    const { pages, onPage } = collect();
    await client(store).pull(SCOPE, '2024-09', QUERY, onPage);

    expect(standIn.requests[1].atMs - throttledAt).toBeGreaterThanOrEqual(300_000);
    expect(totalOf(pages)).toBe(EXACT_TOTAL);
  });
});

describe('failures', () => {
  it('a 5xx and a dropped connection are retried after a back-off; no row lost or doubled', async () => {
    standIn.faults.push({ kind: 'server-error', status: 503 }, { kind: 'drop' });
    const { pages, onPage } = collect();

    const stats = await client(new MemoryCursors()).pull(SCOPE, '2024-09', QUERY, onPage);

    expect(stats).toMatchObject({ retries: 2, pages: 3, rows: 7 });
    expect(standIn.requests[1].atMs).toBeGreaterThan(standIn.requests[0].atMs);
    expect(standIn.requests[2].atMs).toBeGreaterThan(standIn.requests[1].atMs);
    expect(totalOf(pages)).toBe(EXACT_TOTAL);
  });

  it('a pull that crashes after a page resumes at the next page from the durable cursor', async () => {
    const store = new MemoryCursors();
    const handed: QueryPage[] = [];
    await expect(
      client(store).pull(SCOPE, '2024-09', QUERY, async (page) => {
        if (page.index === 1) throw new Error('crashed while storing page 1');
        handed.push(page);
      }),
    ).rejects.toThrow('crashed');
    expect(await store.read(SCOPE, '2024-09')).toMatchObject({
      pagesDone: 1,
      done: false,
      nextLink: expect.stringContaining('$skiptoken=1'),
    });

    await client(store).pull(SCOPE, '2024-09', QUERY, async (page) => void handed.push(page));

    expect(
      standIn.requests.map((request) => /skiptoken=(\d)/.exec(request.url)?.[1] ?? '0'),
    ).toEqual(['0', '1', '1', '2']);
    expect(handed.map((page) => page.index)).toEqual([0, 1, 2]);
    expect(totalOf(handed)).toBe(EXACT_TOTAL);
    // Finished: a further pull sends nothing.
    await client(store).pull(SCOPE, '2024-09', QUERY, async () => undefined);
    expect(standIn.requests).toHaveLength(4);
  });
});
