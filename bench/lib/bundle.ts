/**
 * Handler bundle size and module init time. Bundles are built the way the CDK app builds the consumers
 * (lib/constructs/consumer-function.ts: esbuild, ESM, minified, `@aws-sdk/*` external) and once more
 * with the SDK bundled in. Init = one `import()` of the bundle in a fresh `node` process (top-level
 * module code only: both handlers create their clients lazily on the first invocation).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { STREAMS } from '../../contract/streams';
import { median } from './keypath';

export const ROOT = path.resolve(__dirname, '..', '..');
export const HANDLERS = {
  ours: STREAMS.costEvents.handlerEntry,
  baseline: 'bench/baseline/cost-ledger-baseline.ts',
} as const;

export interface BundleResult {
  entry: string;
  /** Minified bytes, `@aws-sdk/*` external (the deployed shape). */
  sdkExternalBytes: number;
  /** Minified bytes, everything bundled. */
  sdkBundledBytes: number;
  /** Median module init (ms) over `samples` cold imports, SDK external (resolved from node_modules). */
  initSdkExternalMs: number;
  /** Same, SDK bundled. */
  initSdkBundledMs: number;
  samples: number;
  /** Largest inputs of the SDK-external bundle (bytes in output), from the esbuild metafile. */
  topInputs: { path: string; bytes: number }[];
}

const ESM_REQUIRE_BANNER =
  "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);";

const bundle = async (entry: string, external: string[], outfile: string) => {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    metafile: true,
    write: false,
    external,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  writeFileSync(outfile, output.contents);
  const meta = Object.values(result.metafile.outputs)[0];
  const topInputs = Object.entries(meta.inputs)
    .map(([input, info]) => ({ path: input, bytes: info.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  return { bytes: output.contents.length, topInputs };
};

const coldImportMs = (file: string): number => {
  const script = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(file).href)});process.stdout.write(String(performance.now()-t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  return Number(out);
};

export const measureBundles = async (
  samples = 20,
): Promise<Record<keyof typeof HANDLERS, BundleResult>> => {
  const dir = path.join(ROOT, 'bench', 'results', 'tmp');
  mkdirSync(dir, { recursive: true });
  const results = {} as Record<keyof typeof HANDLERS, BundleResult>;
  try {
    const files: Record<string, { external: string; bundled: string }> = {};
    for (const [name, entry] of Object.entries(HANDLERS) as [keyof typeof HANDLERS, string][]) {
      const external = path.join(dir, `${name}-sdk-external.mjs`);
      const bundled = path.join(dir, `${name}-sdk-bundled.mjs`);
      const ext = await bundle(entry, ['@aws-sdk/*'], external);
      const all = await bundle(entry, [], bundled);
      files[name] = { external, bundled };
      results[name] = {
        entry,
        sdkExternalBytes: ext.bytes,
        sdkBundledBytes: all.bytes,
        initSdkExternalMs: 0,
        initSdkBundledMs: 0,
        samples,
        topInputs: ext.topInputs,
      };
    }
    // Interleave the samples so machine noise hits both implementations alike.
    const times: Record<string, { external: number[]; bundled: number[] }> = {};
    for (const name of Object.keys(files)) times[name] = { external: [], bundled: [] };
    for (let i = 0; i < samples; i++) {
      for (const [name, file] of Object.entries(files)) {
        times[name].external.push(coldImportMs(file.external));
        times[name].bundled.push(coldImportMs(file.bundled));
      }
    }
    for (const name of Object.keys(files) as (keyof typeof HANDLERS)[]) {
      results[name].initSdkExternalMs = median(times[name].external);
      results[name].initSdkBundledMs = median(times[name].bundled);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
};
