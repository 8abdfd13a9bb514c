/**
 * The CSV record splitter alone (`lambda/core/exports/readers/csv-records.ts`), no normalization:
 * rows per second over the decoded text of a generated FOCUS export fed in 64 KiB pieces (as the
 * CSV reader feeds gunzip output), and the time for one record of 1 MiB fed in 1 KiB pieces (the case
 * a splitter that reads an unfinished record again with every piece makes quadratic). Best of 5.
 *
 *   npx tsx bench/csv-splitter.ts [--rows 250000] [--splitter path/to/csv-records.ts]
 *
 * `--splitter` measures another version of the module (e.g. one written out with `git show`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { writeFocusCsv } from '../test/support/focus-export-generator';

interface Splitter {
  push(text: string, records: string[][]): void;
  end(records: string[][]): void;
}

const MAX_RECORD = 1 << 20;
const REPEATS = 5;

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};

const piecesOf = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

const bestOf = (make: () => Splitter, pieces: string[]): { ms: number; records: number } => {
  let best = { ms: Number.POSITIVE_INFINITY, records: 0 };
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    const started = performance.now();
    const splitter = make();
    let records = 0;
    for (const piece of pieces) {
      const out: string[][] = [];
      splitter.push(piece, out);
      records += out.length;
    }
    const last: string[][] = [];
    splitter.end(last);
    records += last.length;
    const ms = performance.now() - started;
    if (ms < best.ms) best = { ms, records };
  }
  return best;
};

const main = async (): Promise<void> => {
  const rows = Number(flag('--rows') ?? 250_000);
  const modulePath = path.resolve(
    flag('--splitter') ?? path.join(__dirname, '../lambda/core/exports/readers/csv-records.ts'),
  );
  const { CsvRecordSplitter } = (await import(modulePath)) as {
    CsvRecordSplitter: new (max: number) => Splitter;
  };
  const make = () => new CsvRecordSplitter(MAX_RECORD);

  const file = path.join(mkdtempSync(path.join(tmpdir(), 'csv-splitter-')), 'focus.csv.gz');
  await writeFocusCsv(
    file,
    { rows, seed: 1, tenant: 'acme', billingPeriod: '2026-11', badRowEvery: 10_000 },
    { gzip: true },
  );
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  const exportRun = bestOf(make, piecesOf(text, 64 * 1024));
  const long = `"${'x'.repeat(MAX_RECORD - 10)}"\n`;
  const longRun = bestOf(make, piecesOf(long, 1024));
  console.log(`splitter: ${modulePath}`);
  console.log(
    `export text, ${(text.length / 2 ** 20).toFixed(1)} MiB in 64 KiB pieces: ${exportRun.records} records, ` +
      `${exportRun.ms.toFixed(0)} ms, ${Math.round((exportRun.records / exportRun.ms) * 1000)} records/s`,
  );
  console.log(
    `one record of ${long.length} characters in 1 KiB pieces: ${longRun.ms.toFixed(1)} ms`,
  );
};

void main();
