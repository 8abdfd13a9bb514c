import { ValidationError } from '../../../lambda/core/errors';
import { chunkResults, type ChunkResult } from '../../../lambda/core/exports/chunk';
import type { CsvTask, ParquetTask } from '../../../lambda/core/exports/plan';
import type { ExportRow } from '../../../lambda/core/exports/rows';

const OBJECT_KEY = 'acme/focus/data/BILLING_PERIOD=2026-11/e-1/part-0.csv';
const csvTask: CsvTask = { index: 3, kind: 'csv-file', objectKey: OBJECT_KEY, format: 'csv' };
const context = { tenant: 'acme', billingPeriod: '2026-11', source: 'aws', objectKey: OBJECT_KEY };

const row = (rowIndex: number, cells: Record<string, string> = {}): ExportRow => ({
  rowIndex,
  cells: {
    BilledCost: '0.1',
    BillingAccountId: '200000000011',
    BillingCurrency: 'USD',
    BillingPeriodStart: '2026-11-01T00:00:00Z',
    ChargeCategory: 'Usage',
    ChargePeriodStart: `2026-11-01T${String(rowIndex % 24).padStart(2, '0')}:00:00Z`,
    ChargePeriodEnd: '2026-11-02T00:00:00Z',
    ServiceName: 'EC2',
    ...cells,
  },
});

async function* rows(
  count: number,
  from = 0,
  cells: (index: number) => Record<string, string> = () => ({}),
) {
  for (let index = from; index < count; index += 1) yield row(index, cells(index));
}

const all = async (results: AsyncIterable<ChunkResult>): Promise<ChunkResult[]> => {
  const list: ChunkResult[] = [];
  for await (const result of results) list.push(result);
  return list;
};

describe('chunkResults (CSV)', () => {
  it('yields a result every R rows, the last flagged, with the row offsets reached', async () => {
    const results = await all(
      chunkResults({ task: csvTask, rows: rows(7), fromRow: 0, context, subChunkRows: 3 }),
    );
    expect(results.map((r) => [r.chunkId, r.fromRow, r.toRow, r.rows, r.last])).toEqual([
      ['00003.000000000000', 0, 3, 3, false],
      ['00003.000000000003', 3, 6, 3, false],
      ['00003.000000000006', 6, 7, 1, true],
    ]);
    expect(results.map((r) => r.totals['200000000011'].USD)).toEqual([
      { total: '0.3', charges: 3, services: { EC2: '0.3' } },
      { total: '0.3', charges: 3, services: { EC2: '0.3' } },
      { total: '0.1', charges: 1, services: { EC2: '0.1' } },
    ]);
  });

  it('a file of exactly k × R rows ends on a full last sub-chunk (no empty extra commit)', async () => {
    const results = await all(
      chunkResults({ task: csvTask, rows: rows(4), fromRow: 0, context, subChunkRows: 2 }),
    );
    expect(results.map((r) => [r.fromRow, r.toRow, r.last])).toEqual([
      [0, 2, false],
      [2, 4, true],
    ]);
  });

  it('resumes at the cursor: ids and offsets continue from `fromRow`; an exhausted file still finishes the task', async () => {
    const resumed = await all(
      chunkResults({ task: csvTask, rows: rows(7, 4), fromRow: 4, context, subChunkRows: 2 }),
    );
    expect(resumed.map((r) => [r.chunkId, r.fromRow, r.toRow, r.last])).toEqual([
      ['00003.000000000004', 4, 6, false],
      ['00003.000000000006', 6, 7, true],
    ]);
    const nothingLeft = await all(
      chunkResults({ task: csvTask, rows: rows(7, 7), fromRow: 7, context, subChunkRows: 2 }),
    );
    expect(nothingLeft).toEqual([
      expect.objectContaining({ fromRow: 7, toRow: 7, rows: 0, last: true }),
    ]);
  });

  it('counts rejected rows per reason with samples naming file and row, and keeps the valid ones', async () => {
    const [result] = await all(
      chunkResults({
        task: csvTask,
        rows: rows(5, 0, (index): Record<string, string> => {
          if (index === 1) return { BilledCost: 'abc' };
          return index === 3 ? { BillingCurrency: '' } : {};
        }),
        fromRow: 0,
        context,
        subChunkRows: 10,
      }),
    );
    expect(result).toMatchObject({ rows: 5, rejectedRows: 2, last: true });
    expect(result.rejectedByReason).toEqual({
      'invalid-field:BilledCost': 1,
      'missing-field:BillingCurrency': 1,
    });
    expect(result.samples.map((sample) => [sample.objectKey, sample.row])).toEqual([
      [OBJECT_KEY, 2],
      [OBJECT_KEY, 4],
    ]);
    expect(result.totals['200000000011'].USD).toMatchObject({ total: '0.3', charges: 3 });
  });

  it('books rows to the binding tenant whatever they name', async () => {
    const [result] = await all(
      chunkResults({
        task: csvTask,
        rows: rows(2, 0, () => ({ tenant: 'globex', x_Tenant: 'globex' })),
        fromRow: 0,
        context,
        subChunkRows: 10,
      }),
    );
    expect(result).toMatchObject({ rows: 2, rejectedRows: 0 });
    expect(Object.keys(result.totals)).toEqual(['200000000011']);
  });

  it('refuses a sub-chunk size that is not a positive whole number', () => {
    expect(() =>
      chunkResults({ task: csvTask, rows: rows(1), fromRow: 0, context, subChunkRows: 0 }),
    ).toThrow(ValidationError);
  });
});

describe('chunkResults (Parquet range)', () => {
  const range: ParquetTask = {
    index: 1,
    kind: 'parquet-range',
    objectKey: OBJECT_KEY,
    format: 'parquet',
    firstRowGroup: 2,
    endRowGroup: 4,
    firstRow: 100,
    rows: 5,
  };

  it('yields one result for the whole range, whatever R', async () => {
    const results = await all(
      chunkResults({ task: range, rows: rows(105, 100), fromRow: 0, context, subChunkRows: 2 }),
    );
    expect(results.map((r) => [r.chunkId, r.fromRow, r.toRow, r.rows, r.last])).toEqual([
      ['00001', 100, 105, 5, true],
    ]);
  });

  it('fails when the range gives another number of rows than its footer says', async () => {
    await expect(
      all(
        chunkResults({ task: range, rows: rows(104, 100), fromRow: 0, context, subChunkRows: 2 }),
      ),
    ).rejects.toThrow('gave 4 rows, the footer says 5');
  });
});
