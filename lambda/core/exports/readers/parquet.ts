/**
 * Rows of a Parquet export file, read with ranged reads: the footer first (`readParquetFile`), then only
 * the bytes of the row groups a chunk asks for (`readParquetRows`), one row group's columns in memory at a
 * time.
 * The file is an `AsyncBuffer` (`{byteLength, slice(start, end)}`), which an S3 adapter implements with
 * ranged GETs. rowIndex is the row's position in the file (0-based), stable across reads.
 *
 * Cells are handed on as the text a CSV would hold, so the FOCUS normalization treats both formats
 * alike: DECIMAL columns become their exact decimal text (hyparquet would turn them into floats, so they
 * are read as unscaled integers and scaled here), INT64 its digits, DOUBLE the shortest text that reads
 * back as the same double (the producer chose a binary float; it is booked as that value), timestamps
 * ISO-8601 UTC. Maps and structs (a `Tags` map) stay objects.
 *
 * Compression: SNAPPY and UNCOMPRESSED (hyparquet), GZIP and BROTLI (node:zlib), ZSTD where node:zlib
 * has it (Node 22.15+; the Lambda runtime does). Another codec fails the file with hyparquet's error.
 * Decompression is capped (`DecompressionLimits`): a page never expands past what its header declares
 * nor past `maxPageBytes`, and a task's pages together never past what its column chunks declare
 * (`total_uncompressed_size`) nor past `maxTaskBytes` — a decompression bomb fails the file instead of
 * the worker's memory.
 *
 * Errors: a file that cannot be decoded is a `ValidationError` (the file's fault, permanent); an error of
 * the `AsyncBuffer`'s own reads (S3) passes through unchanged, for the caller to classify.
 */
import * as zlib from 'node:zlib';
import {
  parquetMetadataAsync,
  parquetRead,
  snappyUncompress,
  type AsyncBuffer,
  type ColumnData,
  type ColumnMetaData,
  type Compressors,
  type FileMetaData,
  type RowGroup,
  type SchemaElement,
} from 'hyparquet';
import { fail, ValidationError } from '../../errors';
import {
  detectColumnFormat,
  recognizeColumnFormat,
  type ExportColumnFormat,
} from '../column-format';
import { columnsToRead } from '../columns-read';
import { ColumnPages, NULL_CODE, type ColumnSegment } from './parquet-pages';
import type { ExportRow } from '../rows';

export type { AsyncBuffer } from 'hyparquet';

export interface RowGroupInfo {
  index: number;
  /** Index of the group's first row in the file. */
  rowStart: number;
  rowCount: number;
  /** Bytes [byteStart, byteEnd) hold every column chunk of the group. */
  byteStart: number;
  byteEnd: number;
}

export interface ParquetFile {
  metadata: FileMetaData;
  columns: string[];
  /** Recognised from the schema's top-level columns; undefined only when `requiredColumns` were given. */
  format?: ExportColumnFormat;
  rowCount: number;
  rowGroups: RowGroupInfo[];
}

/** A chunk task: row groups [fromGroup, toGroup) of one file. */
export interface ParquetChunk {
  fromGroup: number;
  toGroup: number;
  rowStart: number;
  rowCount: number;
}

const utf8 = new TextDecoder();

type Inflate = (input: Uint8Array, options: { maxOutputLength: number }) => Uint8Array;

const zstdDecompress = (zlib as unknown as { zstdDecompressSync?: Inflate }).zstdDecompressSync;

const INFLATERS: Partial<Record<'GZIP' | 'BROTLI' | 'ZSTD', Inflate>> = {
  GZIP: (input, options) => zlib.gunzipSync(input, options),
  BROTLI: (input, options) => zlib.brotliDecompressSync(input, options),
  ...(zstdDecompress ? { ZSTD: zstdDecompress } : {}),
};

export interface DecompressionLimits {
  /** Uncompressed bytes one page may declare. */
  maxPageBytes: number;
  /** Uncompressed bytes the column chunks of one task's row groups may declare together. */
  maxTaskBytes: number;
}

const MIB = 1024 * 1024;

/**
 * Ceilings of decompression per page and per task. A row group's column chunks are decoded together, so
 * these bound the worker's memory whatever the file claims; the benchmark's tasks of 200,000 rows
 * declare about 20 MB (docs/exports.md#decompression-limits).
 */
export const DECOMPRESSION_LIMITS: DecompressionLimits = {
  maxPageBytes: 64 * MIB,
  maxTaskBytes: 1024 * MIB,
};

const isBufferTooLarge = (error: unknown): boolean =>
  (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';

/**
 * hyparquet's decompressors for one task, sharing one budget: the uncompressed bytes the task's column
 * chunks declare. A page is refused before any work when its header declares more than the page
 * ceiling or than is left of the budget, and its output is cut at the size it declares.
 */
const cappedCompressors = (declaredBytes: number, limits: DecompressionLimits): Compressors => {
  let left = declaredBytes;
  const reserve = (codec: string, pageBytes: number): void => {
    if (pageBytes > limits.maxPageBytes) {
      fail(
        'too-large',
        'page',
        `a ${codec} page declares ${pageBytes} bytes uncompressed (at most ${limits.maxPageBytes} per page)`,
      );
    }
    if (pageBytes > left) {
      fail(
        'too-large',
        'page',
        `the ${codec} pages declare more than the ${declaredBytes} uncompressed bytes of their column chunks (total_uncompressed_size)`,
      );
    }
    left -= pageBytes;
  };
  const compressors: Compressors = {
    SNAPPY: (input, pageBytes) => {
      reserve('SNAPPY', pageBytes);
      const output = new Uint8Array(pageBytes);
      snappyUncompress(input, output);
      return output;
    },
  };
  for (const [codec, inflate] of Object.entries(INFLATERS)) {
    compressors[codec as keyof typeof INFLATERS] = (input, pageBytes) => {
      reserve(codec, pageBytes);
      try {
        return inflate(input, { maxOutputLength: Math.max(1, pageBytes) });
      } catch (error) {
        if (isBufferTooLarge(error)) {
          return fail(
            'too-large',
            'page',
            `a ${codec} page expands past the ${pageBytes} bytes its header declares`,
          );
        }
        return fail(
          'malformed-body',
          'page',
          `a ${codec} page does not decompress: ${(error as Error).message}`,
        );
      }
    };
  }
  return compressors;
};

/** The file as hyparquet reads it, remembering which errors came from its reads (S3, not the bytes). */
const trackReads = (file: AsyncBuffer) => {
  const readErrors = new WeakSet<object>();
  const tracked: AsyncBuffer = {
    byteLength: file.byteLength,
    slice: async (start, end) => {
      try {
        return await file.slice(start, end);
      } catch (error) {
        if (typeof error === 'object' && error !== null) readErrors.add(error);
        throw error;
      }
    },
  };
  const isReadError = (error: unknown): boolean =>
    typeof error === 'object' && error !== null && readErrors.has(error);
  return { tracked, isReadError };
};

const isDecimal = (element: SchemaElement): boolean =>
  element.converted_type === 'DECIMAL' || element.logical_type?.type === 'DECIMAL';

const scaleOf = (element: SchemaElement): number => {
  const logical = element.logical_type;
  return element.scale ?? (logical?.type === 'DECIMAL' ? logical.scale : 0) ?? 0;
};

/** Top-level columns and the scale of those that are DECIMAL. */
const decimalScales = (metadata: FileMetaData): Map<string, number> => {
  const scales = new Map<string, number>();
  const root = metadata.schema[0];
  let index = 1;
  for (let child = 0; child < (root.num_children ?? 0); child += 1) {
    const element = metadata.schema[index];
    if (isDecimal(element) && !element.num_children) scales.set(element.name, scaleOf(element));
    index = skipSubtree(metadata.schema, index);
  }
  return scales;
};

const skipSubtree = (schema: SchemaElement[], index: number): number => {
  let next = index + 1;
  for (let child = 0; child < (schema[index].num_children ?? 0); child += 1) {
    next = skipSubtree(schema, next);
  }
  return next;
};

const topLevelColumns = (metadata: FileMetaData): string[] => {
  const names: string[] = [];
  let index = 1;
  for (let child = 0; child < (metadata.schema[0].num_children ?? 0); child += 1) {
    names.push(metadata.schema[index].name);
    index = skipSubtree(metadata.schema, index);
  }
  return names;
};

/** DECIMAL columns read as their unscaled integers (scaled exactly by `decimalText`). */
const withRawDecimals = (metadata: FileMetaData): FileMetaData => ({
  ...metadata,
  schema: metadata.schema.map((element) =>
    isDecimal(element)
      ? { ...element, converted_type: undefined, logical_type: undefined }
      : element,
  ),
});

/** Where a column chunk starts: its dictionary page when it has one (some writers write 0 for none). */
const chunkStart = (meta: ColumnMetaData): number => {
  const dictionary = meta.dictionary_page_offset;
  return Number(dictionary !== undefined && dictionary > 0n ? dictionary : meta.data_page_offset);
};

const byteRange = (group: RowGroup): { byteStart: number; byteEnd: number } => {
  const chunks = group.columns.flatMap((column) => (column.meta_data ? [column.meta_data] : []));
  if (chunks.length === 0) return { byteStart: 0, byteEnd: 0 };
  return {
    byteStart: Math.min(...chunks.map(chunkStart)),
    byteEnd: Math.max(
      ...chunks.map((meta) => chunkStart(meta) + Number(meta.total_compressed_size)),
    ),
  };
};

/**
 * Reads the footer and lists the row groups with their rows and byte ranges. Without `requiredColumns`
 * the schema must be in a format we read (FOCUS, CUR 2.0, legacy CUR Parquet), which it names.
 */
export const readParquetFile = async (
  file: AsyncBuffer,
  requiredColumns?: readonly string[],
): Promise<ParquetFile> => {
  let metadata: FileMetaData;
  const { tracked, isReadError } = trackReads(file);
  try {
    metadata = await parquetMetadataAsync(tracked);
  } catch (error) {
    if (isReadError(error)) throw error;
    return fail('malformed-body', '$', `not a Parquet file: ${(error as Error).message}`);
  }
  const columns = topLevelColumns(metadata);
  let format: ExportColumnFormat | undefined;
  if (requiredColumns === undefined) {
    format = recognizeColumnFormat(columns, '$');
  } else {
    const missing = requiredColumns.filter((name) => !columns.includes(name));
    if (missing.length > 0) {
      fail('missing-field', missing.join(', '), `the file has no ${missing.join(', ')} column`);
    }
    format = detectColumnFormat(columns);
  }
  let rowStart = 0;
  const rowGroups = metadata.row_groups.map((group, index): RowGroupInfo => {
    const info = { index, rowStart, rowCount: Number(group.num_rows), ...byteRange(group) };
    rowStart += info.rowCount;
    return info;
  });
  return { metadata, columns, ...(format ? { format } : {}), rowCount: rowStart, rowGroups };
};

/**
 * Consecutive row groups cut into chunks of about `targetRows` rows: a chunk closes once it reaches the
 * target, so a row group is never split and a group larger than the target is a chunk of its own.
 */
export const planParquetChunks = (file: ParquetFile, targetRows: number): ParquetChunk[] => {
  if (!Number.isSafeInteger(targetRows) || targetRows < 1) {
    fail('invalid-field', 'targetRows', 'expected a positive integer');
  }
  const chunks: ParquetChunk[] = [];
  let current: ParquetChunk | undefined;
  for (const group of file.rowGroups) {
    current ??= {
      fromGroup: group.index,
      toGroup: group.index,
      rowStart: group.rowStart,
      rowCount: 0,
    };
    current.toGroup = group.index + 1;
    current.rowCount += group.rowCount;
    if (current.rowCount >= targetRows) {
      chunks.push(current);
      current = undefined;
    }
  }
  if (current) chunks.push(current);
  return chunks;
};

/** Two's complement big-endian bytes (DECIMAL as FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY) → integer. */
const bytesInteger = (bytes: Uint8Array): number | bigint => {
  const negative = bytes.length > 0 && (bytes[0] & 0x80) !== 0;
  const fill = negative ? 0xff : 0;
  let first = 0;
  while (
    first < bytes.length - 1 &&
    bytes[first] === fill &&
    (bytes[first + 1] & 0x80) === (fill & 0x80)
  ) {
    first += 1;
  }
  if (bytes.length - first <= 6) {
    let value = 0;
    for (let index = first; index < bytes.length; index += 1) value = value * 256 + bytes[index];
    return negative ? value - 2 ** (8 * (bytes.length - first)) : value;
  }
  if (bytes.length - first <= 7) {
    // |value| below 2^53 is exact in a double: a negative one from its complement, + 1.
    let magnitude = 0;
    for (let index = first; index < bytes.length; index += 1) {
      magnitude = magnitude * 256 + (negative ? 255 - bytes[index] : bytes[index]);
    }
    if (negative) magnitude += 1;
    if (magnitude <= Number.MAX_SAFE_INTEGER) return negative ? -magnitude : magnitude;
  }
  let unscaled = 0n;
  for (let index = first; index < bytes.length; index += 1) {
    unscaled = (unscaled << 8n) | BigInt(bytes[index]);
  }
  return negative ? unscaled - (1n << BigInt((bytes.length - first) * 8)) : unscaled;
};

const unscaledOf = (value: unknown): number | bigint | undefined => {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (value instanceof Uint8Array) return bytesInteger(value);
  return undefined;
};

/** Exact decimal text of unscaled × 10^-scale. */
export const decimalText = (unscaled: number | bigint, scale: number): string => {
  const negative = unscaled < 0;
  const sign = negative ? '-' : '';
  const digits = (negative ? -unscaled : unscaled).toString();
  if (scale <= 0) return `${sign}${digits}${'0'.repeat(-scale)}`;
  const padded = digits.padStart(scale + 1, '0');
  return `${sign}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
};

const cellText = (value: unknown): unknown => {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'invalid date' : value.toISOString();
  if (value instanceof Uint8Array) return utf8.decode(value);
  return value;
};

const decimalCellText =
  (scale: number) =>
  (value: unknown): unknown => {
    if (value === null || value === undefined) return undefined;
    const unscaled = unscaledOf(value);
    return unscaled === undefined ? value : decimalText(unscaled, scale);
  };

/**
 * One top-level column of a row group as hyparquet decoded it (one or more pieces, in row order), read
 * row by row in increasing order and turned into cell text on the way.
 */
class ColumnCells {
  private piece = 0;
  /** The last value turned into text, and its text: a dictionary hands on one object for equal cells. */
  private lastValue: unknown = undefined;
  private lastText: unknown = undefined;

  constructor(
    readonly name: string,
    private readonly pieces: ColumnData[],
    private readonly text: (value: unknown) => unknown,
  ) {}

  covers(rowStart: number, rowEnd: number): boolean {
    return this.coveredEnd(rowStart) >= rowEnd;
  }

  /** The end of the rows decoded without a gap from `rowStart` (a page decoded whole may pass a slice). */
  coveredEnd(rowStart: number): number {
    let next = rowStart;
    for (const piece of this.pieces) {
      if (piece.rowStart > next) return next;
      next = Math.max(next, piece.rowEnd);
    }
    return next;
  }

  at(row: number): unknown {
    let piece = this.pieces[this.piece];
    while (row >= piece.rowEnd) piece = this.pieces[++this.piece];
    const value: unknown = piece.columnData[row - piece.rowStart];
    if (typeof value === 'string') return value;
    if (value !== this.lastValue || value === undefined) {
      this.lastValue = value;
      this.lastText = this.text(value);
    }
    return this.lastText;
  }

  /** Rows from `row` on (at most to the end of its piece, and `SEGMENT_ROWS`), one value per row. */
  segment(row: number): ColumnSegment {
    let piece = this.pieces[this.piece];
    while (row >= piece.rowEnd) piece = this.pieces[++this.piece];
    const rowEnd = Math.min(piece.rowEnd, row + SEGMENT_ROWS);
    const values: unknown[] = [];
    const codes = new Int32Array(rowEnd - row);
    for (let each = row; each < rowEnd; each += 1) {
      const cell = this.at(each);
      codes[each - row] = cell === undefined ? NULL_CODE : values.push(cell) - 1;
    }
    return { rowStart: row, rowEnd, values, codes };
  }
}

/** Rows of a nested column handed on as one segment. */
const SEGMENT_ROWS = 8_192;

/** Which rows of which columns one `parquetRead` decodes. */
interface ColumnRead {
  columns: readonly string[];
  rowStart: number;
  rowEnd: number;
}

/** Rows [rowStart, rowEnd) of the given columns, column by column: hyparquet's decoded columns, no row objects. */
const readColumns = async (
  file: AsyncBuffer,
  metadata: FileMetaData,
  scales: Map<string, number>,
  read: ColumnRead,
  compressors: Compressors,
): Promise<ColumnCells[]> => {
  const pieces = new Map<string, ColumnData[]>(read.columns.map((name) => [name, []]));
  const { tracked, isReadError } = trackReads(file);
  const rows = `rows ${read.rowStart}-${read.rowEnd - 1}`;
  try {
    await parquetRead({
      file: tracked,
      metadata,
      columns: [...read.columns],
      rowStart: read.rowStart,
      rowEnd: read.rowEnd,
      utf8: false,
      compressors,
      onChunk: (chunk) => pieces.get(chunk.columnName)?.push(chunk),
    });
  } catch (error) {
    if (isReadError(error) || error instanceof ValidationError) throw error;
    fail('malformed-body', 'rowGroups', `${rows} do not decode: ${(error as Error).message}`);
  }
  return read.columns.map((name) => {
    const scale = scales.get(name);
    const column = new ColumnCells(
      name,
      pieces.get(name) ?? [],
      scale === undefined ? cellText : decimalCellText(scale),
    );
    if (!column.covers(read.rowStart, read.rowEnd)) {
      fail('malformed-body', name, `the column has fewer values than ${rows}`);
    }
    return column;
  });
};

/** A read column of a slice: its cells by row, or its decoded values and one code per row. */
export interface SliceColumn {
  readonly name: string;
  at(row: number): unknown;
  /** The decoded rows from `row` on (at least `row` itself) as distinct values and codes. */
  segment(row: number): ColumnSegment;
}

type CellColumn = SliceColumn;

/** Rows [rowStart, rowEnd) of the file, every read column decoded for them. */
export interface ParquetSlice {
  rowStart: number;
  rowEnd: number;
  format?: ExportColumnFormat;
  columns: readonly SliceColumn[];
}

type RowCells = (columns: readonly CellColumn[], row: number) => Record<string, unknown>;

const assignedCells: RowCells = (columns, row) => {
  const cells: Record<string, unknown> = {};
  for (const column of columns) cells[column.name] = column.at(row);
  return cells;
};

/** Slower, for a file with a `__proto__` column, which an assignment would take for the prototype. */
const definedCells: RowCells = (columns, row) =>
  Object.fromEntries(columns.map((column) => [column.name, column.at(row)]));

/** Column chunks of row group `group` whose top-level column is one of `columns`. */
const chunksOf = (metadata: FileMetaData, group: number, columns: ReadonlySet<string>) =>
  metadata.row_groups[group].columns.flatMap((column) =>
    column.meta_data && columns.has(column.meta_data.path_in_schema[0]) ? [column.meta_data] : [],
  );

/** Uncompressed bytes the chunks of `columns` in row groups [fromGroup, toGroup) declare. */
const declaredBytes = (
  metadata: FileMetaData,
  range: { fromGroup: number; toGroup: number },
  columns: ReadonlySet<string>,
): number => {
  let sum = 0;
  for (let group = range.fromGroup; group < range.toGroup; group += 1) {
    for (const meta of chunksOf(metadata, group, columns)) {
      sum += Number(meta.total_uncompressed_size);
    }
  }
  return sum;
};

/** Largest gap of unread bytes between two column chunks that one ranged read still spans. */
const MAX_READ_GAP = 64 * 1024;

/**
 * The compressed bytes of one row group's read column chunks, fetched once (neighbouring chunks in one
 * ranged read) and then served to every row slice of the group from memory: the file (S3) is read once
 * per group whatever the number of slices, and only for the columns read.
 */
const groupBytes = async (
  file: AsyncBuffer,
  metadata: FileMetaData,
  group: number,
  columns: ReadonlySet<string>,
): Promise<AsyncBuffer> => {
  const ranges = chunksOf(metadata, group, columns)
    .map((meta) => {
      const start = chunkStart(meta);
      return { start, end: start + Number(meta.total_compressed_size) };
    })
    .sort((a, b) => a.start - b.start);
  const runs: { start: number; end: number }[] = [];
  for (const range of ranges) {
    const last = runs[runs.length - 1];
    if (last && range.start <= last.end + MAX_READ_GAP) last.end = Math.max(last.end, range.end);
    else runs.push({ ...range });
  }
  const fetched = await Promise.all(
    runs.map(async (run) => ({ ...run, bytes: await file.slice(run.start, run.end) })),
  );
  return {
    byteLength: file.byteLength,
    slice: (start, end = file.byteLength) => {
      const run = fetched.find((each) => each.start <= start && end <= each.end);
      return run ? run.bytes.slice(start - run.start, end - run.start) : file.slice(start, end);
    },
  };
};

/** A top-level column that hyparquet assembles from nested data (a MAP, LIST or struct). */
const nestedColumns = (metadata: FileMetaData): Set<string> => {
  const nested = new Set<string>();
  let index = 1;
  for (let child = 0; child < (metadata.schema[0].num_children ?? 0); child += 1) {
    const element = metadata.schema[index];
    if ((element.num_children ?? 0) > 0 || element.repetition_type === 'REPEATED') {
      nested.add(element.name);
    }
    index = skipSubtree(metadata.schema, index);
  }
  return nested;
};

/** Runs a decoding step: bytes that do not decode are the file's fault (`malformed-body`). */
const decoding = <T>(rows: string, decode: () => T): T => {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    return fail(
      'malformed-body',
      'rowGroups',
      `${rows} do not decode: ${(error as Error).message}`,
    );
  }
};

/** The flat read columns of one row group, each over its column chunk's compressed bytes. */
const flatColumns = async (
  bytes: AsyncBuffer,
  metadata: FileMetaData,
  scales: Map<string, number>,
  group: RowGroupInfo,
  names: readonly string[],
  compressors: Compressors,
): Promise<ColumnPages[]> => {
  const chunks = new Map(
    chunksOf(metadata, group.index, new Set(names)).map((meta) => [meta.path_in_schema[0], meta]),
  );
  return Promise.all(
    names.map(async (name) => {
      const meta = chunks.get(name);
      if (!meta) return fail('malformed-body', name, `row group ${group.index} has no such column`);
      const start = chunkStart(meta);
      const scale = scales.get(name);
      return new ColumnPages({
        name,
        metadata,
        meta,
        bytes: new Uint8Array(await bytes.slice(start, start + Number(meta.total_compressed_size))),
        groupStart: group.rowStart,
        groupRows: group.rowCount,
        text: scale === undefined ? cellText : decimalCellText(scale),
        compressors,
      });
    }),
  );
};

/**
 * Rows of flat columns decoded ahead when a reader does not say. Each page is decoded once, when the
 * rows reach it, and let go once they have passed it, so a row group costs the decoded pages of about
 * this many rows per read column (plus each column's dictionary and its read columns' compressed
 * bytes), whatever its size (docs/exports.md#memory).
 */
export const DEFAULT_SLICE_ROWS = 8_192;

export interface ParquetReadOptions {
  /**
   * The top-level columns to decode; the others are never fetched nor decoded. Default: the columns the
   * file's recognised format maps (`COLUMNS_READ`), or every column when the file has no format.
   */
  columns?: readonly string[];
  /** Rows of flat columns decoded ahead of the rows handed on (default `DEFAULT_SLICE_ROWS`). */
  sliceRows?: number;
}

/** The columns a read decodes: `options.columns`, else the format's mapped ones, else every column. */
const columnsReadOf = (parquet: ParquetFile, options: ParquetReadOptions): readonly string[] =>
  options.columns ??
  (parquet.format ? columnsToRead(parquet.format, parquet.columns) : parquet.columns);

export type ParquetRange = { fromGroup: number; toGroup: number; fromRow?: number };

/**
 * Rows of row groups [fromGroup, toGroup), starting at row `fromRow` of the file when given (a cursor
 * inside the range), as slices of decoded columns. Only the columns the format's mapping reads are
 * fetched and decoded (or `options.columns`), so a MAP column nobody maps is never touched. A row group
 * is read once (its read columns' compressed bytes); each flat column is decoded page by page
 * (`ColumnPages`), each page once: before a slice of `sliceRows` rows is handed on, every column has
 * decoded the pages that cover it, and the pages the rows have passed are let go, so decoded memory
 * does not grow with the row group. A slice is valid until the next one is asked for.
 * A nested column that is read (a MAP a mapping names) is decoded for the whole group at once — hyparquet
 * assembles nested data per column chunk.
 */
export async function* readParquetSlices(
  file: AsyncBuffer,
  parquet: ParquetFile,
  range: ParquetRange,
  limits: DecompressionLimits = DECOMPRESSION_LIMITS,
  options: ParquetReadOptions = {},
): AsyncGenerator<ParquetSlice> {
  if (
    range.fromGroup < 0 ||
    range.toGroup > parquet.rowGroups.length ||
    range.fromGroup > range.toGroup
  ) {
    fail(
      'invalid-field',
      'rowGroups',
      `[${range.fromGroup}, ${range.toGroup}) is not within the file's ${parquet.rowGroups.length} row groups`,
    );
  }
  const sliceRows = options.sliceRows ?? DEFAULT_SLICE_ROWS;
  if (!Number.isSafeInteger(sliceRows) || sliceRows < 1) {
    fail('invalid-field', 'sliceRows', 'expected a positive whole number of rows');
  }
  const wanted = columnsReadOf(parquet, options);
  const missing = wanted.filter((name) => !parquet.columns.includes(name));
  if (missing.length > 0) {
    fail('missing-field', missing.join(', '), `the file has no ${missing.join(', ')} column`);
  }
  const read = new Set(wanted);
  const declared = declaredBytes(parquet.metadata, range, read);
  if (declared > limits.maxTaskBytes) {
    fail(
      'too-large',
      'rowGroups',
      `row groups ${range.fromGroup}-${range.toGroup - 1} declare ${declared} bytes uncompressed (at most ${limits.maxTaskBytes} per task): lower exportParquetRowsPerTask, or write smaller row groups`,
    );
  }
  const metadata = withRawDecimals(parquet.metadata);
  const scales = decimalScales(parquet.metadata);
  const nested = nestedColumns(parquet.metadata);
  const nestedRead = parquet.columns.filter((name) => read.has(name) && nested.has(name));
  const flatRead = parquet.columns.filter((name) => read.has(name) && !nested.has(name));
  for (const group of parquet.rowGroups.slice(range.fromGroup, range.toGroup)) {
    const groupEnd = group.rowStart + group.rowCount;
    const groupStart = Math.max(group.rowStart, range.fromRow ?? 0);
    if (groupStart >= groupEnd) continue;
    const bytes = await groupBytes(file, parquet.metadata, group.index, read);
    // Every page is decoded at most once, so the group's pages never expand past its declared bytes.
    const compressors = cappedCompressors(
      declaredBytes(parquet.metadata, { fromGroup: group.index, toGroup: group.index + 1 }, read),
      limits,
    );
    const whole =
      nestedRead.length > 0
        ? await readColumns(
            bytes,
            metadata,
            scales,
            { columns: nestedRead, rowStart: groupStart, rowEnd: groupEnd },
            compressors,
          )
        : [];
    const flat = await flatColumns(bytes, metadata, scales, group, flatRead, compressors);
    const columns: SliceColumn[] = [...flat, ...whole];
    const rows = `rows ${groupStart}-${groupEnd - 1}`;
    for (
      let sliceStart = groupStart, sliceEnd = groupStart;
      sliceStart < groupEnd;
      sliceStart = sliceEnd
    ) {
      sliceEnd = Math.min(groupEnd, sliceStart + sliceRows);
      for (const column of flat) decoding(rows, () => column.prepare(sliceStart, sliceEnd));
      yield parquet.format
        ? { rowStart: sliceStart, rowEnd: sliceEnd, format: parquet.format, columns }
        : { rowStart: sliceStart, rowEnd: sliceEnd, columns };
    }
  }
}

/** The rows of `readParquetSlices`, one cells object per row. */
export async function* readParquetRows(
  file: AsyncBuffer,
  parquet: ParquetFile,
  range: ParquetRange,
  limits: DecompressionLimits = DECOMPRESSION_LIMITS,
  options: ParquetReadOptions = {},
): AsyncGenerator<ExportRow> {
  const read = new Set(columnsReadOf(parquet, options));
  const rowCells = read.has('__proto__') ? definedCells : assignedCells;
  for await (const slice of readParquetSlices(file, parquet, range, limits, options)) {
    const { columns, format } = slice;
    for (let row = slice.rowStart; row < slice.rowEnd; row += 1) {
      yield format
        ? { rowIndex: row, cells: rowCells(columns, row), format }
        : { rowIndex: row, cells: rowCells(columns, row) };
    }
  }
}

/**
 * A task's Parquet rows that can also be read as slices of columns: `chunkResults` books them column
 * by column (`columnar/`), anything else iterates the rows. The file is opened (its footer read) when
 * either is first iterated.
 */
export interface ParquetRowSource extends AsyncIterable<ExportRow> {
  /**
   * Slices of the rows; `columnsOf` picks the columns to decode once the footer is read (undefined:
   * the format's mapped columns), and may keep the file's facts.
   */
  slices(
    columnsOf?: (parquet: ParquetFile) => readonly string[] | undefined,
  ): AsyncIterable<ParquetSlice>;
}

export interface OpenedParquet {
  file: AsyncBuffer;
  parquet: ParquetFile;
}

/** The rows of `range` of the file `open` gives (called once per iteration). */
export const parquetRowSource = (
  open: () => Promise<OpenedParquet>,
  range: ParquetRange,
  limits: DecompressionLimits = DECOMPRESSION_LIMITS,
  options: ParquetReadOptions = {},
): ParquetRowSource => ({
  async *[Symbol.asyncIterator]() {
    const { file, parquet } = await open();
    yield* readParquetRows(file, parquet, range, limits, options);
  },
  async *slices(columnsOf) {
    const { file, parquet } = await open();
    const columns = columnsOf?.(parquet) ?? options.columns;
    yield* readParquetSlices(file, parquet, range, limits, { ...options, columns });
  },
});

export const isParquetRowSource = (rows: AsyncIterable<ExportRow>): rows is ParquetRowSource =>
  typeof (rows as Partial<ParquetRowSource>).slices === 'function';
