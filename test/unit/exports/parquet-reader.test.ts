/** Parquet export files: ranged reads, row-group chunks, cursors, exact decimals. */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { REQUIRED_FOCUS_COLUMNS } from '../../../lambda/core/exports/manifest';
import {
  decimalText,
  planParquetChunks,
  readParquetFile,
  readParquetRows,
} from '../../../lambda/core/exports/readers/parquet';
import { collect, rangedBuffer, validationErrorOf } from './helpers';

type Element = Record<string, unknown> & { name: string };

const stringColumn = (name: string): Element => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: 'OPTIONAL',
});
const decimalColumn = (
  name: string,
  type: string,
  precision: number,
  scale: number,
  length?: number,
) => ({
  name,
  type,
  ...(length ? { type_length: length } : {}),
  converted_type: 'DECIMAL',
  precision,
  scale,
  repetition_type: 'OPTIONAL',
});

/** A FOCUS file of `rows` rows: BilledCost DECIMAL(38,18), a few typed columns, the rest strings. */
const focusParquet = (
  rows: number,
  rowGroupSize: number,
  cost: (index: number) => bigint | null,
  pageSize?: number,
) => {
  const strings = REQUIRED_FOCUS_COLUMNS.filter(
    (name) => name !== 'BilledCost' && name !== 'ChargePeriodStart',
  );
  const stringValue = (name: string, index: number): string =>
    ({
      BillingAccountId: '100000000001',
      BillingCurrency: 'USD',
      BillingPeriodStart: '2026-11-01T00:00:00Z',
      ChargeCategory: 'Usage',
      ChargePeriodEnd: '2026-11-03T15:00:00Z',
    })[name] ?? `${name}-${index}`;
  const indexes = Array.from({ length: rows }, (_, index) => index);
  const schema = [
    { name: 'root', num_children: strings.length + 5 },
    decimalColumn('BilledCost', 'FIXED_LEN_BYTE_ARRAY', 38, 18, 16),
    decimalColumn('EffectiveCost', 'INT64', 18, 15),
    {
      name: 'ChargePeriodStart',
      type: 'INT64',
      converted_type: 'TIMESTAMP_MILLIS',
      repetition_type: 'OPTIONAL',
    },
    { name: 'ConsumedQuantity', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
    { name: 'x_RowNumber', type: 'INT64', repetition_type: 'OPTIONAL' },
    ...strings.map(stringColumn),
  ];
  const buffer = parquetWriteBuffer({
    schema: schema as never,
    rowGroupSize,
    pageSize,
    columnData: [
      { name: 'BilledCost', data: indexes.map(cost) },
      {
        name: 'EffectiveCost',
        data: indexes.map((index) => BigInt(-index) * 1_000_000_000_000_001n),
      },
      { name: 'ChargePeriodStart', data: indexes.map(() => new Date('2026-11-03T14:00:00Z')) },
      { name: 'ConsumedQuantity', data: indexes.map((index) => index + 0.1) },
      { name: 'x_RowNumber', data: indexes.map((index) => BigInt(index)) },
      ...strings.map((name) => ({ name, data: indexes.map((index) => stringValue(name, index)) })),
    ],
  });
  return new Uint8Array(buffer);
};

describe('readParquetFile', () => {
  it('lists row groups with their first row, row count and byte range', async () => {
    const file = rangedBuffer(focusParquet(10, 4, (index) => BigInt(index)));
    const parquet = await readParquetFile(file);
    expect(parquet.rowCount).toBe(10);
    expect(
      parquet.rowGroups.map(({ index, rowStart, rowCount }) => [index, rowStart, rowCount]),
    ).toEqual([
      [0, 0, 4],
      [1, 4, 4],
      [2, 8, 2],
    ]);
    for (const [index, group] of parquet.rowGroups.entries()) {
      expect(group.byteStart).toBeGreaterThanOrEqual(4);
      expect(group.byteEnd).toBeGreaterThan(group.byteStart);
      if (index > 0)
        expect(group.byteStart).toBeGreaterThanOrEqual(parquet.rowGroups[index - 1].byteEnd);
    }
    expect(parquet.columns).toEqual(expect.arrayContaining([...REQUIRED_FOCUS_COLUMNS]));
  });

  it('rejects a file that is not Parquet, or lacks the ledger columns', async () => {
    expect(
      (
        await validationErrorOf(() =>
          readParquetFile(rangedBuffer(Buffer.from('BilledCost,BillingCurrency\n'))),
        )
      ).code,
    ).toBe('malformed-body');
    const bytes = new Uint8Array(
      parquetWriteBuffer({ columnData: [{ name: 'BilledCost', data: [1], type: 'DOUBLE' }] }),
    );
    expect(await validationErrorOf(() => readParquetFile(rangedBuffer(bytes)))).toMatchObject({
      code: 'missing-field',
      reason: expect.stringContaining('BillingAccountId'),
    });
  });
});

describe('planParquetChunks', () => {
  const file = (...sizes: number[]) => {
    let rowStart = 0;
    return {
      metadata: {} as never,
      columns: [],
      rowCount: sizes.reduce((a, b) => a + b, 0),
      rowGroups: sizes.map((rowCount, index) => {
        const group = { index, rowStart, rowCount, byteStart: 0, byteEnd: 0 };
        rowStart += rowCount;
        return group;
      }),
    };
  };

  it('cuts consecutive whole row groups into chunks of about the target', () => {
    expect(planParquetChunks(file(40, 40, 40, 150, 10), 100)).toEqual([
      { fromGroup: 0, toGroup: 3, rowStart: 0, rowCount: 120 },
      { fromGroup: 3, toGroup: 4, rowStart: 120, rowCount: 150 },
      { fromGroup: 4, toGroup: 5, rowStart: 270, rowCount: 10 },
    ]);
  });

  it('covers every row exactly once, and plans nothing for an empty file', () => {
    const chunks = planParquetChunks(file(3, 7, 1, 9, 4, 4), 8);
    expect(chunks.map((chunk) => chunk.rowStart)).toEqual([0, 10, 20]);
    expect(chunks.reduce((sum, chunk) => sum + chunk.rowCount, 0)).toBe(28);
    expect(planParquetChunks(file(), 8)).toEqual([]);
  });

  it('refuses a target that is not a positive integer', () => {
    expect(() => planParquetChunks(file(1), 0)).toThrow(/targetRows/);
  });
});

describe('readParquetRows', () => {
  it('reads only the rows of the requested row groups, at their file positions, with ranged reads', async () => {
    const bytes = focusParquet(12, 3, (index) => BigInt(index) * 10n ** 18n);
    const file = rangedBuffer(bytes);
    const parquet = await readParquetFile(file);
    file.reads.length = 0;
    const rows = await collect(
      readParquetRows(file, parquet, { fromGroup: 1, toGroup: 3 }, undefined, {
        columns: parquet.columns,
      }),
    );
    expect(rows.map((row) => [row.rowIndex, row.cells.BilledCost, row.cells.x_RowNumber])).toEqual(
      [3, 4, 5, 6, 7, 8].map((index) => [index, `${index}.000000000000000000`, String(index)]),
    );
    const [first, last] = [parquet.rowGroups[1], parquet.rowGroups[2]];
    for (const [start, end] of file.reads) {
      expect(start).toBeGreaterThanOrEqual(first.byteStart);
      expect(end).toBeLessThanOrEqual(last.byteEnd);
    }
  });

  it('resumes from a row cursor inside the range', async () => {
    const file = rangedBuffer(focusParquet(12, 3, (index) => BigInt(index)));
    const parquet = await readParquetFile(file);
    const rows = await collect(
      readParquetRows(file, parquet, { fromGroup: 1, toGroup: 4, fromRow: 7 }),
    );
    expect(rows.map((row) => row.rowIndex)).toEqual([7, 8, 9, 10, 11]);
  });

  it('hands decimals on exactly and other types as text', async () => {
    const exact = [
      123456789012345123456789012345678901n, // 38 digits, 18 of them fraction digits
      -1n, // two's complement, 16 bytes
      null,
    ];
    const file = rangedBuffer(focusParquet(3, 10, (index) => exact[index]));
    const parquet = await readParquetFile(file);
    const rows = await collect(
      readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 }, undefined, {
        columns: parquet.columns,
      }),
    );
    expect(rows.map((row) => row.cells.BilledCost)).toEqual([
      '123456789012345123.456789012345678901',
      '-0.000000000000000001',
      undefined,
    ]);
    expect(rows[2].cells).toMatchObject({
      EffectiveCost: '-2.000000000000002',
      ChargePeriodStart: '2026-11-03T14:00:00.000Z',
      ConsumedQuantity: '2.1',
      x_RowNumber: '2',
      BillingCurrency: 'USD',
    });
  });

  it.each([1, 7, 50, 10_000])(
    'reads columns split over many pages, from a cursor in the middle of one, %s rows at a time',
    async (sliceRows) => {
      const file = rangedBuffer(focusParquet(400, 200, (index) => BigInt(index), 256));
      const parquet = await readParquetFile(file);
      const rows = await collect(
        readParquetRows(file, parquet, { fromGroup: 0, toGroup: 2, fromRow: 123 }, undefined, {
          columns: parquet.columns,
          sliceRows,
        }),
      );
      expect(
        rows.map((row) => [row.rowIndex, row.cells.x_RowNumber, row.cells.BilledCost]),
      ).toEqual(
        Array.from({ length: 277 }, (_, offset) => {
          const index = 123 + offset;
          return [index, String(index), decimalText(BigInt(index), 18)];
        }),
      );
    },
  );

  it('reads every magnitude of a 16-byte DECIMAL exactly, negative ones too', async () => {
    const magnitudes = Array.from({ length: 126 }, (_, bits) => 1n << BigInt(bits));
    const values = magnitudes.flatMap((power) => [
      power,
      power - 1n,
      power + 1n,
      -power,
      1n - power,
      -1n - power,
    ]);
    const file = rangedBuffer(focusParquet(values.length, values.length, (index) => values[index]));
    const rows = await collect(
      readParquetRows(file, await readParquetFile(file), { fromGroup: 0, toGroup: 1 }),
    );
    const text = (value: bigint) => {
      const digits = (value < 0n ? -value : value).toString().padStart(19, '0');
      return `${value < 0n ? '-' : ''}${digits.slice(0, -18)}.${digits.slice(-18)}`;
    };
    expect(rows.map((row) => row.cells.BilledCost)).toEqual(values.map(text));
  });

  it('holds one row group at a time: the next one is read once the rows before it are taken', async () => {
    const file = rangedBuffer(focusParquet(6, 3, (index) => BigInt(index)));
    const parquet = await readParquetFile(file);
    file.reads.length = 0;
    const rows = readParquetRows(file, parquet, { fromGroup: 0, toGroup: 2 });
    for (let taken = 0; taken < 3; taken += 1) await rows.next();
    const first = parquet.rowGroups[0];
    expect(file.reads.every(([, end]) => end <= first.byteEnd)).toBe(true);
    expect((await rows.next()).value).toMatchObject({ rowIndex: 3 });
    expect(file.reads.some(([start]) => start >= parquet.rowGroups[1].byteStart)).toBe(true);
  });

  it('keeps a column named __proto__ as a cell, never as the prototype', async () => {
    const names = [...REQUIRED_FOCUS_COLUMNS, '__proto__'];
    const bytes = parquetWriteBuffer({
      columnData: names.map((name) => ({ name, data: ['1'], type: 'STRING' as const })),
    });
    const file = rangedBuffer(new Uint8Array(bytes));
    const parquet = await readParquetFile(file);
    const [row] = await collect(
      readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 }, undefined, {
        columns: parquet.columns,
      }),
    );
    expect(Object.getPrototypeOf(row.cells)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row.cells, '__proto__')?.value).toBe('1');
  });

  it('refuses a row-group range outside the file', async () => {
    const file = rangedBuffer(focusParquet(4, 2, () => 1n));
    const parquet = await readParquetFile(file);
    await expect(
      collect(readParquetRows(file, parquet, { fromGroup: 1, toGroup: 3 })),
    ).rejects.toThrow(/not within the file's 2 row groups/);
  });
});

describe('decimalText', () => {
  it.each([
    [0n, 3, '0.000'],
    [5n, 0, '5'],
    [-12345n, 2, '-123.45'],
    [7n, -2, '700'],
  ])('%s scaled by %s is %s', (unscaled, scale, text) => {
    expect(decimalText(unscaled, scale)).toBe(text);
  });
});
