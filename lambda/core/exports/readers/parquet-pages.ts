/**
 * One flat column chunk of a Parquet row group, decoded page by page as its rows are asked for, each
 * page once: the pages a reader has moved past are let go, so a column costs its dictionary and the
 * pages in flight, never the whole row group decoded.
 *
 * Pages are decoded with hyparquet's page-level functions (its `./src/*.js` exports); cells become
 * the text a CSV would hold with `text` — once per dictionary entry for a dictionary-encoded page,
 * once per run of equal values otherwise — and a null cell is `undefined`.
 *
 * A decoded page is a `ColumnSegment`: its distinct cell texts (`values`: the column chunk's
 * dictionary, or the page's runs) and one code per row into them, so a columnar consumer can decide
 * each distinct value once (`columnar/`); `at(row)` gives the cell itself.
 */
import type {
  ColumnMetaData,
  Compressors,
  DecodedArray,
  FileMetaData,
  PageHeader,
  ParquetParsers,
} from 'hyparquet';
import { fail } from '../../errors';

type ColumnDecoder = import('hyparquet/src/types').ColumnDecoder;

type Hyparquet = typeof import('hyparquet/types/column') &
  typeof import('hyparquet/types/datapage') &
  typeof import('hyparquet/types/plain') &
  typeof import('hyparquet/types/convert') &
  typeof import('hyparquet/types/schema');

/* eslint-disable @typescript-eslint/no-require-imports -- hyparquet's page-level functions are subpath exports ('./src/*.js'), which this project's module resolution (node10) cannot type through an import */
const hyparquet: Hyparquet = {
  ...(require('hyparquet/src/column.js') as typeof import('hyparquet/types/column')),
  ...(require('hyparquet/src/datapage.js') as typeof import('hyparquet/types/datapage')),
  ...(require('hyparquet/src/plain.js') as typeof import('hyparquet/types/plain')),
  ...(require('hyparquet/src/convert.js') as typeof import('hyparquet/types/convert')),
  ...(require('hyparquet/src/schema.js') as typeof import('hyparquet/types/schema')),
};
/* eslint-enable @typescript-eslint/no-require-imports */

export type CellText = (value: unknown) => unknown;

/**
 * Decoded rows [rowStart, rowEnd) of a column: row `r`'s cell is `values[codes[r - rowStart]]`, and
 * `undefined` (null) where the code is `NULL_CODE`. One `values` array is shared by every
 * dictionary-encoded page of a column chunk.
 */
export interface ColumnSegment {
  rowStart: number;
  rowEnd: number;
  values: readonly unknown[];
  codes: Int32Array;
}

export const NULL_CODE = -1;

/** `text` applied to every value, once per run of equal values (a page repeats them). */
const textOf = (values: DecodedArray, text: CellText): unknown[] => {
  const cells = new Array<unknown>(values.length);
  let last: unknown = undefined;
  let lastText: unknown = undefined;
  for (let index = 0; index < values.length; index += 1) {
    const value: unknown = values[index];
    if (index === 0 || value !== last) {
      last = value;
      lastText = text(value);
    }
    cells[index] = lastText;
  }
  return cells;
};

/** A PLAIN page's values as runs: one text per run of equal values, one code per value. */
const runsOf = (values: DecodedArray, text: CellText): { values: unknown[]; codes: Int32Array } => {
  const texts: unknown[] = [];
  const codes = new Int32Array(values.length);
  let last: unknown = undefined;
  for (let index = 0; index < values.length; index += 1) {
    const value: unknown = values[index];
    if (index === 0 || value !== last) {
      last = value;
      texts.push(text(value));
    }
    codes[index] = texts.length - 1;
  }
  return { values: texts, codes };
};

export interface ColumnChunkInput {
  /** The top-level column's name (for errors). */
  name: string;
  metadata: FileMetaData;
  meta: ColumnMetaData;
  /** The column chunk's compressed bytes, from its first page (dictionary or data) on. */
  bytes: Uint8Array;
  /** Index of the row group's first row in the file. */
  groupStart: number;
  groupRows: number;
  text: CellText;
  compressors: Compressors;
}

const PARSERS: ParquetParsers = hyparquet.DEFAULT_PARSERS;

export class ColumnPages {
  readonly name: string;
  private readonly decoder: ColumnDecoder;
  private readonly reader: { view: DataView; offset: number };
  private readonly groupEnd: number;
  private readonly maxDefinitionLevel: number;
  private readonly text: CellText;
  /** Cell text of one value as a PLAIN page holds it (converted first when its type says so). */
  private readonly plainText: CellText;
  private readonly convertsPage: boolean;
  private dictionary: unknown[] | undefined;
  /** The first row of the file not yet decoded (the next page starts there). */
  private decodedEnd: number;
  /** Decoded pages not yet let go, in row order. */
  private readonly pages: ColumnSegment[] = [];

  constructor(input: ColumnChunkInput) {
    this.name = input.name;
    const schemaPath = hyparquet.getSchemaPath(input.metadata.schema, input.meta.path_in_schema);
    this.decoder = {
      pathInSchema: input.meta.path_in_schema,
      type: input.meta.type,
      element: schemaPath[schemaPath.length - 1].element,
      schemaPath,
      codec: input.meta.codec,
      parsers: PARSERS,
      compressors: input.compressors,
      utf8: false,
    };
    this.maxDefinitionLevel = hyparquet.getMaxDefinitionLevel(schemaPath);
    this.reader = {
      view: new DataView(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength),
      offset: 0,
    };
    this.decodedEnd = input.groupStart;
    this.groupEnd = input.groupStart + input.groupRows;
    this.text = input.text;
    const { element } = this.decoder;
    const converted =
      element.converted_type !== undefined ||
      element.logical_type !== undefined ||
      element.type === 'INT96';
    this.plainText = converted
      ? (value) => this.text(hyparquet.convert([value], this.decoder)[0])
      : this.text;
    // Byte-array values are a new object each, so runs never repeat them: convert the page at once.
    this.convertsPage = converted && element.type === 'BYTE_ARRAY';
  }

  /**
   * Decodes pages until rows [from, to) are all decoded, skipping (without decompressing) data pages
   * that end before `from`, and lets go of the pages that end at or before `from`.
   */
  prepare(from: number, to: number): void {
    while (this.pages.length > 0 && this.pages[0].rowEnd <= from) this.pages.shift();
    while (this.decodedEnd < to) this.readPage(from, to);
  }

  /** The cell of row `row`, which `prepare` has decoded. */
  at(row: number): unknown {
    const page = this.segment(row);
    const code = page.codes[row - page.rowStart];
    return code === NULL_CODE ? undefined : page.values[code];
  }

  /** The decoded page that holds row `row`, which `prepare` has decoded. */
  segment(row: number): ColumnSegment {
    for (const page of this.pages) {
      if (row < page.rowEnd) {
        if (row < page.rowStart) break;
        return page;
      }
    }
    throw new RangeError(`row ${row} of ${this.name} is not decoded`);
  }

  private readPage(from: number, to: number): void {
    if (this.reader.offset >= this.reader.view.byteLength) {
      fail(
        'malformed-body',
        this.name,
        `the column has fewer values than rows ${from}-${Math.min(to, this.groupEnd) - 1}`,
      );
    }
    const header = hyparquet.parquetHeader(this.reader);
    const start = this.reader.offset;
    this.reader.offset += header.compressed_page_size;
    if (this.reader.offset > this.reader.view.byteLength) {
      fail('malformed-body', this.name, 'a page runs past the end of its column chunk');
    }
    const compressed = new Uint8Array(
      this.reader.view.buffer,
      this.reader.view.byteOffset + start,
      header.compressed_page_size,
    );
    if (header.type === 'DICTIONARY_PAGE') {
      this.readDictionary(header, compressed);
      return;
    }
    const rows = header.data_page_header?.num_values ?? header.data_page_header_v2?.num_rows;
    if (rows === undefined) {
      return fail('malformed-body', this.name, `unexpected ${header.type} page in a column chunk`);
    }
    const rowStart = this.decodedEnd;
    this.decodedEnd += rows;
    if (this.decodedEnd <= from) return;
    this.pages.push({ rowStart, rowEnd: this.decodedEnd, ...this.decodeData(header, compressed) });
  }

  private readDictionary(header: PageHeader, compressed: Uint8Array): void {
    const entries = header.dictionary_page_header?.num_values ?? 0;
    const page = hyparquet.decompressPage(
      compressed,
      header.uncompressed_page_size,
      this.decoder.codec,
      this.decoder.compressors,
    );
    const values = hyparquet.readPlain(
      { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 },
      this.decoder.type,
      entries,
      this.decoder.element.type_length,
    );
    this.dictionary = textOf(hyparquet.convert(values, this.decoder), this.text);
  }

  private decodeData(
    header: PageHeader,
    compressed: Uint8Array,
  ): { values: readonly unknown[]; codes: Int32Array } {
    let page;
    let encoding;
    if (header.data_page_header) {
      encoding = header.data_page_header.encoding;
      page = hyparquet.readDataPage(
        hyparquet.decompressPage(
          compressed,
          header.uncompressed_page_size,
          this.decoder.codec,
          this.decoder.compressors,
        ),
        header.data_page_header,
        this.decoder,
      );
    } else {
      encoding = header.data_page_header_v2!.encoding;
      page = hyparquet.readDataPageV2(compressed, header, this.decoder);
    }
    const { dataPage } = page;
    const definitionLevels = page.definitionLevels ?? [];
    let values: readonly unknown[];
    let codes: Int32Array;
    if (encoding.endsWith('_DICTIONARY')) {
      const dictionary = this.dictionary;
      if (!dictionary) return fail('malformed-body', this.name, 'a dictionary page is missing');
      values = dictionary;
      codes = new Int32Array(dataPage.length);
      for (let index = 0; index < dataPage.length; index += 1) {
        const entry = dataPage[index] as number;
        if (!(entry < dictionary.length)) {
          fail('malformed-body', this.name, 'a value points past the end of its dictionary');
        }
        codes[index] = entry;
      }
    } else {
      ({ values, codes } = this.convertsPage
        ? runsOf(hyparquet.convert(dataPage, this.decoder), this.text)
        : runsOf(dataPage, this.plainText));
    }
    if (definitionLevels.length === 0) return { values, codes };
    const cells = new Int32Array(definitionLevels.length);
    const present = this.maxDefinitionLevel;
    let next = 0;
    for (let index = 0; index < definitionLevels.length; index += 1) {
      cells[index] = definitionLevels[index] === present ? codes[next++] : NULL_CODE;
    }
    if (next !== codes.length) {
      fail('malformed-body', this.name, 'a page holds more values than its definition levels say');
    }
    return { values, codes: cells };
  }
}
