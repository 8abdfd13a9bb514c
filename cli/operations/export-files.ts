/**
 * Local FOCUS files before an upload: format by extension, the columns of each file (CSV header,
 * Parquet schema) and the billing period of its first row. Everything the export pipeline would refuse
 * for a whole file is refused here, before a single byte is uploaded: an upload that the pipeline then
 * fails (or books as an empty snapshot) would replace nothing and explain less.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { parquetReadObjects, type AsyncBuffer } from 'hyparquet';
import { dataFileFormat, type DataFileFormat } from '../../lambda/core/exports/manifest';
import { readParquetFile } from '../../lambda/core/exports/readers/parquet';
import {
  recognizeColumnFormat,
  type ExportColumnFormat,
} from '../../lambda/core/exports/column-format';
import { ValidationError } from '../../lambda/core/errors';
import { monthOf, toInstant } from '../../lambda/core/instant';
import { MAX_RECORD_BYTES } from '../../lambda/core/exports/readers/csv';
import { UsageError } from '../errors';

export interface ExportFile {
  path: string;
  /** The object's file name in the export (the local file's base name). */
  name: string;
  format: DataFileFormat;
  size: number;
  columns: string[];
  /** `YYYY-MM` of the first data row's BillingPeriodStart; undefined for a file without rows. */
  firstRowPeriod?: string;
}

const CONTENT_TYPES: Record<DataFileFormat, string> = {
  csv: 'text/csv',
  'csv.gz': 'application/gzip',
  parquet: 'application/vnd.apache.parquet',
};

export const contentTypeOf = (format: DataFileFormat): string => CONTENT_TYPES[format];

const reasonOf = (error: unknown): string => (error as Error).message ?? String(error);

/** The UTC month of a BillingPeriodStart cell, as the pipeline books it; undefined if unreadable. */
const periodOf = (value: unknown): string | undefined => {
  if (value instanceof Date) return monthOf(value.toISOString());
  try {
    return monthOf(
      toInstant(
        ['string', 'number', 'bigint'].includes(typeof value) ? String(value).trim() : '',
        'BillingPeriodStart',
      ),
    );
  } catch {
    return undefined;
  }
};

/** Header and first data record of a CSV / CSV.gz file (the rest is never read). */
const csvHead = async (
  path: string,
  gzip: boolean,
): Promise<{ header?: string[]; first?: string[] }> => {
  const bytes = createReadStream(path);
  const input = gzip ? bytes.pipe(createGunzip()) : bytes;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  input.on('error', (error: Error) => parser.destroy(error));
  input.pipe(parser);
  const records: string[][] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      records.push(record);
      if (records.length === 2) break;
    }
  } finally {
    input.unpipe(parser);
    bytes.destroy();
  }
  return { header: records[0]?.map((name) => name.trim()), first: records[1] };
};

const csvFacts = async (path: string, gzip: boolean) => {
  const { header, first } = await csvHead(path, gzip);
  if (!header) throw new Error('the file is empty: no header row');
  const periodColumn = header.indexOf('BillingPeriodStart');
  return {
    columns: header,
    firstRowPeriod: first && periodColumn >= 0 ? periodOf(first[periodColumn]) : undefined,
  };
};

/** A local file as hyparquet's `AsyncBuffer`: only the footer and the asked ranges are read. */
const fileBuffer = (handle: Awaited<ReturnType<typeof open>>, size: number): AsyncBuffer => ({
  byteLength: size,
  slice: async (start, end = size) => {
    const bytes = new Uint8Array(Math.max(0, Math.min(end, size) - start));
    await handle.read(bytes, 0, bytes.length, start);
    return bytes.buffer;
  },
});

const parquetFacts = async (path: string, size: number) => {
  const handle = await open(path);
  try {
    return await parquetFactsOf(fileBuffer(handle, size));
  } finally {
    await handle.close();
  }
};

const parquetFactsOf = async (file: AsyncBuffer) => {
  const { metadata, columns, rowCount } = await readParquetFile(file, []);
  let firstRowPeriod: string | undefined;
  if (columns.includes('BillingPeriodStart') && rowCount > 0) {
    try {
      const [first] = (await parquetReadObjects({
        file,
        metadata,
        columns: ['BillingPeriodStart'],
        rowStart: 0,
        rowEnd: 1,
      })) as Record<string, unknown>[];
      firstRowPeriod = periodOf(first?.BillingPeriodStart);
    } catch {
      // A codec only the pipeline's reader has (GZIP, BROTLI, ZSTD): the period check is best effort.
    }
  }
  return { columns, firstRowPeriod };
};

/** One local file: readable, a supported format, its columns and first row's period. */
export const inspectExportFile = async (path: string): Promise<ExportFile> => {
  const name = basename(path);
  const format = dataFileFormat(name);
  if (format === undefined) {
    throw new UsageError(
      `${path}: not a FOCUS export file (expected .csv, .csv.gz or .parquet): rename it or convert it`,
    );
  }
  let size: number;
  try {
    const stats = await stat(path);
    if (!stats.isFile()) throw new Error('not a regular file');
    size = stats.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${path}: ${code === 'ENOENT' ? 'no such file' : reasonOf(error)}: check the path`,
    );
  }
  try {
    const facts =
      format === 'parquet'
        ? await parquetFacts(path, size)
        : await csvFacts(path, format === 'csv.gz');
    return { path, name, format, size, ...facts };
  } catch (error) {
    throw new UsageError(`${path}: cannot be read as ${format}: ${reasonOf(error)}`);
  }
};

/** A file's format from its columns, or the reason it has none we read. */
const formatOf = (file: ExportFile): { format?: ExportColumnFormat; problem?: string } => {
  try {
    return { format: recognizeColumnFormat(file.columns) };
  } catch (error) {
    if (error instanceof ValidationError) return { problem: `${file.path}: ${error.reason}` };
    throw error;
  }
};

/**
 * Refuses what would fail or falsify the execution: a file whose columns are in no format we read
 * (FOCUS, CUR 2.0, legacy CUR), files of two formats in one export, a column twice, two files of the
 * same name, a first row of another billing period than `period`.
 */
export const checkExportFiles = (files: readonly ExportFile[], period: string): void => {
  const problems: string[] = [];
  const names = new Map<string, string>();
  const formats = new Set<ExportColumnFormat>();
  for (const file of files) {
    const { format, problem } = formatOf(file);
    if (problem !== undefined) problems.push(problem);
    if (format !== undefined) formats.add(format);
    const twice = file.columns.find((column, index) => file.columns.indexOf(column) !== index);
    if (twice !== undefined) problems.push(`${file.path}: column ${twice} appears twice`);
    if (file.firstRowPeriod !== undefined && file.firstRowPeriod !== period) {
      problems.push(
        `${file.path}: its first row is of billing period ${file.firstRowPeriod}, not ${period}`,
      );
    }
    const other = names.get(file.name);
    if (other !== undefined)
      problems.push(`${file.path}: same file name as ${other} (rename one of them)`);
    names.set(file.name, file.path);
  }
  if (formats.size > 1) {
    problems.push(
      `the files are of different formats (${[...formats].join(', ')}): put each export on its own`,
    );
  }
  if (problems.length > 0) throw new UsageError(`Nothing uploaded: ${problems.join('; ')}`);
};

/** The manifest's columns: every file's columns, in first-seen order. */
export const manifestColumns = (files: readonly ExportFile[]): string[] => [
  ...new Set(files.flatMap((file) => file.columns)),
];
