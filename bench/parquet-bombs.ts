/**
 * Parquet decompression limits, measured: the uncompressed bytes a benchmark-shaped Parquet task
 * declares (200,000 generated FOCUS rows in row groups of 50,000), and, per codec, what reading a
 * page that expands to 768 MiB costs the process (time, peak RSS) and how it ends.
 *
 *   npx tsx bench/parquet-bombs.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as zlib from 'node:zlib';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { readParquetFile, readParquetRows } from '../lambda/core/exports/readers/parquet';
import { writeFocusParquet } from '../test/support/focus-export-generator';

const MIB = 1024 * 1024;
const CODECS = ['GZIP', 'BROTLI'] as const;
type Codec = (typeof CODECS)[number];

const declaredTaskBytes = async (): Promise<number> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parquet-bombs-'));
  try {
    const file = path.join(dir, 'task.parquet');
    await writeFocusParquet(file, { rows: 200_000, accounts: 50 }, { rowGroupSize: 50_000 });
    const bytes = readFileSync(file);
    const metadata = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    );
    return metadata.row_groups
      .flatMap((group) => group.columns)
      .reduce((sum, column) => sum + Number(column.meta_data?.total_uncompressed_size ?? 0), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** 768 MiB of zeros: 12 gzip members of 64 MiB, or one brotli stream. */
const bombOf = async (codec: Codec): Promise<Buffer> => {
  const zeros = Buffer.alloc(64 * MIB);
  if (codec === 'GZIP') {
    const member = zlib.gzipSync(zeros, { level: 9 });
    return Buffer.concat(Array.from({ length: 12 }, () => member));
  }
  const encoder = zlib.createBrotliCompress({
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 },
  });
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve) => encoder.on('end', resolve));
  for (let index = 0; index < 12; index += 1)
    if (!encoder.write(zeros)) await new Promise((resolve) => encoder.once('drain', resolve));
  encoder.end();
  await ended;
  return Buffer.concat(parts);
};

/** One codec in this process (a fresh one per codec, so that peak RSS is its own). */
const readBomb = async (codec: Codec): Promise<void> => {
  const bomb = await bombOf(codec);
  const services = Array.from({ length: 200 }, (_, index) => `service-${index}`);
  const bytes = new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'ServiceName', data: services, type: 'STRING', codec }],
      compressors: { [codec]: () => bomb },
    }),
  );
  const file = {
    byteLength: bytes.byteLength,
    slice: (start: number, end?: number) => bytes.slice(start, end).buffer,
  };
  const parquet = await readParquetFile(file, []);
  const peakBefore = process.resourceUsage().maxRSS / 1024;
  const started = Date.now();
  let outcome = 'read';
  try {
    for await (const row of readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 })) void row;
  } catch (error) {
    outcome = (error as Error).message;
  }
  console.log(
    `${codec}: file ${bytes.byteLength} bytes, ${Date.now() - started} ms, peak RSS ${Math.round(peakBefore)} → ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB: ${outcome}`,
  );
};

const main = async (): Promise<void> => {
  const codec = process.argv[2] as Codec | undefined;
  if (codec) return readBomb(codec);
  console.log(`a 200,000-row task declares ${await declaredTaskBytes()} bytes uncompressed`);
  for (const each of CODECS) {
    spawnSync(process.execPath, [...process.execArgv, __filename, each], { stdio: 'inherit' });
  }
};

void main();
