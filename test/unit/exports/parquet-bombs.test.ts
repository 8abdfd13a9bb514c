/**
 * Decompression bombs in Parquet pages: a page never expands past what its header declares or the page
 * ceiling, a task's pages never past what their column chunks declare or the task ceiling.
 */
import * as zlib from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ValidationError } from '../../../lambda/core/errors';
import {
  readParquetFile,
  readParquetRows,
  type ParquetFile,
} from '../../../lambda/core/exports/readers/parquet';
import { collect, rangedBuffer, validationErrorOf } from './helpers';

const MIB = 1024 * 1024;
/** What the bombs expand to: the size the review measured. */
const BOMB_BYTES = 768 * MIB;

const gzipBomb = (): Buffer => {
  const member = zlib.gzipSync(Buffer.alloc(64 * MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: BOMB_BYTES / (64 * MIB) }, () => member));
};

const brotliBomb = async (): Promise<Buffer> => {
  const encoder = zlib.createBrotliCompress({
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 },
  });
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve) => encoder.on('end', resolve));
  const zeros = Buffer.alloc(64 * MIB);
  for (let written = 0; written < BOMB_BYTES; written += zeros.length) {
    if (!encoder.write(zeros)) await new Promise((resolve) => encoder.once('drain', resolve));
  }
  encoder.end();
  await ended;
  return Buffer.concat(parts);
};

const SERVICES = Array.from({ length: 200 }, (_, index) => `service-${index}`);

/** One string column coded with `codec`; `compress` decides what each page's bytes are. */
const parquetOf = (
  codec: 'GZIP' | 'BROTLI',
  compress: (page: Uint8Array) => Uint8Array,
  rowGroupSize = SERVICES.length,
) =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'ServiceName', data: SERVICES, type: 'STRING', codec }],
      compressors: { [codec]: compress },
      rowGroupSize,
    }),
  );

const honest = {
  GZIP: (page: Uint8Array) => zlib.gzipSync(page),
  BROTLI: (page: Uint8Array) => zlib.brotliCompressSync(page),
};

const open = async (bytes: Uint8Array) => {
  const file = rangedBuffer(bytes);
  return { file, parquet: await readParquetFile(file, []) };
};

const readAll = (file: ReturnType<typeof rangedBuffer>, parquet: ParquetFile, limits?: never) =>
  collect(
    readParquetRows(file, parquet, { fromGroup: 0, toGroup: parquet.rowGroups.length }, limits),
  );

const peakRssMib = () => process.resourceUsage().maxRSS / 1024;

describe('Parquet decompression limits', () => {
  let bombs: { GZIP: Buffer; BROTLI: Buffer };

  beforeAll(async () => {
    bombs = { GZIP: gzipBomb(), BROTLI: await brotliBomb() };
  });

  it.each(['GZIP', 'BROTLI'] as const)(
    'a %s page expanding to 768 MiB is refused at the size its header declares, without the memory',
    async (codec) => {
      const { file, parquet } = await open(parquetOf(codec, () => bombs[codec]));
      const before = peakRssMib();

      const error = await validationErrorOf(() => readAll(file, parquet));

      expect(error.code).toBe('too-large');
      expect(error.reason).toMatch(
        new RegExp(`a ${codec} page expands past the \\d+ bytes its header declares`),
      );
      expect(peakRssMib() - before).toBeLessThan(64);
    },
  );

  it('honest GZIP and BROTLI pages read as before', async () => {
    for (const codec of ['GZIP', 'BROTLI'] as const) {
      const { file, parquet } = await open(parquetOf(codec, honest[codec]));
      const rows = await readAll(file, parquet);
      expect(rows.map((row) => row.cells.ServiceName)).toEqual(SERVICES);
    }
  });

  it('a page declaring more than the page ceiling is refused before it is decompressed', async () => {
    // Bytes that are not gzip: decompressing them would fail with another reason.
    const { file, parquet } = await open(parquetOf('GZIP', () => Buffer.from('not gzip')));
    const error = await validationErrorOf(() =>
      collect(
        readParquetRows(
          file,
          parquet,
          { fromGroup: 0, toGroup: 1 },
          { maxPageBytes: 100, maxTaskBytes: 1024 * MIB },
        ),
      ),
    );
    expect(error).toMatchObject({ code: 'too-large', field: 'page' });
    expect(error.reason).toMatch(
      /a GZIP page declares \d+ bytes uncompressed \(at most 100 per page\)/,
    );
  });

  it('pages declaring more than their column chunks declare (total_uncompressed_size) are refused', async () => {
    const { file, parquet } = await open(parquetOf('GZIP', honest.GZIP));
    const understated: ParquetFile = {
      ...parquet,
      metadata: {
        ...parquet.metadata,
        row_groups: parquet.metadata.row_groups.map((group) => ({
          ...group,
          columns: group.columns.map((column) => ({
            ...column,
            meta_data: column.meta_data && { ...column.meta_data, total_uncompressed_size: 10n },
          })),
        })),
      },
    };
    const error = await validationErrorOf(() => readAll(file, understated));
    expect(error.reason).toMatch(
      /declare more than the 10 uncompressed bytes of their column chunks/,
    );
  });

  it('a task whose row groups declare more than the task ceiling is refused before any page is read', async () => {
    const { file, parquet } = await open(parquetOf('GZIP', honest.GZIP, 50));
    const footerReads = file.reads.length;
    const error = await validationErrorOf(() =>
      collect(
        readParquetRows(
          file,
          parquet,
          { fromGroup: 1, toGroup: 4 },
          {
            maxPageBytes: MIB,
            maxTaskBytes: 100,
          },
        ),
      ),
    );
    expect(error).toMatchObject({ code: 'too-large', field: 'rowGroups' });
    expect(error.reason).toMatch(
      /row groups 1-3 declare \d+ bytes uncompressed \(at most 100 per task\)/,
    );
    expect(file.reads.length).toBe(footerReads);
  });

  it('bytes that do not decode are a ValidationError of the file, not a transient error', async () => {
    const { file, parquet } = await open(parquetOf('GZIP', () => Buffer.from('not gzip at all')));
    const error = await validationErrorOf(() => readAll(file, parquet));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.reason).toMatch(/a GZIP page does not decompress/);
  });

  it('a read of the file that fails (S3) passes through unchanged, for the caller to retry', async () => {
    const { file, parquet } = await open(parquetOf('GZIP', honest.GZIP));
    const throttled = Object.assign(new Error('SlowDown'), { name: 'SlowDown' });
    const failing = { ...file, slice: () => Promise.reject(throttled) };
    await expect(readAll(failing as never, parquet)).rejects.toBe(throttled);
    await expect(readParquetFile(failing as never, [])).rejects.toBe(throttled);
  });
});
