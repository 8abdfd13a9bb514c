/**
 * Generated exports (test/support/focus-export-generator.ts) read back in every format and aggregated
 * chunk by chunk equal the generator's ground truth exactly, bad rows included.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { aggregateRows, ChunkAggregator } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import {
  planParquetChunks,
  readParquetFile,
  readParquetRows,
} from '../../../lambda/core/exports/readers/parquet';
import { normalizeExportRow, type RowContext } from '../../../lambda/core/exports/rows';
import {
  expectedFocusExport,
  writeFocusCsv,
  writeFocusParquet,
  type FocusExportSpec,
} from '../../support/focus-export-generator';
import { rangedBuffer } from './helpers';

const spec: FocusExportSpec = {
  rows: 3_000,
  seed: 7,
  badRowEvery: 97,
  tenant: 'acme',
  billingPeriod: '2026-11',
};
const context: RowContext = { tenant: 'acme', objectKey: 'generated', billingPeriod: '2026-11' };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'focus-export-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated FOCUS exports', () => {
  it('are deterministic, and their ground truth has rejected rows of every kind', () => {
    const expected = expectedFocusExport(spec);
    expect(expectedFocusExport(spec)).toEqual(expected);
    expect(expected.rowsRejected).toBe(Math.floor(spec.rows / 97));
    expect(Object.keys(expected.rejectedByReason)).toEqual([
      'invalid-field:BillingCurrency',
      'invalid-field:ChargePeriodStart',
      'missing-field:BilledCost',
    ]);
    expect(expected.totals.length).toBeGreaterThan(8);
  });

  it.each([false, true])('CSV (gzip: %s) aggregates to the ground truth', async (gzip) => {
    const file = path.join(dir, gzip ? 'export.csv.gz' : 'export.csv');
    const expected = await writeFocusCsv(file, spec, { gzip });
    expect(expected).toEqual(expectedFocusExport(spec));
    const { summary, rowsRead } = await aggregateRows(
      readCsvRows(createReadStream(file), { gzip }),
      context,
    );
    expect(rowsRead).toBe(spec.rows);
    expect(summary.totals).toEqual(expected.totals);
    expect(summary.rejectedByReason).toEqual(expected.rejectedByReason);
    expect([summary.rowsAccepted, summary.rowsRejected]).toEqual([
      expected.rowsAccepted,
      expected.rowsRejected,
    ]);
  });

  it('CSV read in two chunks split at a cursor adds up to the same totals', async () => {
    const file = path.join(dir, 'split.csv.gz');
    const expected = await writeFocusCsv(file, spec, { gzip: true });
    const aggregator = new ChunkAggregator();
    let read = 0;
    for await (const row of readCsvRows(createReadStream(file), { gzip: true })) {
      if (row.rowIndex >= 1_234) break;
      aggregator.addResult(normalizeExportRow(row, context));
      read += 1;
    }
    for await (const row of readCsvRows(createReadStream(file), { gzip: true, fromRow: read })) {
      aggregator.addResult(normalizeExportRow(row, context));
    }
    expect(aggregator.summary().totals).toEqual(expected.totals);
  });

  it('Parquet (DECIMAL BilledCost) read chunk by chunk aggregates to the ground truth', async () => {
    const file = path.join(dir, 'export.parquet');
    const expected = await writeFocusParquet(file, spec, { rowGroupSize: 400 });
    const buffer = rangedBuffer(readFileSync(file));
    const parquet = await readParquetFile(buffer);
    const chunks = planParquetChunks(parquet, 1_000);
    expect(chunks.map((chunk) => [chunk.fromGroup, chunk.toGroup])).toEqual([
      [0, 3],
      [3, 6],
      [6, 8],
    ]);
    const aggregator = new ChunkAggregator();
    for (const chunk of chunks) {
      for await (const row of readParquetRows(buffer, parquet, chunk)) {
        aggregator.addResult(normalizeExportRow(row, context));
      }
    }
    const summary = aggregator.summary();
    expect(summary.totals).toEqual(expected.totals);
    expect(summary.rejectedByReason).toEqual(expected.rejectedByReason);
  });
});
