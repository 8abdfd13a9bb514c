/**
 * hyparquet is ESM-only. The Parquet reader must load wherever the product runs it: jest (this file:
 * transformed by jest.config.js), the Lambda bundle (esbuild, CommonJS, as lib/constructs/consumer-function.ts
 * builds it), and tsx / ts-node (the CLI and the local run).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { parquetWriteBuffer } from 'hyparquet-writer';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const READER = path.join(ROOT, 'lambda', 'core', 'exports', 'readers', 'parquet.ts');

let dir: string;
let entry: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'parquet-loading-'));
  const parquet = path.join(dir, 'costs.parquet');
  writeFileSync(
    parquet,
    new Uint8Array(
      parquetWriteBuffer({ columnData: [{ name: 'BilledCost', data: [1.5, 2], type: 'DOUBLE' }] }),
    ),
  );
  entry = path.join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `import { readFileSync } from 'node:fs';
import { readParquetFile, readParquetRows } from ${JSON.stringify(READER)};
const bytes = new Uint8Array(readFileSync(${JSON.stringify(parquet)}));
const file = { byteLength: bytes.byteLength, slice: async (start: number, end?: number) => bytes.slice(start, end).buffer };
(async () => {
  const parquet = await readParquetFile(file, ['BilledCost']);
  const costs: unknown[] = [];
  for await (const row of readParquetRows(file, parquet, { fromGroup: 0, toGroup: 1 })) costs.push(row.cells.BilledCost);
  console.log(JSON.stringify(costs));
})();
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, args: string[]): string =>
  execFileSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }).trim();

describe('the Parquet reader loads', () => {
  it('in an esbuild CommonJS bundle built like the Lambda functions (CONSUMER_BUNDLE)', async () => {
    const outfile = path.join(dir, 'bundle.cjs');
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    expect(run(process.execPath, [outfile])).toBe('["1.5","2"]');
  });

  it('under tsx and ts-node', () => {
    const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
    expect(run(bin('tsx'), [entry])).toBe('["1.5","2"]');
    expect(run(bin('ts-node'), ['-T', '-P', path.join(ROOT, 'tsconfig.json'), entry])).toBe(
      '["1.5","2"]',
    );
  });
});
