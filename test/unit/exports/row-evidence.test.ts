import { addDecimals } from '../../../lambda/core/decimal';
import { chunkResults } from '../../../lambda/core/exports/chunk';
import type { CsvTask, ExportTask, ParquetTask } from '../../../lambda/core/exports/plan';
import { checkRowEvidence, collectRowEvidence } from '../../../lambda/core/exports/row-evidence';
import type { ExportRow } from '../../../lambda/core/exports/rows';

const ACCOUNT = '200000000011';
const OTHER = '200000000022';
const csvTask: CsvTask = {
  index: 0,
  kind: 'csv-file',
  objectKey: 'acme/focus/data/part-0.csv',
  format: 'csv',
  pin: { versionId: 'v1', eTag: '"aaa"' },
};
const parquetTask: ParquetTask = {
  index: 1,
  kind: 'parquet-range',
  objectKey: 'acme/focus/data/part-1.parquet',
  format: 'parquet',
  pin: { eTag: '"bbb"' },
  firstRowGroup: 1,
  endRowGroup: 2,
  firstRow: 100,
  rows: 3,
};
const context = { tenant: 'acme', billingPeriod: '2026-11', source: 'aws' };

const row = (rowIndex: number, cells: Record<string, string>): ExportRow => ({
  rowIndex,
  cells: {
    BillingAccountId: ACCOUNT,
    BillingCurrency: 'USD',
    BillingPeriodStart: '2026-11-01T00:00:00Z',
    ChargeCategory: 'Usage',
    ChargePeriodStart: '2026-11-03T00:00:00Z',
    ChargePeriodEnd: '2026-11-03T01:00:00Z',
    ServiceName: 'EC2',
    ...cells,
  },
});

const ROWS: Record<string, ExportRow[]> = {
  [csvTask.objectKey]: [
    row(0, { BilledCost: '0.1' }),
    row(1, { BilledCost: '5', BillingAccountId: OTHER }),
    row(2, { BilledCost: '0.2' }),
    row(3, { BilledCost: 'not money' }),
  ],
  [parquetTask.objectKey]: [
    row(100, { BilledCost: '1.000000000000000001', BillingCurrency: 'EUR' }),
    row(101, { BilledCost: '-0.3' }),
    row(102, { BilledCost: '2', BillingPeriodStart: '2026-10-01T00:00:00Z' }),
  ],
};

async function* rowsOf(task: ExportTask): AsyncGenerator<ExportRow> {
  yield* ROWS[task.objectKey];
}

// Listed out of order: the evidence follows the plan's task order.
const tasks = [parquetTask, csvTask];

describe('collectRowEvidence', () => {
  it("lists the account's booked rows with file, pinned version and 1-based row, and sums them exactly", async () => {
    const evidence = await collectRowEvidence({
      tasks,
      accountId: ACCOUNT,
      context,
      openRows: rowsOf,
    });
    expect(evidence.rows).toEqual([
      {
        objectKey: csvTask.objectKey,
        versionId: 'v1',
        eTag: '"aaa"',
        row: 1,
        amount: '0.1',
        currency: 'USD',
      },
      {
        objectKey: csvTask.objectKey,
        versionId: 'v1',
        eTag: '"aaa"',
        row: 3,
        amount: '0.2',
        currency: 'USD',
      },
      {
        objectKey: parquetTask.objectKey,
        eTag: '"bbb"',
        row: 101,
        amount: '1.000000000000000001',
        currency: 'EUR',
      },
      {
        objectKey: parquetTask.objectKey,
        eTag: '"bbb"',
        row: 102,
        amount: '-0.3',
        currency: 'USD',
      },
    ]);
    // 0.1 + 0.2 − 0.3 is 0 exactly (as floats it is 5.55e-17); rejected and other accounts' rows left out.
    expect(evidence.totals).toEqual([
      { currency: 'EUR', total: '1.000000000000000001', rows: 1 },
      { currency: 'USD', total: '0', rows: 3 },
    ]);
    expect(evidence).toMatchObject({ booked: 4, read: 7 });
  });

  it('keeps only `keep` rows, the totals still over all of them', async () => {
    const evidence = await collectRowEvidence({
      tasks,
      accountId: ACCOUNT,
      context,
      openRows: rowsOf,
      keep: 1,
    });
    expect(evidence.rows.map((r) => r.row)).toEqual([1]);
    expect(evidence.booked).toBe(4);
    expect(evidence.totals.find((t) => t.currency === 'USD')).toEqual({
      currency: 'USD',
      total: '0',
      rows: 3,
    });
  });

  it('equals what the chunk worker books from the same rows', async () => {
    const booked: Record<string, { total: string; charges: number }> = {};
    for (const task of tasks)
      for await (const result of chunkResults({
        task,
        rows: rowsOf(task),
        fromRow: 0,
        context: { ...context, objectKey: task.objectKey },
        subChunkRows: 2,
      }))
        for (const [currency, totals] of Object.entries(result.totals[ACCOUNT] ?? {})) {
          const sum = booked[currency] ?? { total: '0', charges: 0 };
          booked[currency] = {
            total: addDecimals(sum.total, totals.total),
            charges: sum.charges + totals.charges,
          };
        }
    const evidence = await collectRowEvidence({
      tasks,
      accountId: ACCOUNT,
      context,
      openRows: rowsOf,
    });
    expect(
      Object.fromEntries(
        evidence.totals.map((t) => [t.currency, { total: t.total, charges: t.rows }]),
      ),
    ).toEqual(booked);
  });
});

describe('checkRowEvidence', () => {
  it('is equal only when every currency sums exactly to the snapshot with as many rows', () => {
    expect(
      checkRowEvidence([{ currency: 'USD', total: '10.5', rows: 2 }], {
        USD: { total: '10.50', charges: 2 },
      }),
    ).toEqual([
      {
        currency: 'USD',
        rowsTotal: '10.5',
        rows: 2,
        snapshotTotal: '10.50',
        snapshotCharges: 2,
        equal: true,
      },
    ]);
    const checks = checkRowEvidence(
      [
        { currency: 'EUR', total: '1', rows: 1 },
        { currency: 'USD', total: '10.5', rows: 2 },
      ],
      {
        USD: { total: '10.500000000000000001', charges: 2 },
        GBP: { total: '3', charges: 1 },
      },
    );
    expect(checks.map((c) => [c.currency, c.equal])).toEqual([
      ['EUR', false],
      ['GBP', false],
      ['USD', false],
    ]);
    expect(checks[1]).toMatchObject({ rowsTotal: '0', rows: 0, snapshotTotal: '3' });
    expect(
      checkRowEvidence([{ currency: 'USD', total: '10.5', rows: 3 }], {
        USD: { total: '10.5', charges: 2 },
      })[0].equal,
    ).toBe(false);
  });
});
