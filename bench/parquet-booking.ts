/**
 * One Parquet file's chunk results in this process, by the row path (`readParquetRows`: a cells object
 * per row through `normalizeExportRow`) or by the columnar booking (`parquetRowSource`), with the
 * process's CPU time and peak RSS; `--write DIR` first writes the files of the row-group comparison
 * (124,000 rows of CUR 2.0 and of FOCUS, in row groups of 31,000 and of 124,000 rows).
 *
 *   npx tsx bench/parquet-booking.ts --write /tmp/booking
 *   npx tsx bench/parquet-booking.ts --path columnar|row [--results FILE] FILE.parquet…
 *
 * `--results FILE` writes the chunk results as JSON, so the two paths' can be compared (`cmp`).
 * Tasks of 200,000 rows (whole row groups), tenant `acme`, billing period 2026-11.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileBuffer } from './lib/exports-bench';
import { writeCur2Parquet } from './lib/cur-export-generator';
import type { ChunkResult } from '../lambda/core/exports/chunk';
import { readParquetFile } from '../lambda/core/exports/readers/parquet';
import { writeFocusParquet } from '../test/support/focus-export-generator';
import { parquetChunkResults } from '../test/support/parquet-task';

const ROWS = 124_000;
const ROW_GROUPS = [31_000, 124_000];

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};

const write = async (dir: string): Promise<void> => {
  mkdirSync(dir, { recursive: true });
  for (const rowGroupSize of ROW_GROUPS) {
    const focus = path.join(dir, `focus-${rowGroupSize}.parquet`);
    const spec = { rows: ROWS, seed: 25, tenant: 'acme', billingPeriod: '2026-11' };
    await writeFocusParquet(focus, spec, { rowGroupSize });
    await writeCur2Parquet(path.join(dir, `cur-${rowGroupSize}.parquet`), spec, { rowGroupSize });
    console.log(`wrote ${dir}/{focus,cur}-${rowGroupSize}.parquet`);
  }
};

const book = async (columnar: boolean, files: string[]): Promise<void> => {
  const results: ChunkResult[] = [];
  let rows = 0;
  const cpuBefore = process.cpuUsage();
  for (const name of files) {
    const file = await fileBuffer(name);
    const parquet = await readParquetFile(file);
    const context = { tenant: 'acme', billingPeriod: '2026-11', objectKey: path.basename(name) };
    for (const result of await parquetChunkResults(file, parquet, context, {
      columnar,
      taskRows: 200_000,
    })) {
      results.push(result);
      rows += result.rows;
    }
    await file.close();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (cpu.user + cpu.system) / 1e6;
  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(
    `${columnar ? 'columnar' : 'row'} path: ${rows} rows, ${seconds.toFixed(2)} CPU s, ` +
      `${Math.round(rows / seconds)} rows per CPU second, peak RSS ${rss.toFixed(0)} MiB`,
  );
  const out = flag('--results');
  if (out) writeFileSync(out, JSON.stringify(results));
};

const main = async (): Promise<void> => {
  const dir = flag('--write');
  if (dir) return write(dir);
  const mode = flag('--path');
  if (mode !== 'columnar' && mode !== 'row') throw new Error('--path columnar|row, or --write DIR');
  const files = process.argv
    .slice(2)
    .filter((arg, at, all) => !arg.startsWith('--') && !all[at - 1]?.startsWith('--'));
  if (files.length === 0) throw new Error('name at least one Parquet file');
  return book(mode === 'columnar', files);
};

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
