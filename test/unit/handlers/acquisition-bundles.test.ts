/**
 * The acquisition functions load as the CommonJS bundles the stack deploys: the Azure SDK's
 * storage-common reads `import.meta.url` at load, which a CommonJS bundle has only with
 * `CJS_IMPORT_META_URL` (lib/constructs/consumer-function.ts; the Azure construct sets it); the GCP
 * function (jose, fetch) is bundled without it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { CJS_IMPORT_META_URL, CONSUMER_BUNDLE } from '../../../lib/constructs/consumer-function';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'azure-bundle-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ['azure-acquisition', true],
  ['gcp-acquisition', false],
])('the %s handler bundle loads and exports its handler', async (name, importMetaUrl) => {
  const outfile = path.join(dir, `${name}.js`);
  await build({
    entryPoints: [path.join(ROOT, 'lambda', 'handlers', `${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: CONSUMER_BUNDLE.format,
    target: 'node20',
    mainFields: ['module', 'main'],
    ...(importMetaUrl
      ? { define: { ...CJS_IMPORT_META_URL.define }, banner: { js: CJS_IMPORT_META_URL.banner } }
      : {}),
    logLevel: 'silent',
  });
  const loaded = execFileSync(
    process.execPath,
    ['-e', `process.stdout.write(typeof require(${JSON.stringify(outfile)}).handler)`],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(loaded).toBe('function');
});
