/**
 * Rows of a CSV or gzip-compressed CSV export file, streamed: memory holds one parser buffer and one
 * row, whatever the file's size. The first record is the header. Row identity is positional: rowIndex
 * counts data records from 0 (blank lines are not records), the same on every read of the same bytes,
 * so a committed cursor (`fromRow`) resumes exactly where the last commit stopped; rows before it are
 * parsed (CSV cannot seek) but never turned into objects.
 *
 * A record with more or fewer cells than the header is yielded with a `problem` (the row is rejected,
 * the rest of the file still read). A header without the columns the ledger needs, a header with the
 * same column twice, broken quoting or a record over `MAX_RECORD_BYTES` make the whole file unreadable:
 * a `ValidationError` naming the file's problem.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CsvError, parse } from 'csv-parse';
import { fail } from '../../errors';
import { REQUIRED_FOCUS_COLUMNS } from '../manifest';
import type { ExportRow } from '../rows';

/** Longest accepted record (a FOCUS row with large Tags is a few KiB). */
export const MAX_RECORD_BYTES = 1024 * 1024;

export interface CsvReadOptions {
  gzip: boolean;
  /** First data row to yield (the durable cursor); default 0. */
  fromRow?: number;
  /** Columns the header must have; default the ledger's required FOCUS columns. */
  requiredColumns?: readonly string[];
}

export type ByteSource = AsyncIterable<Uint8Array> | Readable;

const checkHeader = (header: string[], required: readonly string[]): void => {
  const names = new Set(header);
  if (names.size !== header.length) {
    const twice = header.find((name, index) => header.indexOf(name) !== index);
    fail('invalid-field', String(twice), 'the header has this column twice');
  }
  const missing = required.filter((name) => !names.has(name));
  if (missing.length > 0) {
    fail(
      'missing-field',
      missing.join(', '),
      `the file's header has no ${missing.join(', ')} column`,
    );
  }
};

/** zlib's errors carry a `Z_…` code (checked by shape: they may come from another realm). */
const isZlibError = (error: unknown): error is { code: string; message: string } =>
  typeof error === 'object' &&
  error !== null &&
  String((error as { code?: unknown }).code).startsWith('Z_');

const cellsOf = (header: string[], record: string[]): Record<string, unknown> =>
  Object.fromEntries(header.map((name, index) => [name, record[index]]));

export async function* readCsvRows(
  source: ByteSource,
  options: CsvReadOptions,
): AsyncGenerator<ExportRow> {
  const fromRow = options.fromRow ?? 0;
  const bytes = source instanceof Readable ? source : Readable.from(source);
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const input = options.gzip ? bytes.pipe(createGunzip()) : bytes;
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let header: string[] | undefined;
  let rowIndex = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (header === undefined) {
        header = record.map((name) => name.trim());
        checkHeader(header, options.requiredColumns ?? REQUIRED_FOCUS_COLUMNS);
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
        };
        continue;
      }
      yield { rowIndex: index, cells: cellsOf(header, record) };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      fail('malformed-body', `row ${rowIndex + 1}`, `not readable as CSV: ${error.message}`);
    }
    if (isZlibError(error)) fail('malformed-body', '$', `not a gzip file: ${error.message}`);
    throw error;
  } finally {
    input.unpipe(parser);
    bytes.destroy();
  }
  if (header === undefined) fail('missing-field', '$', 'the file is empty: no header row');
}
