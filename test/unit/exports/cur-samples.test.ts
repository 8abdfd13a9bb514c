/**
 * The CUR samples of every layout (test/fixtures/cur/SOURCES.md) through the real readers: the
 * totals per account and period equal an exact big.js sum computed here from the raw cells — read
 * from the CSV text or by hyparquet directly, not by the code under test.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Big from 'big.js';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import { readParquetFile, readParquetRows } from '../../../lambda/core/exports/readers/parquet';
import {
  normalizeExportRow,
  type ExportRow,
  type RowContext,
} from '../../../lambda/core/exports/rows';
import { parseCsv } from '../../support/cur-fixture';
import {
  CUR_SAMPLE_FILES,
  CUR_SAMPLES_DIR,
  CUR2_CSV_GZ,
  CUR2_PARQUET,
  LEGACY_PARQUET,
  SPLIT_COST_COLUMNS,
} from '../../support/cur-samples';
import { planDelivery } from '../../../lambda/core/exports/plan-delivery';
import type { ExportTaskMessage } from '../../../lambda/core/exports/task-message';
import { legacyCurDelivery } from '../../support/legacy-cur-delivery';
import { chunked, collect, rangedBuffer } from './helpers';

const sample = (name: string): Buffer => readFileSync(path.join(CUR_SAMPLES_DIR, name));
const LEGACY_CSV = 'legacy-cur-anonymized-2023-11-excerpt.csv';

const context: RowContext = { tenant: 'acme', objectKey: 'cur/file', billingPeriod: '2023-11' };

type Raw = Record<string, unknown>;

/** The raw rows of a CSV sample, parsed here. */
const csvRaw = (bytes: Buffer, gzip: boolean): Raw[] => {
  const [header, ...records] = parseCsv((gzip ? gunzipSync(bytes) : bytes).toString('utf8'));
  return records.map((record) => Object.fromEntries(header.map((name, i) => [name, record[i]])));
};

/** The raw rows of a Parquet sample, read by hyparquet itself. */
const parquetRaw = async (bytes: Buffer): Promise<Raw[]> => {
  const file = new Uint8Array(bytes).buffer;
  return (await parquetReadObjects({ file })) as Raw[];
};

interface Names {
  net?: string;
  cost: string;
  account: string;
  period: string;
}
const SNAKE: Names = {
  net: 'line_item_net_unblended_cost',
  cost: 'line_item_unblended_cost',
  account: 'line_item_usage_account_id',
  period: 'bill_billing_period_start_date',
};
const LEGACY: Names = {
  net: 'lineItem/NetUnblendedCost',
  cost: 'lineItem/UnblendedCost',
  account: 'lineItem/UsageAccountId',
  period: 'bill/BillingPeriodStartDate',
};

const blank = (cell: unknown): boolean => cell === undefined || cell === null || cell === '';
const monthOf = (cell: unknown): string =>
  (cell instanceof Date ? cell.toISOString() : String(cell)).slice(0, 7);

/** The rule, applied here to raw cells: net unblended cost where set, else unblended; exact. */
const expectedTotals = (rows: Raw[], names: Names): Record<string, string> => {
  const sums = new Map<string, Big>();
  for (const row of rows) {
    const cell =
      names.net !== undefined && !blank(row[names.net]) ? row[names.net] : row[names.cost];
    const key = `${String(row[names.account])} ${monthOf(row[names.period])}`;
    sums.set(key, (sums.get(key) ?? new Big(0)).plus(new Big(String(cell))));
  }
  return Object.fromEntries([...sums].map(([key, sum]) => [key, sum.toFixed()]));
};

const bookedTotals = async (rows: AsyncIterable<ExportRow>) => {
  const { summary } = await aggregateRows(rows, context);
  expect(summary.rowsRejected).toBe(0);
  return Object.fromEntries(
    summary.totals.map((total) => [`${total.accountId} ${total.period}`, total.total]),
  );
};

/** Every column (`allColumns`), or only those the format's mapping reads, as the worker does. */
const parquetRows = async (bytes: Buffer, allColumns = false) => {
  const file = rangedBuffer(new Uint8Array(bytes));
  const parquet = await readParquetFile(file);
  const range = { fromGroup: 0, toGroup: parquet.rowGroups.length };
  return {
    parquet,
    rows: readParquetRows(
      file,
      parquet,
      range,
      undefined,
      allColumns ? { columns: parquet.columns } : {},
    ),
  };
};

describe('the committed CUR samples', () => {
  it.each(Object.keys(CUR_SAMPLE_FILES))(
    '%s is what test/support/cur-samples.ts writes',
    (name) => {
      expect(Buffer.from(CUR_SAMPLE_FILES[name]()).equals(sample(name))).toBe(true);
    },
  );
});

describe('totals per account and period equal the exact sum of the raw cells', () => {
  it('legacy CUR CSV (real)', async () => {
    const bytes = sample(LEGACY_CSV);
    const expected = expectedTotals(csvRaw(bytes, false), LEGACY);
    expect(await bookedTotals(readCsvRows(chunked(bytes, 4096), { gzip: false }))).toEqual(
      expected,
    );
    expect(expected).toEqual({ '123412340534 2023-11': '0.3108851472' });
  });

  it('CUR 2.0 CSV.gz', async () => {
    const bytes = sample(CUR2_CSV_GZ);
    const expected = expectedTotals(csvRaw(bytes, true), SNAKE);
    const rows = await collect(readCsvRows(chunked(bytes, 4096), { gzip: true }));
    expect(rows[0].format).toBe('cur');
    expect(await bookedTotals(rows.values() as unknown as AsyncIterable<ExportRow>)).toEqual(
      expected,
    );
    expect(expected).toEqual({ '123412340534 2023-11': '0.3108851472' });
  });

  it('CUR 2.0 Parquet (INT96 dates, MAP columns)', async () => {
    const bytes = sample(CUR2_PARQUET);
    const expected = expectedTotals(await parquetRaw(bytes), SNAKE);
    const { parquet, rows } = await parquetRows(bytes);
    expect(parquet.format).toBe('cur');
    expect(parquet.rowGroups.length).toBeGreaterThan(1);
    expect(await bookedTotals(rows)).toEqual(expected);
    expect(expected).toEqual({ '123412340534 2023-11': '0.3108851472' });
  });

  it('legacy CUR Parquet (Athena integration)', async () => {
    const bytes = sample(LEGACY_PARQUET);
    const expected = expectedTotals(await parquetRaw(bytes), SNAKE);
    const { parquet, rows } = await parquetRows(bytes);
    expect(parquet.format).toBe('cur');
    expect(await bookedTotals(rows)).toEqual(expected);
    expect(expected).toEqual({ '123412340534 2023-11': '0.3108851472' });
  });
});

describe('CUR 2.0 Parquet cells', () => {
  it('has INT96 dates and MAP columns, as Spark writes them', () => {
    const bytes = sample(CUR2_PARQUET);
    const { schema } = parquetMetadata(new Uint8Array(bytes).buffer);
    const element = (name: string) => schema.find((candidate) => candidate.name === name);
    expect(element('bill_billing_period_start_date')?.type).toBe('INT96');
    expect(element('line_item_usage_start_date')?.type).toBe('INT96');
    expect(element('product')?.converted_type).toBe('MAP');
    expect(element('resource_tags')?.converted_type).toBe('MAP');
  });

  it('decodes INT96 to the instant and the maps to objects, row for row', async () => {
    const raw = csvRaw(sample(CUR2_CSV_GZ), true);
    const { rows } = await parquetRows(sample(CUR2_PARQUET), true);
    let index = 0;
    for await (const row of rows) {
      const csv = raw[index];
      expect(row.cells.bill_billing_period_start_date).toBe(csv.bill_billing_period_start_date);
      expect(row.cells.line_item_usage_start_date).toBe(csv.line_item_usage_start_date);
      expect(row.cells.product).toEqual(JSON.parse(String(csv.product)));
      expect(row.cells.resource_tags).toEqual(JSON.parse(String(csv.resource_tags)));
      const result = normalizeExportRow(row, context);
      if (!result.ok) throw new Error(result.rejection.reason);
      expect(result.charge.event).toMatchObject({
        billingPeriodStart: '2023-11-01T00:00:00.000Z',
        chargePeriodStart: csv.line_item_usage_start_date,
      });
      index += 1;
    }
    expect(index).toBe(raw.length);
    expect(raw.some((csv) => JSON.parse(String(csv.resource_tags)).user_team === 'payments')).toBe(
      true,
    );
  });
});

describe('split cost allocation columns', () => {
  it.each([
    ['CUR 2.0 CSV.gz', CUR2_CSV_GZ],
    ['CUR 2.0 Parquet', CUR2_PARQUET],
  ])('are never added (%s)', async (_label, name) => {
    const raw = csvRaw(sample(CUR2_CSV_GZ), true);
    const split = raw.flatMap((row) => SPLIT_COST_COLUMNS.map((column) => String(row[column])));
    const splitSum = split
      .filter((cell) => cell !== '')
      .reduce((sum, cell) => sum.plus(cell), new Big(0));
    expect(splitSum.gt(1000)).toBe(true);
    const bytes = sample(name);
    const booked = name.endsWith('.parquet')
      ? await bookedTotals((await parquetRows(bytes)).rows)
      : await bookedTotals(readCsvRows(chunked(bytes, 4096), { gzip: true }));
    expect(booked).toEqual({
      '123412340534 2023-11': expectedTotals(raw, SNAKE)['123412340534 2023-11'],
    });
    expect(booked['123412340534 2023-11']).not.toBe(
      new Big(expectedTotals(raw, SNAKE)['123412340534 2023-11']).plus(splitSum).toFixed(),
    );
  });
});

describe('the legacy CUR Athena layout through the planner', () => {
  it('plans the Parquet partition once READY; its tasks read the sample to the exact sum', async () => {
    const bytes = sample(LEGACY_PARQUET);
    const delivery = legacyCurDelivery({
      bucket: 'exports',
      prefix: 'acme/cur',
      report: 'athena',
      period: '2023-11',
      assemblyId: 'athena-assembly-1',
      columns: [
        'lineItem/UnblendedCost',
        'lineItem/UsageAccountId',
        'lineItem/CurrencyCode',
        'bill/BillingPeriodStartDate',
        'lineItem/LineItemType',
      ],
      fileNames: ['athena-00001.snappy.parquet'],
      layout: 'athena',
    });
    expect(delivery.dataFileKeys).toEqual([
      'acme/cur/athena/athena/year=2023/month=11/athena-00001.snappy.parquet',
    ]);
    const sent: ExportTaskMessage[] = [];
    let status = 'UPDATING';
    const options = {
      sources: [{ tenant: 'acme', bucket: 'exports', prefix: 'acme' }],
      targetRowsPerTask: 100,
      objects: {
        readText: () => Promise.resolve(delivery.json),
        dataStatus: () => Promise.resolve(status),
        factsOf: async (file: { key: string }) => ({
          key: file.key,
          size: bytes.length,
          rowGroups: (await readParquetFile(rangedBuffer(new Uint8Array(bytes)))).rowGroups.map(
            (group) => group.rowCount,
          ),
        }),
      },
      plans: {
        recordPlan: () => Promise.resolve('planned' as const),
        readPlan: () => Promise.resolve(undefined),
        markEnqueued: () => Promise.resolve(),
      },
      queue: {
        send: (messages: readonly ExportTaskMessage[]) =>
          Promise.resolve(void sent.push(...messages)),
      },
    };
    const created = {
      bucket: 'exports',
      key: delivery.periodManifestKey,
      eventTime: '2023-11-20T06:00:00.000Z',
      sequencer: '0A',
    };
    await expect(planDelivery(created, options)).rejects.toThrow(/not READY/);
    status = 'READY';
    expect((await planDelivery(created, options)).outcome).toBe('planned');
    expect(sent.length).toBeGreaterThan(1);
    const file = rangedBuffer(new Uint8Array(bytes));
    const parquet = await readParquetFile(file);
    const { summary } = await aggregateRows(
      (async function* () {
        for (const { task } of sent) {
          if (task.kind !== 'parquet-range') throw new Error('expected Parquet ranges');
          yield* readParquetRows(file, parquet, {
            fromGroup: task.firstRowGroup,
            toGroup: task.endRowGroup,
          });
        }
      })(),
      context,
    );
    expect(summary.rowsAccepted).toBe(200);
    expect(summary.totals.map((total) => total.total)).toEqual([
      expectedTotals(await parquetRaw(bytes), SNAKE)['123412340534 2023-11'],
    ]);
  });
});
