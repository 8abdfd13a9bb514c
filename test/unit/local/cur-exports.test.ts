/** The local sample's CUR exports: written as AWS writes them, recognised from their columns, booked exactly. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Big from 'big.js';
import { inspectExportFile } from '../../../cli/operations/export-files';
import { recognizeColumnFormat } from '../../../lambda/core/exports/column-format';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import { writeSampleExports } from '../../../local/exports/files';
import { generateSample } from '../../../local/scenarios/generator';

describe('the sample CUR exports', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'cur-sample-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const sample = generateSample({ seed: 42 });
  const cur = (sample.exports ?? []).filter((delivery) => delivery.format !== undefined);

  it.each([
    ['cur2', 'cur'],
    ['legacy-cur', 'cur-legacy-csv'],
  ])(
    '%s is recognised as %s and totals the exact sum of its rows per account',
    async (format, columns) => {
      const delivery = cur.find((candidate) => candidate.format === format);
      if (!delivery) throw new Error(`no ${format} delivery`);
      const [written] = writeSampleExports(directory, [delivery]);
      const file = await inspectExportFile(written.files[0]);
      expect(recognizeColumnFormat(file.columns)).toBe(columns);
      const expected = new Map<string, Big>();
      for (const row of delivery.files[0].rows)
        expected.set(
          row.account,
          (expected.get(row.account) ?? new Big(0)).plus(row.amount ?? '0'),
        );
      const { summary } = await aggregateRows(
        readCsvRows(
          (async function* () {
            yield readFileSync(written.files[0]);
          })(),
          { gzip: written.files[0].endsWith('.gz') },
        ),
        { tenant: delivery.tenant, objectKey: 'x', billingPeriod: delivery.billingPeriod },
      );
      expect(summary.rowsRejected).toBe(0);
      expect(
        Object.fromEntries(summary.totals.map((total) => [total.accountId, total.total])),
      ).toEqual(
        Object.fromEntries([...expected].map(([account, sum]) => [account, sum.toFixed()])),
      );
    },
  );
});
