/**
 * Rows of a CSV or gzip-compressed CSV export file, streamed: memory holds one decoded piece of text
 * (64 KiB of gunzip output), its records and one unfinished record, whatever the file's size. The first
 * record is the header. Row identity is positional: rowIndex counts data records from 0 (blank lines are
 * not records), the same on every read of the same bytes, so a committed cursor (`fromRow`) resumes
 * exactly where the last commit stopped; rows before it are parsed (CSV cannot seek) but never turned
 * into objects. Text is UTF-8; a byte-order mark at the start is dropped.
 *
 * The header says the file's format (FOCUS, CUR 2.0, legacy CUR: `column-format.ts`); every row carries
 * it. A record with more or fewer cells than the header is yielded with a `problem` (the row is rejected,
 * the rest of the file still read). A header in no format we read, a header with the
 * same column twice, broken quoting or a record over `MAX_RECORD_BYTES` make the whole file unreadable:
 * a `ValidationError` naming the file's problem.
 */
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { fail } from '../../errors';
import {
  detectColumnFormat,
  recognizeColumnFormat,
  type ExportColumnFormat,
} from '../column-format';
import type { ExportRow } from '../rows';
import { CsvRecordSplitter, CsvSyntaxError } from './csv-records';

/** Longest accepted record, in characters (a FOCUS row with large Tags is a few KiB). */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Gunzip output piece: large enough that per-piece costs vanish next to the rows it holds. */
const GUNZIP_CHUNK_BYTES = 64 * 1024;

export interface CsvReadOptions {
  gzip: boolean;
  /** First data row to yield (the durable cursor); default 0. */
  fromRow?: number;
  /**
   * Columns the header must have. Default: the columns of a format we read (FOCUS, CUR 2.0, legacy
   * CUR), recognised from the header; each row carries the format.
   */
  requiredColumns?: readonly string[];
}

export type ByteSource = AsyncIterable<Uint8Array> | Readable;

/** The header's format (undefined when `required` is given and the header is in no known format). */
const checkHeader = (
  header: string[],
  required: readonly string[] | undefined,
): ExportColumnFormat | undefined => {
  const names = new Set(header);
  if (names.size !== header.length) {
    const twice = header.find((name, index) => header.indexOf(name) !== index);
    fail('invalid-field', String(twice), 'the header has this column twice');
  }
  if (required === undefined) return recognizeColumnFormat(header, '$');
  const missing = required.filter((name) => !names.has(name));
  if (missing.length > 0) {
    fail(
      'missing-field',
      missing.join(', '),
      `the file's header has no ${missing.join(', ')} column`,
    );
  }
  return detectColumnFormat(header);
};

/** zlib's errors carry a `Z_…` code (checked by shape: they may come from another realm). */
const isZlibError = (error: unknown): error is { code: string; message: string } =>
  typeof error === 'object' &&
  error !== null &&
  String((error as { code?: unknown }).code).startsWith('Z_');

type CellsOf = (header: string[], record: string[]) => Record<string, unknown>;

const assignedCells: CellsOf = (header, record) => {
  const cells: Record<string, unknown> = {};
  for (let index = 0; index < header.length; index += 1) cells[header[index]] = record[index];
  return cells;
};

/** Slower, for a header with a `__proto__` column, which an assignment would take for the prototype. */
const definedCells: CellsOf = (header, record) =>
  Object.fromEntries(header.map((name, index) => [name, record[index]]));

/** Gunzipped bytes; an error of either stream ends their iteration with that error. */
const gunzipped = (bytes: Readable): Readable =>
  pipeline(bytes, createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }), () => undefined);

/** Records of the file, a piece of text at a time; a syntax error after the records before it. */
async function* recordBatches(input: Readable): AsyncGenerator<string[][]> {
  const decoder = new TextDecoder('utf-8');
  const splitter = new CsvRecordSplitter(MAX_RECORD_BYTES);
  const records: string[][] = [];
  const batch = (piece: string, last: boolean): Error | undefined => {
    records.length = 0;
    try {
      splitter.push(piece, records);
      if (last) splitter.end(records);
    } catch (error) {
      return error as Error;
    }
    return undefined;
  };
  for await (const chunk of input as AsyncIterable<Uint8Array>) {
    const failure = batch(decoder.decode(chunk, { stream: true }), false);
    yield records;
    if (failure !== undefined) throw failure;
  }
  const failure = batch(decoder.decode(), true);
  yield records;
  if (failure !== undefined) throw failure;
}

export async function* readCsvRows(
  source: ByteSource,
  options: CsvReadOptions,
): AsyncGenerator<ExportRow> {
  const fromRow = options.fromRow ?? 0;
  const bytes = source instanceof Readable ? source : Readable.from(source);
  const input = options.gzip ? gunzipped(bytes) : bytes;
  let header: string[] | undefined;
  let format: ExportColumnFormat | undefined;
  let cellsOf: CellsOf = assignedCells;
  let rowIndex = 0;
  try {
    for await (const records of recordBatches(input)) {
      for (const record of records) {
        if (header === undefined) {
          header = record.map((name) => name.trim());
          format = checkHeader(header, options.requiredColumns);
          if (header.includes('__proto__')) cellsOf = definedCells;
          continue;
        }
        const index = rowIndex;
        rowIndex += 1;
        if (index < fromRow) continue;
        if (record.length !== header.length) {
          yield {
            rowIndex: index,
            cells: {},
            problem: `has ${record.length} cells, the header has ${header.length}`,
            ...(format ? { format } : {}),
          };
          continue;
        }
        yield format
          ? { rowIndex: index, cells: cellsOf(header, record), format }
          : { rowIndex: index, cells: cellsOf(header, record) };
      }
    }
  } catch (error) {
    if (error instanceof CsvSyntaxError) {
      fail('malformed-body', `row ${rowIndex + 1}`, `not readable as CSV: ${error.message}`);
    }
    if (isZlibError(error)) fail('malformed-body', '$', `not a gzip file: ${error.message}`);
    throw error;
  } finally {
    input.destroy();
    bytes.destroy();
  }
  if (header === undefined) fail('missing-field', '$', 'the file is empty: no header row');
}
