/**
 * The Parquet reader decodes only the columns the format's mapping reads (a MAP column nobody maps is
 * never fetched nor decoded), in row slices rather than a whole row group at once, and books the same
 * exact totals as a read of every column.
 */
import * as zlib from 'node:zlib';
import Big from 'big.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { COLUMNS_READ } from '../../../lambda/core/exports/columns-read';
import { readParquetFile, readParquetRows } from '../../../lambda/core/exports/readers/parquet';
import { normalizeExportRow, type RowContext } from '../../../lambda/core/exports/rows';
import {
  FIXTURE_ACCOUNT,
  LEGACY_CUR_FIXTURE,
  parseCsv,
  snakeCase,
} from '../../support/cur-fixture';
import { collect, rangedBuffer, validationErrorOf } from './helpers';

const context: RowContext = {
  tenant: 'acme',
  objectKey: 'cur/file.parquet',
  billingPeriod: '2023-11',
};

const [legacyHeader, ...records] = parseCsv(LEGACY_CUR_FIXTURE);
const cellOf = (record: string[], legacyName: string): string =>
  record[legacyHeader.indexOf(legacyName)];

const stringColumn = (name: string) => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: 'OPTIONAL',
});

/** The fixture's rows as CUR 2.0 Parquet: its columns in snake_case, costs DOUBLE, a MAP `product`. */
const curParquet = (options: { rowGroupSize?: number; pageSize?: number; codec?: 'GZIP' } = {}) => {
  const dates = new Set([
    'bill/BillingPeriodStartDate',
    'lineItem/UsageStartDate',
    'lineItem/UsageEndDate',
  ]);
  const texts = legacyHeader.filter(
    (name) => !name.startsWith('product/') && name !== 'lineItem/UnblendedCost' && !dates.has(name),
  );
  const schema = [
    { name: 'root', num_children: texts.length + dates.size + 2 },
    { name: 'line_item_unblended_cost', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
    ...[...dates].map((name) => ({
      name: snakeCase(name),
      type: 'INT64',
      converted_type: 'TIMESTAMP_MILLIS',
      repetition_type: 'OPTIONAL',
    })),
    ...texts.map((name) => stringColumn(snakeCase(name))),
    { name: 'product', repetition_type: 'OPTIONAL', converted_type: 'MAP', num_children: 1 },
    { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
    { name: 'key', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    { name: 'value', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  ];
  const buffer = parquetWriteBuffer({
    schema: schema as never,
    rowGroupSize: options.rowGroupSize ?? 64,
    pageSize: options.pageSize,
    codec: options.codec,
    compressors: { GZIP: (page: Uint8Array) => zlib.gzipSync(page) },
    columnData: [
      {
        name: 'line_item_unblended_cost',
        data: records.map((record) => Number(cellOf(record, 'lineItem/UnblendedCost'))),
      },
      ...[...dates].map((name) => ({
        name: snakeCase(name),
        data: records.map((record) => {
          const cell = cellOf(record, name);
          return cell === '' ? null : new Date(cell);
        }),
      })),
      ...texts.map((name) => ({
        name: snakeCase(name),
        data: records.map((record) => cellOf(record, name) || null),
      })),
      {
        name: 'product',
        data: records.map((record) =>
          Object.fromEntries(
            legacyHeader
              .filter((name) => name.startsWith('product/'))
              .map((name) => [name.slice('product/'.length), cellOf(record, name)]),
          ),
        ),
      },
    ],
  } as never);
  return new Uint8Array(buffer);
};

/** The bytes of column `name`'s chunks, overwritten with garbage. */
const corruptColumn = async (bytes: Uint8Array, name: string): Promise<Uint8Array> => {
  const { metadata } = await readParquetFile(rangedBuffer(bytes));
  const spoiled = bytes.slice();
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const meta = chunk.meta_data!;
      if (meta.path_in_schema[0] !== name) continue;
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      spoiled.fill(0xff, start, start + Number(meta.total_compressed_size));
    }
  }
  return spoiled;
};

const exactSum = (cells: string[]): string =>
  cells.reduce((sum, cell) => sum.plus(new Big(cell)), new Big(0)).toFixed();

const unblendedCells = records.map((record) => cellOf(record, 'lineItem/UnblendedCost'));

describe('Parquet column projection', () => {
  it('reads a CUR file whose unmapped MAP column is garbage, without fetching its bytes', async () => {
    const bytes = await corruptColumn(curParquet(), 'product');
    const file = rangedBuffer(bytes);
    const parquet = await readParquetFile(file);
    const productChunks = parquet.metadata.row_groups.flatMap((group) =>
      group.columns
        .map((chunk) => chunk.meta_data!)
        .filter((meta) => meta.path_in_schema[0] === 'product')
        .map((meta) => {
          const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
          return [start, start + Number(meta.total_compressed_size)] as const;
        }),
    );
    file.reads.length = 0;

    const { summary } = await aggregateRows(
      readParquetRows(file, parquet, { fromGroup: 0, toGroup: parquet.rowGroups.length }),
      context,
    );

    expect(summary.rowsRejected).toBe(0);
    expect(summary.totals).toEqual([
      expect.objectContaining({ accountId: FIXTURE_ACCOUNT, total: exactSum(unblendedCells) }),
    ]);
    for (const [start, end] of file.reads) {
      for (const [chunkStart, chunkEnd] of productChunks) {
        expect(end <= chunkStart || start >= chunkEnd).toBe(true);
      }
    }
  });

  it('the same garbage fails a read of every column: the MAP column is really broken', async () => {
    const file = rangedBuffer(await corruptColumn(curParquet(), 'product'));
    const parquet = await readParquetFile(file);
    const error = await validationErrorOf(() =>
      collect(
        readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 }, undefined, {
          columns: parquet.columns,
        }),
      ),
    );
    expect(error.code).toBe('malformed-body');
  });

  it('hands on only the mapped columns, and books exactly what a read of every column books', async () => {
    const file = rangedBuffer(curParquet({ rowGroupSize: 70 }));
    const parquet = await readParquetFile(file);
    const range = { fromGroup: 0, toGroup: parquet.rowGroups.length };
    const projected = await collect(readParquetRows(file, parquet, range));
    const everything = await collect(
      readParquetRows(file, parquet, range, undefined, { columns: parquet.columns }),
    );

    expect(parquet.columns.length).toBeGreaterThan(50);
    expect(Object.keys(projected[0].cells).sort()).toEqual(
      parquet.columns.filter((name) => COLUMNS_READ.cur.includes(name)).sort(),
    );
    expect(everything[0].cells.product).toMatchObject({ servicecode: expect.any(String) });
    const normalized = (rows: typeof projected) =>
      rows.map((row) => normalizeExportRow(row, context));
    expect(normalized(projected)).toEqual(normalized(everything));
    const [withProjection, without] = await Promise.all([
      aggregateRows(projected.values() as never, context),
      aggregateRows(everything.values() as never, context),
    ]);
    expect(withProjection.summary).toEqual(without.summary);
    expect(withProjection.summary.totals[0].total).toBe(exactSum(unblendedCells));
  });

  it('refuses to project onto a column the file does not have', async () => {
    const file = rangedBuffer(curParquet());
    const parquet = await readParquetFile(file);
    const error = await validationErrorOf(() =>
      collect(
        readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 }, undefined, {
          columns: ['line_item_unblended_cost', 'no_such_column'],
        }),
      ),
    );
    expect(error).toMatchObject({ code: 'missing-field', field: 'no_such_column' });
  });
});

describe('the mapped columns are every column the row mappings read', () => {
  /** The cells behind a proxy that records every column the mapping asks for. */
  const spied = (cells: Record<string, unknown>, asked: Set<string>) =>
    new Proxy(cells, {
      get: (target, key, receiver) => {
        if (typeof key === 'string') asked.add(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
      has: (target, key) => {
        if (typeof key === 'string') asked.add(key);
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor: (target, key) => {
        if (typeof key === 'string') asked.add(key);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });

  it('CUR 2.0 and legacy CUR: no column outside COLUMNS_READ is looked at', () => {
    for (const [format, names] of [
      ['cur', legacyHeader.map(snakeCase)],
      ['cur-legacy-csv', legacyHeader],
    ] as const) {
      for (const record of records.slice(0, 20)) {
        const asked = new Set<string>();
        const cells = Object.fromEntries(names.map((name, index) => [name, record[index]]));
        normalizeExportRow({ rowIndex: 0, cells: spied(cells, asked), format }, context);
        expect([...asked].filter((name) => !COLUMNS_READ[format].includes(name))).toEqual([]);
      }
    }
  });

  it('FOCUS: no column outside COLUMNS_READ is looked at, with or without ProviderName', () => {
    const row = {
      BilledCost: '1.5',
      BillingAccountId: '000000000001',
      BillingCurrency: 'USD',
      BillingPeriodStart: '2023-11-01T00:00:00Z',
      BillingPeriodEnd: '2023-12-01T00:00:00Z',
      ChargeCategory: 'Usage',
      ChargeClass: 'Correction',
      ChargePeriodStart: '2023-11-02T00:00:00Z',
      ChargePeriodEnd: '2023-11-03T00:00:00Z',
      ConsumedQuantity: '2',
      ConsumedUnit: 'Hours',
      EffectiveCost: '1.4',
      ListCost: '2',
      SubAccountId: '000000000002',
      SubAccountName: 'dev',
      ServiceName: 'Amazon EC2',
      Tags: '{"team":"a"}',
      x_ServiceCode: 'AmazonEC2',
    };
    for (const provider of [{ ProviderName: 'AWS' }, { ServiceProviderName: 'AWS' }]) {
      const asked = new Set<string>();
      normalizeExportRow(
        { rowIndex: 0, cells: spied({ ...row, ...provider }, asked), format: 'focus' },
        context,
      );
      expect([...asked].filter((name) => !COLUMNS_READ.focus.includes(name))).toEqual([]);
    }
  });
});

describe('a row group decoded a slice at a time', () => {
  /** 2,000 CUR rows in one row group of small GZIP pages; ids and descriptions all different. */
  const oneGroup = () => {
    const rows = Array.from({ length: 2_000 }, (_, index) => index);
    const text = (name: string, value: (index: number) => string) => ({
      name,
      data: rows.map(value),
      type: 'STRING' as const,
    });
    return rangedBuffer(
      new Uint8Array(
        parquetWriteBuffer({
          columnData: [
            { name: 'line_item_unblended_cost', data: rows.map((i) => i / 8), type: 'DOUBLE' },
            text('line_item_usage_account_id', () => '012345678901'),
            text('line_item_currency_code', () => 'USD'),
            text('bill_billing_period_start_date', () => '2023-11-01T00:00:00Z'),
            text('line_item_line_item_type', () => 'Usage'),
            text(
              'line_item_resource_id',
              (i) => `arn:aws:ec2:eu-west-1:012345678901:instance/i-${i}`,
            ),
            text('line_item_line_item_description', (i) => `$0.0${i} per On Demand Linux hour`),
          ],
          rowGroupSize: 2_000,
          pageSize: 1_024,
          codec: 'GZIP',
          compressors: { GZIP: (page: Uint8Array) => zlib.gzipSync(page) },
        } as never),
      ),
    );
  };

  /** Uncompressed bytes the reader has inflated when it has handed on `take` rows. */
  const bytesInflated = async (sliceRows: number, take: number): Promise<number> => {
    const file = oneGroup();
    const parquet = await readParquetFile(file);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself: the reader looks gunzipSync up on it at each page
    const inflate = jest.spyOn(require('node:zlib') as typeof zlib, 'gunzipSync');
    try {
      const rows = readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 }, undefined, {
        sliceRows,
      });
      for (let taken = 0; taken < take; taken += 1) await rows.next();
      await rows.return(undefined);
      return inflate.mock.results.reduce(
        (sum, result) => sum + (result.value as Uint8Array).byteLength,
        0,
      );
    } finally {
      inflate.mockRestore();
    }
  };

  it('inflates only the pages of the first slice before the first rows are handed on', async () => {
    const wholeGroup = await bytesInflated(2_000, 1);
    const firstSlice = await bytesInflated(100, 1);
    expect(wholeGroup).toBeGreaterThan(100_000);
    expect(firstSlice).toBeLessThan(wholeGroup / 10);
  });

  it('books the same rows whatever the slice size', async () => {
    const file = rangedBuffer(curParquet({ rowGroupSize: 90, pageSize: 256 }));
    const parquet = await readParquetFile(file);
    const read = (sliceRows: number) =>
      collect(
        readParquetRows(
          file,
          parquet,
          { fromGroup: 0, toGroup: parquet.rowGroups.length, fromRow: 33 },
          undefined,
          { sliceRows },
        ),
      );
    const whole = await read(1_000);
    expect(whole).toHaveLength(records.length - 33);
    for (const sliceRows of [1, 7, 64]) expect(await read(sliceRows)).toEqual(whole);
  });
});
