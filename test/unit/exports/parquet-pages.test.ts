/**
 * A flat column chunk decoded page by page: every page once whatever the slices the reader hands on,
 * a slice that ends in the middle of a page, nulls and dictionaries, and the pages passed let go.
 */
import * as zlib from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { readParquetFile, readParquetRows } from '../../../lambda/core/exports/readers/parquet';
import { ColumnPages } from '../../../lambda/core/exports/readers/parquet-pages';
import { collect, rangedBuffer } from './helpers';

const ROWS = 2_000;
const indexes = Array.from({ length: ROWS }, (_, index) => index);
/** Long unique text: PLAIN pages of a few dozen rows each. */
const resourceOf = (index: number) => `arn:aws:ec2:eu-west-1:012345678901:instance/i-${index}`;
/** Few distinct values, a third of them null: dictionary pages of many rows. */
const accountOf = (index: number) => (index % 3 === 0 ? null : `0000000000${index % 7}`);

/** One row group of ROWS rows in small GZIP pages, the two columns' pages ending at different rows. */
const file = () =>
  rangedBuffer(
    new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          { name: 'resource', data: indexes.map(resourceOf), type: 'STRING' },
          { name: 'account', data: indexes.map(accountOf), type: 'STRING' },
        ],
        rowGroupSize: ROWS,
        pageSize: 1_024,
        codec: 'GZIP',
        compressors: { GZIP: (page: Uint8Array) => zlib.gzipSync(page) },
      } as never),
    ),
  );

const expected = (from: number) =>
  indexes.slice(from).map((index) => ({
    rowIndex: index,
    cells: { resource: resourceOf(index), account: accountOf(index) ?? undefined },
  }));

/** The rows read from `from` on, `sliceRows` at a time, and the pages inflated meanwhile. */
const readCounting = async (sliceRows: number, from = 0) => {
  const buffer = file();
  const parquet = await readParquetFile(buffer, ['resource', 'account']);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself: the reader looks gunzipSync up on it at each page
  const inflate = jest.spyOn(require('node:zlib') as typeof zlib, 'gunzipSync');
  try {
    const rows = await collect(
      readParquetRows(buffer, parquet, { fromGroup: 0, toGroup: 1, fromRow: from }, undefined, {
        sliceRows,
      }),
    );
    return { rows, pagesInflated: inflate.mock.calls.length };
  } finally {
    inflate.mockRestore();
  }
};

describe('Parquet columns decoded page by page', () => {
  it('inflates every page of a row group once, however small the slices', async () => {
    const whole = await readCounting(ROWS);
    expect(whole.rows).toEqual(expected(0));
    expect(whole.pagesInflated).toBeGreaterThan(20);
    for (const sliceRows of [1, 7, 333]) {
      const sliced = await readCounting(sliceRows);
      expect(sliced.rows).toEqual(expected(0));
      expect(sliced.pagesInflated).toBe(whole.pagesInflated);
    }
  });

  it('starts at a cursor in the middle of a page without inflating the pages before it', async () => {
    const whole = await readCounting(ROWS);
    const resumed = await readCounting(50, 1_501);
    expect(resumed.rows).toEqual(expected(1_501));
    // Rows 1501-1999 are a quarter of the group: about a quarter of its pages, and the dictionary.
    expect(resumed.pagesInflated).toBeLessThan(whole.pagesInflated / 3);
  });

  describe('ColumnPages', () => {
    const resourcePages = async (groupRows = ROWS) => {
      const buffer = file();
      const parquet = await readParquetFile(buffer, ['resource']);
      const meta = parquet.metadata.row_groups[0].columns[0].meta_data!;
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      return new ColumnPages({
        name: 'resource',
        metadata: parquet.metadata,
        meta,
        bytes: new Uint8Array(
          await buffer.slice(start, start + Number(meta.total_compressed_size)),
        ),
        groupStart: 0,
        groupRows,
        text: (value) =>
          ArrayBuffer.isView(value) ? Buffer.from(value as Uint8Array).toString('utf8') : value,
        compressors: { GZIP: (input: Uint8Array) => zlib.gunzipSync(input) },
      });
    };

    it('hands on the rows of a slice that ends inside a page, then the rest of that page', async () => {
      const column = await resourcePages();
      column.prepare(0, 10);
      const firstSlice = Array.from({ length: 10 }, (_, row) => column.at(row));
      column.prepare(10, 1_000);
      const rest = Array.from({ length: 990 }, (_, offset) => column.at(10 + offset));
      expect([...firstSlice, ...rest]).toEqual(indexes.slice(0, 1_000).map(resourceOf));
    });

    it('lets go of the pages the rows have passed', async () => {
      const column = await resourcePages();
      column.prepare(0, 10);
      expect(column.at(5)).toBe(resourceOf(5));
      column.prepare(1_500, 1_510);
      expect(column.at(1_505)).toBe(resourceOf(1_505));
      expect(() => column.at(5)).toThrow(RangeError);
    });

    it('fails a column chunk that ends before the rows its row group declares', async () => {
      const column = await resourcePages(ROWS + 5);
      expect(() => column.prepare(0, ROWS + 5)).toThrow(/fewer values than rows 0-2004/);
    });
  });
});
