/**
 * Handler bundle size and module init time, for the shape the stack deploys and the alternatives.
 * Bundles are built with the construct's settings (lib/constructs/consumer-function.ts: esbuild, minified,
 * source maps, the same Node target) in four shapes: ESM or CommonJS, `@aws-sdk/*` external or bundled.
 * Init = loading the bundle the way the Lambda runtime does (`import()` for ESM, `require` for CommonJS)
 * in a fresh `node` process with the deployed NODE_OPTIONS: top-level module code only, since both
 * handlers create their clients on the first invocation. With the SDK external, the SDK loads from
 * node_modules, as the runtime's own copy would.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { STREAMS } from '../../contract/streams';
import {
  CONSUMER_BUNDLE,
  CONSUMER_NODE_OPTIONS,
  CONSUMER_RUNTIME,
  ESM_REQUIRE_BANNER,
} from '../../lib/constructs/consumer-function';
import type { ImplementationName } from './harness';
import { median } from './median';
import {
  SHAPES,
  sameShape,
  type BundleShape,
  type HandlerBundles,
  type InitMeasurements,
} from './shapes';

export const ROOT = path.resolve(__dirname, '..', '..');
export const HANDLERS: Record<ImplementationName, string> = {
  ours: STREAMS.costEvents.handlerEntry,
  baseline: 'bench/baseline/cost-ledger-baseline.ts',
};

/** The source of a bundle that holds the DynamoDB client and nothing else (the floor of a consumer's init). */
export const BARE_DYNAMODB_CLIENT_SOURCE =
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; export const c = DynamoDBClient;";

/** Builds `entry` (relative to the repository, or absolute) with the construct's esbuild settings in `shape`. */
export const bundle = async (entry: string, shape: BundleShape, outfile: string) => {
  const result = await build({
    entryPoints: [path.resolve(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: shape.format,
    target: CONSUMER_BUNDLE.target,
    mainFields: ['module', 'main'],
    ...(shape.format === 'esm' ? { banner: { js: ESM_REQUIRE_BANNER } } : {}),
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    metafile: true,
    outfile,
    external: shape.sdk === 'external' ? ['@aws-sdk/*'] : [],
    logLevel: 'silent',
  });
  const [, meta] = Object.entries(result.metafile.outputs).find(([file]) =>
    file.endsWith(path.basename(outfile)),
  ) as [string, (typeof result.metafile.outputs)[string]];
  const topInputs = Object.entries(meta.inputs)
    .map(([input, info]) => ({ path: input, bytes: info.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  return { bytes: meta.bytes, topInputs };
};

/** One cold load in a fresh process: [wall ms, CPU ms]. */
export const coldLoad = (
  node: string,
  file: string,
  shape: BundleShape,
  nodeOptions: string = CONSUMER_NODE_OPTIONS,
): [number, number] => {
  // The loader is resolved before the clock starts, so both shapes time only the bundle.
  const load =
    shape.format === 'esm'
      ? `await import(${JSON.stringify(pathToFileURL(file).href)})`
      : `r(${JSON.stringify(file)})`;
  const script =
    "const r=(await import('node:module')).createRequire(import.meta.url);" +
    `const c=process.cpuUsage(),t=performance.now();${load};const u=process.cpuUsage(c);` +
    'process.stdout.write(JSON.stringify([performance.now()-t,(u.user+u.system)/1000]));';
  const out = execFileSync(node, ['--input-type=module', '-e', script], {
    env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  return JSON.parse(out) as [number, number];
};

export const measureInit = async (
  samples = 20,
  node: string = process.execPath,
): Promise<InitMeasurements> => {
  const dir = path.join(ROOT, 'bench', 'results', 'tmp');
  mkdirSync(dir, { recursive: true });
  try {
    const handlers = {} as Record<ImplementationName, HandlerBundles>;
    const files: { name: ImplementationName; index: number; file: string }[] = [];
    for (const [name, entry] of Object.entries(HANDLERS) as [ImplementationName, string][]) {
      handlers[name] = { entry, shapes: [], topInputs: [] };
      for (const shape of SHAPES) {
        const file = path.join(
          dir,
          `${name}-${shape.format}-sdk-${shape.sdk}.${shape.format === 'esm' ? 'mjs' : 'cjs'}`,
        );
        const built = await bundle(entry, shape, file);
        if (sameShape(shape, CONSUMER_BUNDLE)) handlers[name].topInputs = built.topInputs;
        files.push({ name, index: handlers[name].shapes.length, file });
        handlers[name].shapes.push({ ...shape, bytes: built.bytes, initMs: 0, initCpuMs: 0 });
      }
    }
    const bareEntry = path.join(dir, 'bare-dynamodb-client.ts');
    writeFileSync(bareEntry, BARE_DYNAMODB_CLIENT_SOURCE);
    const bareFile = path.join(dir, 'bare-dynamodb-client.cjs');
    const bare = { bytes: (await bundle(bareEntry, CONSUMER_BUNDLE, bareFile)).bytes };
    // Interleaved, so that machine noise hits every shape, both implementations and the bare client alike.
    const times = [...files, bareFile].map(() => ({ wall: [] as number[], cpu: [] as number[] }));
    for (let i = 0; i < samples; i++) {
      files.forEach(({ name, index, file }, f) => {
        const [wall, cpu] = coldLoad(node, file, handlers[name].shapes[index]);
        times[f].wall.push(wall);
        times[f].cpu.push(cpu);
      });
      const [wall, cpu] = coldLoad(node, bareFile, CONSUMER_BUNDLE);
      times[files.length].wall.push(wall);
      times[files.length].cpu.push(cpu);
    }
    files.forEach(({ name, index }, f) => {
      handlers[name].shapes[index].initMs = median(times[f].wall);
      handlers[name].shapes[index].initCpuMs = median(times[f].cpu);
    });
    const bareTimes = times[files.length];
    return {
      node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
      runtime: CONSUMER_RUNTIME.name,
      deployed: { format: CONSUMER_BUNDLE.format, sdk: CONSUMER_BUNDLE.sdk },
      nodeOptions: CONSUMER_NODE_OPTIONS,
      samples,
      handlers,
      bareClient: {
        ...bare,
        initMs: median(bareTimes.wall),
        initCpuMs: median(bareTimes.cpu),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
