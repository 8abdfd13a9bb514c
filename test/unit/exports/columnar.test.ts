/**
 * The columnar booking of Parquet tasks (`exports/columnar/`) against the row path it replaces for
 * Parquet: the same chunk results — totals per account × currency × service, rejected rows per
 * reason and the rejection samples — on the real CUR 2.0 and legacy CUR Parquet samples, a FOCUS
 * Parquet written from the FOCUS sample, a generated FOCUS export with bad rows, and random files
 * (fast-check) whose cells are drawn from pools of good and bad values. The row path is
 * `chunkResults` over `readParquetRows` (one cells object per row through `normalizeExportRow`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Big from 'big.js';
import fc from 'fast-check';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { toAmount, toScaledInteger } from '../../../lambda/core/decimal';
import type { ChunkResult } from '../../../lambda/core/exports/chunk';
import {
  ExactSum,
  exactAmountOf,
  plainSmallAmount,
  scaledUnits,
  type ExactAmount,
} from '../../../lambda/core/exports/columnar/exact-sum';
import { GroupTotals } from '../../../lambda/core/exports/columnar/group-totals';
import { FOCUS_COLUMNS_READ } from '../../../lambda/core/exports/columns-read';
import { readParquetFile } from '../../../lambda/core/exports/readers/parquet';
import * as rows from '../../../lambda/core/exports/rows';
import type { RowContext } from '../../../lambda/core/exports/rows';
import { CUR_SNAKE_CASE } from '../../../lambda/core/formats/cost-cur';
import { parseCsv } from '../../support/cur-fixture';
import { CUR_SAMPLES_DIR, CUR2_PARQUET, LEGACY_PARQUET } from '../../support/cur-samples';
import { writeFocusParquet } from '../../support/focus-export-generator';
import { parquetChunkResults } from '../../support/parquet-task';
import { fixtureBytes, rangedBuffer } from './helpers';

const asUnits = (amount: ExactAmount): bigint =>
  typeof amount === 'bigint' ? amount : scaledUnits(amount.units, amount.scale);

describe('exact amounts and sums', () => {
  it('reads a plain small decimal as toAmount does, and nothing toAmount refuses', () => {
    const texts = fc.oneof(
      fc.stringMatching(/^-?\d{1,20}(\.\d{1,22})?$/),
      fc.stringMatching(/^[-+ ]?[\d.eE_ ]{1,12}$/),
      fc.constantFrom('', '-', '.5', '5.', '-0', '0.000', '000123.4500', '1e3', ' 1', '1 '),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const fast = plainSmallAmount(text);
        if (fast === undefined) return;
        expect(asUnits(fast)).toBe(toScaledInteger(toAmount(text, 'x')));
      }),
      { numRuns: 2000 },
    );
    expect(plainSmallAmount('000123.4500')).toEqual({ units: 12345, scale: 2 });
    expect(plainSmallAmount('1234567890123456')).toBeUndefined();
    expect(plainSmallAmount('1e3')).toBeUndefined();
  });

  it('sums exactly whatever the amounts, small parts moved into the BigInt before they could round', () => {
    const amount = fc.oneof(
      fc.stringMatching(/^-?[1-9]\d{0,14}$/),
      fc.stringMatching(/^-?\d{1,3}\.\d{1,15}$/),
      fc.stringMatching(/^-?\d{1,14}\.\d{16,18}$/),
      fc.constant('999999999999999'),
      fc.constant('-999999999999999'),
    );
    fc.assert(
      fc.property(fc.array(amount, { maxLength: 200 }), (amounts) => {
        const sum = new ExactSum();
        let expected = new Big(0);
        for (const text of amounts) {
          const canonical = toAmount(text, 'x');
          sum.add(exactAmountOf(canonical));
          expected = expected.plus(canonical);
        }
        expect(sum.total()).toBe(toScaledInteger(expected.toFixed()));
      }),
      { numRuns: 300 },
    );
    const many = new ExactSum();
    for (let index = 0; index < 20_000; index += 1)
      many.add({ units: 999_999_999_999_999, scale: 0 });
    expect(many.total()).toBe(999_999_999_999_999n * 20_000n * 10n ** 18n);
  });
});

describe('GroupTotals', () => {
  it('keeps one total per combination of dimension codes, whatever order the rows come in', () => {
    const totals = new GroupTotals();
    const [accounts, currencies, services] = totals.dimensions;
    const codes = (account: string, currency: string, service: string | null) => [
      accounts.codeOf(account),
      currencies.codeOf(currency),
      services.codeOf(service),
    ];
    totals.add(codes('a', 'USD', 'EC2'), { units: 15, scale: 1 });
    totals.add(codes('b', 'USD', 'EC2'), { units: 1, scale: 0 });
    totals.add(codes('a', 'EUR', 'EC2'), { units: 2, scale: 0 });
    totals.add(codes('a', 'USD', null), { units: 3, scale: 0 });
    totals.add(codes('a', 'USD', 'EC2'), 5n * 10n ** 17n);
    expect(totals.totals()).toEqual(
      expect.arrayContaining([
        { values: ['a', 'USD', 'EC2'], total: 2n * 10n ** 18n, rows: 2 },
        { values: ['b', 'USD', 'EC2'], total: 10n ** 18n, rows: 1 },
        { values: ['a', 'EUR', 'EC2'], total: 2n * 10n ** 18n, rows: 1 },
        { values: ['a', 'USD', null], total: 3n * 10n ** 18n, rows: 1 },
      ]),
    );
    expect(totals.totals()).toHaveLength(4);
  });
});

/** Both paths over every task of a file (tasks of `taskRows`), and how many rows took the row path. */
const bothPaths = async (
  bytes: Uint8Array,
  context: RowContext,
  options: { taskRows?: number; sliceRows?: number } = {},
) => {
  const file = rangedBuffer(bytes);
  const parquet = await readParquetFile(file);
  const run = (columnar: boolean) =>
    parquetChunkResults(file, parquet, context, { ...options, columnar });
  const rowPath = await run(false);
  const normalize = jest.spyOn(rows, 'normalizeExportRow');
  try {
    const columnar = await run(true);
    return { rowPath, columnar, byRow: normalize.mock.calls.length };
  } finally {
    normalize.mockRestore();
  }
};

const rejectedOf = (results: ChunkResult[]) => results.reduce((sum, r) => sum + r.rejectedRows, 0);

describe('the columnar path equals the row path', () => {
  const sample = (name: string) => new Uint8Array(readFileSync(path.join(CUR_SAMPLES_DIR, name)));

  it.each([CUR2_PARQUET, LEGACY_PARQUET])('on the real CUR sample %s', async (name) => {
    const context = { tenant: 'acme', objectKey: name, billingPeriod: '2023-11' };
    const { rowPath, columnar, byRow } = await bothPaths(sample(name), context, { sliceRows: 7 });
    expect(columnar).toEqual(rowPath);
    expect(rowPath[0].rows).toBeGreaterThan(0);
    expect(rejectedOf(rowPath)).toBe(0);
    expect(byRow).toBe(0);
    // Another period: every row refused, with the row path's reasons and samples.
    const other = await bothPaths(sample(name), { ...context, billingPeriod: '2023-12' });
    expect(other.columnar).toEqual(other.rowPath);
    expect(rejectedOf(other.rowPath)).toBe(other.rowPath[0].rows);
  });

  const focusSample = (): string[][] =>
    parseCsv(fixtureBytes('focus-sample-data-1.1-excerpt.csv').toString('utf8'));
  /** The sample with AWS's x_ServiceCode column: EC2's code, S3's blank (so named by ServiceName). */
  const withServiceCodes = ([header, ...records]: string[][]): string[][] => {
    const service = header.indexOf('ServiceName');
    const codes: Record<string, string> = { 'Amazon Elastic Compute Cloud': 'AmazonEC2' };
    return [
      [...header, 'x_ServiceCode'],
      ...records.map((record) => [...record, codes[record[service]] ?? ' ']),
    ];
  };

  it.each([
    ['', focusSample],
    [' with x_ServiceCode', () => withServiceCodes(focusSample())],
  ])('on the FOCUS sample%s written as Parquet', async (_, table) => {
    const [header, ...records] = table();
    const bytes = new Uint8Array(
      parquetWriteBuffer({
        columnData: header.map((name, column) => ({
          name,
          data: records.map((record) => (record[column] === '' ? null : record[column])),
          type: 'STRING' as const,
        })),
        rowGroupSize: 3,
      }),
    );
    const periods = new Set(records.map((record) => record[header.indexOf('BillingPeriodStart')]));
    const booked: string[] = [];
    for (const period of [...periods].map((start) => start.slice(0, 7))) {
      const context = { tenant: 'acme', objectKey: 'focus.parquet', billingPeriod: period };
      const { rowPath, columnar } = await bothPaths(bytes, context, { taskRows: 4 });
      expect(columnar).toEqual(rowPath);
      expect(rowPath.some((result) => Object.keys(result.totals).length > 0)).toBe(true);
      booked.push(JSON.stringify(rowPath));
    }
    const named = booked.join();
    expect(named).toContain('"Amazon Simple Storage Service"');
    expect(named).toContain('"Azure Functions"');
    expect(named.includes('"AmazonEC2"')).toBe(header.includes('x_ServiceCode'));
    expect(named.includes('"Amazon Elastic Compute Cloud"')).toBe(
      !header.includes('x_ServiceCode'),
    );
  });

  it('on a generated FOCUS export with bad rows (DECIMAL costs, several row groups and tasks)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'columnar-'));
    try {
      const file = path.join(dir, 'focus.parquet');
      const spec = {
        rows: 3_000,
        seed: 7,
        tenant: 'acme',
        billingPeriod: '2026-11',
        badRowEvery: 97,
      };
      await writeFocusParquet(file, spec, { rowGroupSize: 700 });
      const context = { tenant: 'acme', objectKey: 'focus.parquet', billingPeriod: '2026-11' };
      const { rowPath, columnar, byRow } = await bothPaths(
        new Uint8Array(readFileSync(file)),
        context,
        { taskRows: 1_400, sliceRows: 256 },
      );
      expect(columnar).toEqual(rowPath);
      expect(rejectedOf(rowPath)).toBeGreaterThan(20);
      // Only the rows the columnar checks do not accept outright go to the row mapping.
      expect(byRow).toBe(rejectedOf(rowPath));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Pools of cells, good and bad, per column; `i` is the row's index (for values unique per row). */
type Pool = (string | null | ((i: number) => string))[];

const FOCUS_POOLS: Record<string, Pool> = {
  BilledCost: [
    '1.5',
    '-0.000000000000000001',
    '0',
    '12345678901234.5',
    '1e-7',
    ' 2.50 ',
    '1_000.25',
    'abc',
    '',
    'NULL',
    null,
    '1000000000000000',
    '0.1234567890123456789',
    '99999999999999.999999999999999999',
    '-7.0E-10',
    '+3',
    '.5',
    '5.',
    (i) => `${i}.${i % 1000}`,
  ],
  BillingAccountId: ['111111111111', '222222222222', null, '', 'NULL', 'acc\u200bzero'],
  SubAccountId: [
    '333333333333',
    '444444444444',
    null,
    ' 333333333333 ',
    '(null)',
    'caf\u0065\u0301',
  ],
  BillingCurrency: ['USD', 'usd', 'EUR', 'US$', null, ' EUR '],
  BillingPeriodStart: [
    '2026-11-01T00:00:00Z',
    '2026-11-01 00:00:00',
    '2026-10-01T00:00:00Z',
    null,
    'yesterday',
    '2026-12-01T00:00:00+02:00',
  ],
  ChargePeriodStart: ['2026-11-03T00:00:00Z', '2026-11-05 10:00:00', null, 'bad'],
  ChargePeriodEnd: ['2026-11-04T00:00:00Z', '2026-11-01T00:00:00Z', null, 'NULL'],
  ChargeCategory: ['Usage', 'usage', 'Tax', 'Credit', 'Bogus', null],
  ChargeClass: [null, 'Correction', 'Other'],
  ServiceName: ['Amazon EC2', 'Amazon S3', null, '', 'null', 'x'.repeat(3000), 'Amazon\u00a0EC2'],
  x_ServiceCode: [
    'AmazonEC2',
    null,
    'AmazonS3',
    '',
    ' ',
    'NULL',
    'Amazon EC2',
    'x'.repeat(3000),
    'a\u200db',
  ],
  ProviderName: ['AWS', 'Microsoft', null, '---', ''],
  ServiceProviderName: ['Google Cloud', null, '!!!'],
  ResourceId: [null, 'i-123', 'i-\u0007bell', (i) => `arn:aws:ec2:::instance/i-${i}`],
  Tags: [null, '{"env":"prod"}', '{"a":1}', 'not json', '[]', '{}'],
  ConsumedQuantity: [null, '3', '1.5e3', 'abc', `0.${'1'.repeat(40)}`, (i) => `${i}.25`],
};
const ID_POOL: Pool = ['x-1', null, 'a\u200db', 'NULL'];

const CUR_POOLS: Record<string, (string | number | null)[]> = {
  [CUR_SNAKE_CASE.netUnblendedCost]: [null, 1.25, -0.5, 1e-10, 0.1, 1e16, Number.NaN, 0.1 + 0.2],
  [CUR_SNAKE_CASE.unblendedCost]: [2.5, 0, null, 3.3333333333333335, -7e-10],
  [CUR_SNAKE_CASE.usageAccountId]: [
    '123456789012',
    '000000000001',
    null,
    ' 123456789012',
    'a\u200bb',
  ],
  [CUR_SNAKE_CASE.payerAccountId]: ['999999999999', null],
  [CUR_SNAKE_CASE.billingPeriodStart]: [
    '2026-11-01T00:00:00.000Z',
    '2026-10-01T00:00:00.000Z',
    null,
    'x',
  ],
  [CUR_SNAKE_CASE.usageStart]: ['2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z', null, 'bad'],
  [CUR_SNAKE_CASE.usageEnd]: ['2026-11-02T01:00:00Z', '2026-10-01T00:00:00Z', null, 'bad'],
  [CUR_SNAKE_CASE.currency]: ['USD', 'usd', null, 'US$'],
  [CUR_SNAKE_CASE.lineItemType]: ['Usage', 'Tax', 'Weird', null],
  [CUR_SNAKE_CASE.productCode]: ['AmazonEC2', 'AmazonS3', null, '', 'y'.repeat(300)],
  [CUR_SNAKE_CASE.resourceId]: [null, 'i-1', 'i-\u0007'],
  [CUR_SNAKE_CASE.description]: [null, 'a charge'],
  [CUR_SNAKE_CASE.invoiceId]: [null, 'INV-1'],
};

const isCurCost = (name: string) =>
  name === CUR_SNAKE_CASE.netUnblendedCost || name === CUR_SNAKE_CASE.unblendedCost;

/** A file of `picks.length` rows: row i takes, in each column, the pool entry picks[i][column]. */
const randomFile = (
  pools: Record<string, readonly unknown[]>,
  picks: number[][],
  layout: { rowGroupSize: number; pageSize: number },
): Uint8Array => {
  const names = Object.keys(pools);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: names.map((name, column) => ({
        name,
        data: picks.map((pick, row) => {
          const pool = pools[name];
          const value = pool[pick[column] % pool.length];
          return typeof value === 'function' ? (value as (i: number) => string)(row) : value;
        }),
        type: isCurCost(name) ? ('DOUBLE' as const) : ('STRING' as const),
      })),
      rowGroupSize: layout.rowGroupSize,
      pageSize: layout.pageSize,
    } as never),
  );
};

describe('the columnar path equals the row path on random files', () => {
  const pick = fc.oneof(
    { arbitrary: fc.constant(0), weight: 12 },
    { arbitrary: fc.nat(40), weight: 1 },
  );
  const files = (columns: number) =>
    fc.record({
      // Mostly each pool's first (good) value, so that many rows are booked and not only refused.
      picks: fc.array(fc.array(pick, { minLength: columns, maxLength: columns }), {
        minLength: 1,
        maxLength: 120,
      }),
      // Few values per column in some files: long runs and dictionary pages.
      repeat: fc.integer({ min: 1, max: 30 }),
      rowGroupSize: fc.integer({ min: 5, max: 80 }),
      pageSize: fc.constantFrom(64, 512, 1 << 20),
      sliceRows: fc.integer({ min: 1, max: 50 }),
      taskRows: fc.integer({ min: 1, max: 200 }),
      source: fc.constantFrom(undefined, 'aws', 'Not A Slug!'),
    });
  const repeated = (picks: number[][], repeat: number) =>
    picks.flatMap((pick) => Array.from({ length: repeat }, () => pick)).slice(0, 600);

  it('FOCUS', async () => {
    const booked: number[] = [];
    const pools: Record<string, Pool> = Object.fromEntries(
      FOCUS_COLUMNS_READ.map((name) => [name, FOCUS_POOLS[name] ?? ID_POOL]),
    );
    await fc.assert(
      fc.asyncProperty(files(FOCUS_COLUMNS_READ.length), async (spec) => {
        const bytes = randomFile(pools, repeated(spec.picks, spec.repeat), spec);
        const context = {
          tenant: 'acme',
          objectKey: 'random.parquet',
          billingPeriod: '2026-11',
          ...(spec.source === undefined ? {} : { source: spec.source }),
        };
        const { rowPath, columnar } = await bothPaths(bytes, context, spec);
        expect(columnar).toEqual(rowPath);
        booked.push(rowPath.reduce((sum, result) => sum + result.rows - result.rejectedRows, 0));
      }),
      { numRuns: 60 },
    );
    expect(booked.filter((count) => count > 0).length).toBeGreaterThan(20);
  });

  it('CUR 2.0', async () => {
    await fc.assert(
      fc.asyncProperty(files(Object.keys(CUR_POOLS).length), async (spec) => {
        const bytes = randomFile(CUR_POOLS, repeated(spec.picks, spec.repeat), spec);
        const context = { tenant: 'acme', objectKey: 'random.parquet', billingPeriod: '2026-11' };
        const { rowPath, columnar } = await bothPaths(bytes, context, spec);
        expect(columnar).toEqual(rowPath);
      }),
      { numRuns: 60 },
    );
  });

  it('a tenant the row mapping refuses: every row rejected, as on the row path', async () => {
    const bytes = randomFile(CUR_POOLS, [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], {
      rowGroupSize: 10,
      pageSize: 512,
    });
    const context = { tenant: 'Not A Tenant!', objectKey: 'x.parquet', billingPeriod: '2026-11' };
    const { rowPath, columnar } = await bothPaths(bytes, context);
    expect(columnar).toEqual(rowPath);
    expect(rejectedOf(rowPath)).toBe(1);
  });
});
