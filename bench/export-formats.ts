/**
 * Export formats side by side: how fast the chunk worker's read path turns a file into committed totals
 * for a wide CUR 2.0 Parquet export (125 columns, 4 MAP columns), a FOCUS Parquet export, a legacy CUR
 * CSV.gz (125 columns) and a FOCUS CSV.gz, and what memory it takes.
 *
 *   npx tsx bench/export-formats.ts [--rows 248000] [--files 2] [--row-group 124000]
 *     [--slice-rows 8192] [--out DIR] [--keep] [--data DIR] [--compare-all-columns]
 *
 * --slice-rows: rows the Parquet reader decodes ahead (default: the reader's own, DEFAULT_SLICE_ROWS).
 *
 * Generated files (deterministic seed) go to a temporary directory, deleted at the end unless --keep;
 * --data DIR writes them there and keeps them, and reuses the files already there (their ground truth
 * is computed again from the generators, without writing);
 * the report (export-formats.md and .json) goes to --out (default: a temporary directory).
 *
 * Every measurement runs in child processes (one per worker, like a Lambda), reading local files:
 * the reader, the row mapping (normalize) and the aggregation into chunk results — the CPU work of a
 * chunk worker, without S3 or DynamoDB, so the figures are the read path's own. Per format:
 * - one worker over every file: rows per CPU second (= per core), file bytes per CPU second, peak RSS;
 * - the row reader alone (rows out of `readParquetRows` / the CSV reader, not mapped); Parquet tasks
 *   themselves are booked by column (`parquetRowSource`), which decodes only the columns it needs;
 * - two workers at once, each with half the files: wall-clock speed-up over one worker;
 * - for CUR 2.0 Parquet also: a whole row group decoded ahead (slices of the row-group size), and with
 *   --compare-all-columns every column decoded (MAPs too; slow).
 * Totals of every run are checked against the generator's exact ground truth; a difference fails.
 * Chunk results (one DynamoDB commit each) per row are counted from the worker's results.
 */
import { fork } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import Big from 'big.js';
import { fileBuffer } from './lib/exports-bench';
import { chunkResults } from '../lambda/core/exports/chunk';
import { readCsvRows } from '../lambda/core/exports/readers/csv';
import {
  DEFAULT_SLICE_ROWS,
  parquetRowSource,
  planParquetChunks,
  readParquetFile,
  readParquetRows,
} from '../lambda/core/exports/readers/parquet';
import type { ExportRow } from '../lambda/core/exports/rows';
import {
  expectedFocusExport,
  writeFocusCsv,
  writeFocusParquet,
} from '../test/support/focus-export-generator';
import {
  curTruthOf,
  writeCur2Parquet,
  writeLegacyCurCsvGz,
  type CurTruth,
} from './lib/cur-export-generator';

const FORMATS = ['cur2-parquet', 'focus-parquet', 'legacy-cur-csv.gz', 'focus-csv.gz'] as const;
type Format = (typeof FORMATS)[number];

interface Job {
  format: Format;
  files: string[];
  /** 'full': read + normalize + aggregate; 'reader': rows out of the reader only. */
  mode: 'full' | 'reader';
  projection: boolean;
  sliceRows: number;
  parquetTaskRows: number;
  subChunkRows: number;
}

interface JobResult {
  rows: number;
  rejected: number;
  chunkResults: number;
  cpuMs: number;
  wallMs: number;
  startedAt: number;
  endedAt: number;
  maxRssMib: number;
  /** `account|currency` → exact total. */
  totals: Record<string, string>;
}

const TENANT = 'acme';
const PERIOD = '2026-11';

/** One worker's job, in this (child) process. */
const runJob = async (job: Job): Promise<JobResult> => {
  const totals = new Map<string, Big>();
  let rows = 0;
  let rejected = 0;
  let results = 0;
  const cpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  const started = performance.now();
  for (const [fileIndex, file] of job.files.entries()) {
    const context = { tenant: TENANT, billingPeriod: PERIOD, objectKey: path.basename(file) };
    const consume = async (
      task: Parameters<typeof chunkResults>[0]['task'],
      source: AsyncIterable<ExportRow>,
    ) => {
      if (job.mode === 'reader') {
        for await (const row of source) if (row.rowIndex >= 0) rows += 1;
        return;
      }
      for await (const result of chunkResults({
        task,
        rows: source,
        fromRow: 0,
        context,
        subChunkRows: job.subChunkRows,
      })) {
        results += 1;
        rows += result.rows;
        rejected += result.rejectedRows;
        for (const [account, currencies] of Object.entries(result.totals)) {
          for (const [currency, { total }] of Object.entries(currencies)) {
            const key = `${account}|${currency}`;
            totals.set(key, (totals.get(key) ?? new Big(0)).plus(total));
          }
        }
      }
    };
    if (job.format.endsWith('parquet')) {
      const buffer = await fileBuffer(file);
      const parquet = await readParquetFile(buffer);
      const options = job.projection
        ? { sliceRows: job.sliceRows }
        : { sliceRows: job.sliceRows, columns: parquet.columns };
      for (const [chunkIndex, chunk] of planParquetChunks(parquet, job.parquetTaskRows).entries()) {
        await consume(
          {
            index: fileIndex * 1000 + chunkIndex,
            kind: 'parquet-range',
            objectKey: context.objectKey,
            format: 'parquet',
            firstRowGroup: chunk.fromGroup,
            endRowGroup: chunk.toGroup,
            firstRow: chunk.rowStart,
            rows: chunk.rowCount,
          },
          job.mode === 'reader'
            ? readParquetRows(buffer, parquet, chunk, undefined, options)
            : parquetRowSource(
                () => Promise.resolve({ file: buffer, parquet }),
                chunk,
                undefined,
                options,
              ),
        );
      }
      await buffer.close();
    } else {
      await consume(
        { index: fileIndex, kind: 'csv-file', objectKey: context.objectKey, format: 'csv.gz' },
        readCsvRows(createReadStream(file), { gzip: true }),
      );
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    rows,
    rejected,
    chunkResults: results,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - started,
    startedAt,
    endedAt: Date.now(),
    maxRssMib: process.resourceUsage().maxRSS / 1024,
    totals: Object.fromEntries([...totals].map(([key, sum]) => [key, sum.toFixed()])),
  };
};

const forkJob = (job: Job): Promise<JobResult> =>
  new Promise((resolve, reject) => {
    const child = fork(__filename, ['--worker'], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => resolve(message as JobResult));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited with ${code}`));
    });
    child.send(job);
  });

interface Options {
  rows: number;
  files: number;
  rowGroup: number;
  sliceRows: number;
  out: string;
  keep: boolean;
  /** Directory of files generated before with the same options (kept with --keep): reused, not rewritten. */
  data?: string;
  /** Also measure CUR 2.0 Parquet with every column decoded (slow: 125 columns, MAPs too). */
  compareAllColumns: boolean;
}

const parseOptions = (argv: string[]): Options => {
  const value = (name: string): string | undefined => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const number = (name: string, fallback: number): number => {
    const text = value(name);
    const parsed = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(parsed) || parsed < 1)
      throw new Error(`${name}: expected a positive integer`);
    return parsed;
  };
  return {
    rows: number('--rows', 248_000),
    files: number('--files', 2),
    rowGroup: number('--row-group', 124_000),
    sliceRows: number('--slice-rows', DEFAULT_SLICE_ROWS),
    out: value('--out') ?? mkdtempSync(path.join(tmpdir(), 'export-formats-report-')),
    keep: argv.includes('--keep'),
    data: value('--data'),
    compareAllColumns: argv.includes('--compare-all-columns'),
  };
};

type Truth = Record<string, string>;

const curTruth = (truth: CurTruth): Truth =>
  Object.fromEntries(
    Object.entries(truth.totals).map(([account, total]) => [
      `${account}|USD`,
      new Big(total).toFixed(),
    ]),
  );

const mergeTruths = (truths: Truth[]): Truth => {
  const sums = new Map<string, Big>();
  for (const truth of truths)
    for (const [key, total] of Object.entries(truth))
      sums.set(key, (sums.get(key) ?? new Big(0)).plus(total));
  return Object.fromEntries([...sums].map(([key, sum]) => [key, sum.toFixed()]));
};

const canonical = (totals: Truth): string =>
  JSON.stringify(
    Object.entries(totals)
      .map(([k, v]) => [k, new Big(v).toFixed()])
      .sort(),
  );

interface Generated {
  format: Format;
  files: string[];
  bytes: number;
  rows: number;
  truth: Truth;
}

const generate = async (
  dir: string,
  options: Options,
  log: (line: string) => void,
): Promise<Generated[]> => {
  const perFile = Math.ceil(options.rows / options.files);
  const generated: Generated[] = [];
  for (const format of FORMATS) {
    const started = Date.now();
    const files: string[] = [];
    const truths: Truth[] = [];
    for (let index = 0; index < options.files; index += 1) {
      const rows = Math.min(perFile, options.rows - index * perFile);
      const spec = { rows, seed: 25 + index };
      const file = path.join(
        dir,
        `${format}-${index}.${format.endsWith('parquet') ? 'parquet' : 'csv.gz'}`,
      );
      const reuse = options.data !== undefined && existsSync(file);
      const focusSpec = { ...spec, tenant: TENANT, billingPeriod: PERIOD };
      if (format === 'cur2-parquet')
        truths.push(
          curTruth(
            reuse
              ? curTruthOf(spec, false)
              : await writeCur2Parquet(file, spec, { rowGroupSize: options.rowGroup }),
          ),
        );
      else if (format === 'legacy-cur-csv.gz')
        truths.push(
          curTruth(reuse ? curTruthOf(spec, true) : await writeLegacyCurCsvGz(file, spec)),
        );
      else {
        const expected = reuse
          ? expectedFocusExport(focusSpec)
          : format === 'focus-parquet'
            ? await writeFocusParquet(file, focusSpec, { rowGroupSize: options.rowGroup })
            : await writeFocusCsv(file, focusSpec, { gzip: true });
        truths.push(
          Object.fromEntries(
            expected.totals.map((total) => [`${total.accountId}|${total.currency}`, total.total]),
          ),
        );
      }
      files.push(file);
    }
    const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
    generated.push({ format, files, bytes, rows: options.rows, truth: mergeTruths(truths) });
    log(
      `generated ${format}: ${options.rows} rows, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  return generated;
};

interface Run {
  rows: number;
  cpuSeconds: number;
  wallSeconds: number;
  rowsPerCpuSecond: number;
  bytesPerCpuSecond: number;
  peakRssMib: number;
  chunkResultsPerRow: number;
}

const runOf = (
  results: JobResult[],
  bytes: number,
  generated: Generated,
  check: boolean,
  what: string,
): Run => {
  const rows = results.reduce((sum, r) => sum + r.rows, 0);
  if (rows !== generated.rows)
    throw new Error(`${what}: ${rows} rows read, ${generated.rows} generated`);
  if (check) {
    const found = mergeTruths(results.map((r) => r.totals));
    if (canonical(found) !== canonical(generated.truth))
      throw new Error(`${what}: totals differ from the ground truth`);
    const rejected = results.reduce((sum, r) => sum + r.rejected, 0);
    if (rejected !== 0) throw new Error(`${what}: ${rejected} rows rejected`);
  }
  const cpuSeconds = results.reduce((sum, r) => sum + r.cpuMs, 0) / 1000;
  const wallSeconds =
    (Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt))) /
    1000;
  return {
    rows,
    cpuSeconds,
    wallSeconds,
    rowsPerCpuSecond: rows / cpuSeconds,
    bytesPerCpuSecond: bytes / cpuSeconds,
    peakRssMib: Math.max(...results.map((r) => r.maxRssMib)),
    chunkResultsPerRow: results.reduce((sum, r) => sum + r.chunkResults, 0) / rows,
  };
};

interface FormatReport {
  format: Format;
  files: number;
  bytes: number;
  rows: number;
  oneWorker: Run;
  readerOnly: Run;
  twoWorkers: Run & { speedUp: number };
  noProjection?: Run;
  wholeRowGroup?: Run;
}

const main = async (): Promise<void> => {
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string) => console.log(`[export-formats] ${line}`);
  const dir = options.data ?? mkdtempSync(path.join(tmpdir(), 'export-formats-'));
  mkdirSync(dir, { recursive: true });
  const started = new Date();
  const loads: number[] = [loadavg()[0]];
  const base = {
    projection: true,
    sliceRows: options.sliceRows,
    parquetTaskRows: 200_000,
    subChunkRows: 50_000,
  };
  const reports: FormatReport[] = [];
  try {
    const generated = await generate(dir, options, log);
    for (const format of generated) {
      const job = (files: string[], extra: Partial<Job> = {}): Job => ({
        ...base,
        format: format.format,
        files,
        mode: 'full',
        ...extra,
      });
      const half = Math.ceil(format.files.length / 2);
      const oneWorker = runOf(
        [await forkJob(job(format.files))],
        format.bytes,
        format,
        true,
        `${format.format} one worker`,
      );
      loads.push(loadavg()[0]);
      const readerOnly = runOf(
        [await forkJob(job(format.files, { mode: 'reader' }))],
        format.bytes,
        format,
        false,
        `${format.format} reader`,
      );
      const pair = await Promise.all([
        forkJob(job(format.files.slice(0, half))),
        forkJob(job(format.files.slice(half))),
      ]);
      const two = runOf(pair, format.bytes, format, true, `${format.format} two workers`);
      loads.push(loadavg()[0]);
      const report: FormatReport = {
        format: format.format,
        files: format.files.length,
        bytes: format.bytes,
        rows: format.rows,
        oneWorker,
        readerOnly,
        twoWorkers: { ...two, speedUp: oneWorker.wallSeconds / two.wallSeconds },
      };
      if (format.format === 'cur2-parquet') {
        if (options.compareAllColumns)
          report.noProjection = runOf(
            [await forkJob(job(format.files, { projection: false }))],
            format.bytes,
            format,
            true,
            'cur2 no projection',
          );
        report.wholeRowGroup = runOf(
          [await forkJob(job(format.files, { sliceRows: options.rowGroup }))],
          format.bytes,
          format,
          true,
          'cur2 whole row group',
        );
      }
      reports.push(report);
      log(
        `${format.format}: ${Math.round(oneWorker.rowsPerCpuSecond)} rows/CPU s, peak ${oneWorker.peakRssMib.toFixed(0)} MiB, 2 workers ${report.twoWorkers.speedUp.toFixed(2)}×`,
      );
    }
  } finally {
    if (options.keep || options.data !== undefined) log(`generated files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  const document = {
    schema: 'export-formats/1',
    startedAt: started.toISOString(),
    command: `npx tsx bench/export-formats.ts ${process.argv.slice(2).join(' ')}`.trim(),
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      node: process.version,
      loadAverage1m: loads,
    },
    options: {
      rows: options.rows,
      files: options.files,
      rowGroup: options.rowGroup,
      sliceRows: options.sliceRows,
    },
    formats: reports,
  };
  mkdirSync(options.out, { recursive: true });
  writeFileSync(
    path.join(options.out, 'export-formats.json'),
    `${JSON.stringify(document, null, 2)}\n`,
  );
  writeFileSync(path.join(options.out, 'export-formats.md'), markdown(document));
  log(`report: ${path.join(options.out, 'export-formats.md')}`);
};

const int = (value: number): string => Math.round(value).toLocaleString('en-US');
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

const markdown = (document: {
  startedAt: string;
  command: string;
  machine: { cores: number; cpu?: string; node: string; loadAverage1m: number[] };
  options: Options | Record<string, number>;
  formats: FormatReport[];
}): string => {
  const byFormat = (pick: (report: FormatReport) => string) => document.formats.map(pick);
  const row = (label: string, cells: string[]) => `| ${label} | ${cells.join(' | ')} |`;
  const focusCsv = document.formats.find((f) => f.format === 'focus-csv.gz');
  const legacyCsv = document.formats.find((f) => f.format === 'legacy-cur-csv.gz');
  const cur = document.formats.find((f) => f.format === 'cur2-parquet');
  const lines = [
    `# Export formats — ${document.startedAt.slice(0, 10)}`,
    '',
    `\`${document.command}\` — ${document.machine.cores} cores (${document.machine.cpu ?? '?'}), Node ${document.machine.node}, 1-minute load average during the run ${document.machine.loadAverage1m.map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    `Chunk-worker read path (reader → row mapping, or for Parquet the columnar booking → chunk results), local files, one child process per worker; totals equal the generator's exact ground truth in every run. Rows per CPU second = rows per core.`,
    '',
    row(
      '',
      byFormat((f) => f.format),
    ),
    row(
      '---',
      byFormat(() => '---:'),
    ),
    row(
      'rows, files, MiB',
      byFormat((f) => `${int(f.rows)}, ${f.files}, ${mib(f.bytes)}`),
    ),
    row(
      'one worker: rows per CPU second',
      byFormat((f) => int(f.oneWorker.rowsPerCpuSecond)),
    ),
    row(
      'one worker: file MiB per CPU second',
      byFormat((f) => mib(f.oneWorker.bytesPerCpuSecond)),
    ),
    row(
      'one worker: rows/s (wall)',
      byFormat((f) => int(f.oneWorker.rows / f.oneWorker.wallSeconds)),
    ),
    row(
      'one worker: peak RSS MiB',
      byFormat((f) => f.oneWorker.peakRssMib.toFixed(0)),
    ),
    row(
      'row reader alone (a cells object per row): rows per CPU second',
      byFormat((f) => int(f.readerOnly.rowsPerCpuSecond)),
    ),
    row(
      'row reader alone: peak RSS MiB',
      byFormat((f) => f.readerOnly.peakRssMib.toFixed(0)),
    ),
    row(
      'two workers: rows/s (wall), speed-up',
      byFormat(
        (f) =>
          `${int(f.twoWorkers.rows / f.twoWorkers.wallSeconds)} (${f.twoWorkers.speedUp.toFixed(2)}×)`,
      ),
    ),
    row(
      'two workers: rows per CPU second',
      byFormat((f) => int(f.twoWorkers.rowsPerCpuSecond)),
    ),
    row(
      'chunk results (commits) per row',
      byFormat((f) => f.oneWorker.chunkResultsPerRow.toFixed(6)),
    ),
    '',
  ];
  if (cur?.wholeRowGroup) {
    lines.push(
      `CUR 2.0 Parquet, one worker, the reader's options compared:`,
      '',
      '| cur2-parquet | rows per CPU second | peak RSS MiB |',
      '| --- | ---: | ---: |',
      `| projection, pages decoded ${document.options.sliceRows} rows ahead${document.options.sliceRows === DEFAULT_SLICE_ROWS ? ' (the default)' : ''} | ${int(cur.oneWorker.rowsPerCpuSecond)} | ${cur.oneWorker.peakRssMib.toFixed(0)} |`,
      ...(cur.noProjection
        ? [
            `| every column decoded (MAPs too), ${document.options.sliceRows} rows ahead | ${int(cur.noProjection.rowsPerCpuSecond)} | ${cur.noProjection.peakRssMib.toFixed(0)} |`,
          ]
        : []),
      `| projection, a whole row group (${document.options.rowGroup} rows) decoded ahead | ${int(cur.wholeRowGroup.rowsPerCpuSecond)} | ${cur.wholeRowGroup.peakRssMib.toFixed(0)} |`,
      '',
    );
  }
  if (focusCsv && legacyCsv) {
    lines.push(
      `Legacy CUR CSV.gz reads ${mib(legacyCsv.oneWorker.bytesPerCpuSecond)} MiB per CPU second against FOCUS CSV.gz's ${mib(focusCsv.oneWorker.bytesPerCpuSecond)}: ${(legacyCsv.oneWorker.bytesPerCpuSecond / focusCsv.oneWorker.bytesPerCpuSecond).toFixed(2)}×.`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
};

if (process.argv.includes('--worker')) {
  process.once('message', (job) => {
    runJob(job as Job).then(
      (result) => process.send!(result, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
