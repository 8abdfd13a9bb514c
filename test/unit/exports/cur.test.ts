/**
 * AWS Cost and Usage Reports through the real readers and the row normalizer: the legacy CUR CSV
 * excerpt is real (test/fixtures/cur/SOURCES.md); its CUR 2.0 / Parquet forms are the same cells under
 * AWS's snake_case names. Expected totals are summed here with big.js from the raw cells.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Big from 'big.js';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import { readParquetFile, readParquetRows } from '../../../lambda/core/exports/readers/parquet';
import { normalizeExportRow, type RowContext } from '../../../lambda/core/exports/rows';
import { parseCsv, snakeCase } from '../../support/cur-fixture';
import { chunked, collect, rangedBuffer, validationErrorOf } from './helpers';

const LEGACY_CSV = readFileSync(
  path.join(__dirname, '..', '..', 'fixtures', 'cur', 'legacy-cur-anonymized-2023-11-excerpt.csv'),
);

const context: RowContext = { tenant: 'acme', objectKey: 'cur/file', billingPeriod: '2023-11' };

const [legacyHeader, ...legacyRecords] = parseCsv(LEGACY_CSV.toString('utf8'));
const column = (name: string): number => legacyHeader.indexOf(name);

const exactTotal = (cells: string[]): string =>
  cells.reduce((sum, cell) => sum.plus(new Big(cell)), new Big(0)).toFixed();

const toCsv = (records: string[][]): Buffer =>
  Buffer.from(
    records
      .map((record) =>
        record
          .map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell))
          .join(','),
      )
      .join('\n'),
  );

const summaryOf = async (rows: AsyncIterable<Parameters<typeof normalizeExportRow>[0]>) =>
  (await aggregateRows(rows, context)).summary;

describe('legacy CUR CSV (real, anonymized)', () => {
  const costs = legacyRecords.map((record) => record[column('lineItem/UnblendedCost')]);

  it('holds what real files hold: E-notation cells, one account, one period', () => {
    expect(costs.filter((cell) => /E/.test(cell)).length).toBeGreaterThan(50);
    expect(new Set(legacyRecords.map((r) => r[column('lineItem/UsageAccountId')]))).toEqual(
      new Set(['123412340534']),
    );
  });

  it.each([false, true])(
    'books every row, totals equal the exact sum of the cells (gzip %s)',
    async (gzip) => {
      const bytes = gzip ? gzipSync(LEGACY_CSV) : LEGACY_CSV;
      const summary = await summaryOf(readCsvRows(chunked(bytes, 4096), { gzip }));
      expect(summary.rowsRejected).toBe(0);
      expect(summary.rowsAccepted).toBe(legacyRecords.length);
      expect(summary.totals).toHaveLength(1);
      expect(summary.totals[0]).toMatchObject({
        accountId: '123412340534',
        period: '2023-11',
        currency: 'USD',
        total: exactTotal(costs),
        rows: legacyRecords.length,
      });
    },
  );

  it('maps the line item type to the charge category and the product code to the service', () => {
    const [tax] = legacyRecords;
    const cells = Object.fromEntries(legacyHeader.map((name, i) => [name, tax[i]]));
    const result = normalizeExportRow({ rowIndex: 0, cells, format: 'cur-legacy-csv' }, context);
    expect(result).toMatchObject({
      ok: true,
      charge: { accountId: '123412340534', service: 'AWSCloudTrail' },
    });
    if (result.ok) {
      expect(result.charge.event).toMatchObject({
        chargeCategory: 'tax',
        billingAccountId: '123412340534',
        source: 'aws',
      });
    }
  });
});

describe('CUR 2.0 (the same cells under snake_case names)', () => {
  const header = legacyHeader.map(snakeCase);

  it('recognises CUR 2.0 from the header and books the same totals', async () => {
    expect(header).toContain('line_item_unblended_cost');
    const bytes = toCsv([header, ...legacyRecords]);
    const rows = await collect(readCsvRows(chunked(bytes, 1000), { gzip: false }));
    expect(rows[0].format).toBe('cur');
    const summary = await summaryOf(rows.values() as unknown as AsyncIterable<(typeof rows)[0]>);
    expect(summary.rowsRejected).toBe(0);
    expect(summary.totals[0].total).toBe(
      exactTotal(legacyRecords.map((r) => r[column('lineItem/UnblendedCost')])),
    );
  });

  it('books the net unblended cost where the cell is set, else the unblended cost', async () => {
    const withNet = [...header, 'line_item_net_unblended_cost'];
    const records = legacyRecords
      .slice(0, 40)
      .map((record, index) => [...record, index % 2 === 0 ? '' : '-7.0E-10']);
    const summary = await summaryOf(
      readCsvRows(chunked(toCsv([withNet, ...records]), 512), { gzip: false }),
    );
    const expected = records.map((record, index) =>
      index % 2 === 0 ? record[column('lineItem/UnblendedCost')] : '-7.0E-10',
    );
    expect(summary.totals[0].total).toBe(exactTotal(expected));
  });

  it('reads Parquet: DOUBLE costs, INT64 millisecond timestamps, ids as text with leading zeros', async () => {
    const rows = legacyRecords.slice(0, 120);
    const cost = rows.map((r) => r[column('lineItem/UnblendedCost')]);
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'line_item_unblended_cost', data: cost.map(Number), type: 'DOUBLE' },
        {
          name: 'line_item_usage_account_id',
          data: rows.map(() => '012345678901'),
          type: 'STRING',
        },
        { name: 'bill_payer_account_id', data: rows.map(() => '000000000042'), type: 'STRING' },
        { name: 'line_item_currency_code', data: rows.map(() => 'USD'), type: 'STRING' },
        {
          name: 'bill_billing_period_start_date',
          data: rows.map(() => new Date('2023-11-01T00:00:00Z')),
          type: 'TIMESTAMP',
        },
        {
          name: 'line_item_line_item_type',
          data: rows.map((r) => r[column('lineItem/LineItemType')]),
          type: 'STRING',
        },
        { name: 'split_line_item_split_cost', data: rows.map(() => 1000), type: 'DOUBLE' },
      ],
      rowGroupSize: 50,
    });
    const file = rangedBuffer(new Uint8Array(buffer));
    const parquet = await readParquetFile(file);
    expect(parquet.format).toBe('cur');
    const read = readParquetRows(file, parquet, {
      fromGroup: 0,
      toGroup: parquet.rowGroups.length,
    });
    const summary = await summaryOf(read);
    expect(summary.rowsRejected).toBe(0);
    expect(summary.totals).toEqual([
      expect.objectContaining({
        accountId: '012345678901',
        period: '2023-11',
        total: exactTotal(cost),
      }),
    ]);
  });
});

describe('rows that cannot be booked, and files of no known format', () => {
  const header = [
    'line_item_unblended_cost',
    'line_item_usage_account_id',
    'line_item_currency_code',
    'bill_billing_period_start_date',
    'line_item_line_item_type',
  ];

  it('rejects a row only for its amount, account, currency or period; an unknown type still counts', async () => {
    const bytes = toCsv([
      header,
      ['1.5', '000123456789', 'USD', '2023-11-01T00:00:00Z', 'SomeFutureType'],
      ['abc', '000123456789', 'USD', '2023-11-01T00:00:00Z', 'Usage'],
      ['1', '', 'USD', '2023-11-01T00:00:00Z', 'Usage'],
      ['1', '000123456789', '', '2023-11-01T00:00:00Z', 'Usage'],
      ['1', '000123456789', 'USD', '', 'Usage'],
      ['-1.3333E-6', '000123456789', 'USD', '2023-11-01T00:00:00.000Z', ''],
    ]);
    const summary = await summaryOf(readCsvRows(chunked(bytes), { gzip: false }));
    expect(summary.rejectedByReason).toEqual({
      'invalid-field:line_item_unblended_cost': 1,
      'missing-field:line_item_usage_account_id': 1,
      'missing-field:line_item_currency_code': 1,
      'missing-field:bill_billing_period_start_date': 1,
    });
    expect(summary.totals).toEqual([
      expect.objectContaining({ accountId: '000123456789', total: '1.4999986667', rows: 2 }),
    ]);
  });

  it('refuses a file whose columns match no format, listing what each format needs', async () => {
    const error = await validationErrorOf(() =>
      collect(
        readCsvRows(
          chunked(
            toCsv([
              ['cost', 'account'],
              ['1', '2'],
            ]),
          ),
          { gzip: false },
        ),
      ),
    );
    expect(error.code).toBe('unknown-format');
    expect(error.reason).toMatch(/FOCUS needs BilledCost/);
    expect(error.reason).toMatch(/CUR 2\.0 .* needs line_item_unblended_cost/);
    expect(error.reason).toMatch(/legacy CUR CSV needs lineItem\/UnblendedCost/);
  });
});
