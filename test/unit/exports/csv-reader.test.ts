/** CSV and CSV.gz export files: streamed rows, positional identity, resume from a cursor, bad records. */
import { gzipSync } from 'node:zlib';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import { chunked, collect, validationErrorOf } from './helpers';

const header =
  'BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,Tags';
const line = (cost: string, tags = 'NULL') =>
  `${cost},100000000001,USD,2026-11-01T00:00:00Z,Usage,2026-11-02 10:00:00,2026-11-02 11:00:00,${tags}`;
const csv = (...lines: string[]) => Buffer.from(`${[header, ...lines].join('\r\n')}\r\n`);

describe('readCsvRows', () => {
  it('yields every data row with its position and cells keyed by the header', async () => {
    const rows = await collect(
      readCsvRows(chunked(csv(line('1.5'), line('2', '"{""team"": ""core, web""}"'))), {
        gzip: false,
      }),
    );
    expect(rows).toEqual([
      {
        rowIndex: 0,
        cells: expect.objectContaining({ BilledCost: '1.5', Tags: 'NULL' }),
        format: 'focus',
      },
      {
        rowIndex: 1,
        cells: expect.objectContaining({ BilledCost: '2', Tags: '{"team": "core, web"}' }),
        format: 'focus',
      },
    ]);
  });

  it('reads gzip-compressed CSV the same way, streamed in small pieces', async () => {
    const bytes = csv(line('1'), line('2'), line('3'));
    const plain = await collect(readCsvRows(chunked(bytes), { gzip: false }));
    const gzipped = await collect(readCsvRows(chunked(gzipSync(bytes), 5), { gzip: true }));
    expect(gzipped).toEqual(plain);
  });

  it('resumes from a committed cursor: rows before it are skipped, positions unchanged', async () => {
    const bytes = csv(line('1'), '', line('2'), line('3'), line('4'));
    const rows = await collect(readCsvRows(chunked(bytes), { gzip: false, fromRow: 2 }));
    expect(rows.map((row) => [row.rowIndex, row.cells.BilledCost])).toEqual([
      [2, '3'],
      [3, '4'],
    ]);
  });

  it('keeps a column named __proto__ as a cell, never as the prototype', async () => {
    const bytes = Buffer.from(`${header},__proto__\n${line('1')},{}\n`);
    const [row] = await collect(readCsvRows(chunked(bytes), { gzip: false }));
    expect(Object.getPrototypeOf(row.cells)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row.cells, '__proto__')?.value).toBe('{}');
    expect(row.cells.BilledCost).toBe('1');
  });

  it('strips a byte-order mark from the header', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv(line('1'))]);
    const [row] = await collect(readCsvRows(chunked(bytes), { gzip: false }));
    expect(row.cells.BilledCost).toBe('1');
  });

  it('flags a record with the wrong number of cells and reads on', async () => {
    const rows = await collect(
      readCsvRows(chunked(csv(line('1'), '5,6', line('3'))), { gzip: false }),
    );
    expect(rows[1]).toEqual({
      rowIndex: 1,
      cells: {},
      problem: 'has 2 cells, the header has 8',
      format: 'focus',
    });
    expect(rows[2]).toMatchObject({ rowIndex: 2, cells: { BilledCost: '3' } });
  });

  it('rejects a file whose header lacks the columns the ledger needs, naming them', async () => {
    const bytes = Buffer.from('BilledCost,ChargePeriodStart\n1,2026-11-01\n');
    const error = await validationErrorOf(() =>
      collect(readCsvRows(chunked(bytes), { gzip: false })),
    );
    expect(error).toMatchObject({ code: 'missing-field' });
    expect(error.reason).toMatch(
      /BillingAccountId, BillingCurrency, BillingPeriodStart, ChargeCategory, ChargePeriodEnd/,
    );
  });

  it('rejects a header with the same column twice', async () => {
    const bytes = Buffer.from(`${header},BilledCost\n`);
    expect(
      await validationErrorOf(() => collect(readCsvRows(chunked(bytes), { gzip: false }))),
    ).toMatchObject({ code: 'invalid-field', field: 'BilledCost' });
  });

  it('names the data row of broken quoting, after yielding the rows before it', async () => {
    const rows: unknown[] = [];
    const error = await validationErrorOf(async () => {
      for await (const row of readCsvRows(chunked(csv(line('1'), line('2'), '3,x"y')), {
        gzip: false,
      }))
        rows.push(row);
    });
    expect(rows).toHaveLength(2);
    expect(error).toMatchObject({ code: 'malformed-body', field: 'row 3' });
  });

  it.each([true, false])(
    'ends with the source error when the bytes stop coming (gzip: %s)',
    async (gzip) => {
      const bytes = gzip ? gzipSync(csv(line('1'), line('2'))) : csv(line('1'), line('2'));
      async function* cutOff(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, 40);
        throw new Error('connection reset');
      }
      await expect(collect(readCsvRows(cutOff(), { gzip }))).rejects.toThrow('connection reset');
    },
  );

  it('rejects broken quoting, an empty file and bytes that are not gzip', async () => {
    const broken = csv(line('1'), '"2,100000000001');
    expect(
      (await validationErrorOf(() => collect(readCsvRows(chunked(broken), { gzip: false })))).code,
    ).toBe('malformed-body');
    expect(
      await validationErrorOf(() =>
        collect(readCsvRows(chunked(Buffer.alloc(0)), { gzip: false })),
      ),
    ).toMatchObject({ code: 'missing-field', reason: expect.stringContaining('empty') });
    expect(
      await validationErrorOf(() => collect(readCsvRows(chunked(csv(line('1'))), { gzip: true }))),
    ).toMatchObject({ code: 'malformed-body', reason: expect.stringContaining('gzip') });
  });
});
