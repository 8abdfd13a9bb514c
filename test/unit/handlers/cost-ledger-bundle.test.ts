/**
 * What the cost consumer's deployed bundle holds and evaluates at module init (docs/benchmarks.md,
 * "Cold start"): none of the period close, reopen, void and status code it never runs; the SQS client
 * is evaluated at init, because with the archive spool (the default) every invocation sends to it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { STREAMS } from '../../../contract/streams';
import { CONSUMER_BUNDLE } from '../../../lib/constructs/consumer-function';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SQS_CLIENT_INDEX = /@aws-sdk[\\/]client-sqs[\\/]dist-es[\\/]index\.js$/;

/** Marks the SQS client's entry module: it sets a global when it is evaluated. */
const markSqsClient: Plugin = {
  name: 'mark-sqs-client',
  setup(b) {
    b.onLoad({ filter: SQS_CLIENT_INDEX }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const source = await readFile(args.path, 'utf8');
      return { contents: `${source}\nglobalThis.__sqsClientEvaluated = true;\n`, loader: 'js' };
    });
  },
};

let dir: string;
let inputs: string[];
let outfile: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cost-ledger-bundle-'));
  outfile = path.join(dir, 'index.js');
  const result = await build({
    entryPoints: [path.join(ROOT, STREAMS.costEvents.handlerEntry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: CONSUMER_BUNDLE.format,
    target: CONSUMER_BUNDLE.target,
    mainFields: ['module', 'main'],
    metafile: true,
    logLevel: 'silent',
    plugins: [markSqsClient],
  });
  inputs = Object.keys(result.metafile.inputs);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('holds none of the period administration code', () => {
  for (const module of ['period-close', 'period-void', 'period-status'])
    expect(inputs).not.toContain(`lambda/adapters/${module}.ts`);
  expect(inputs).toContain('lambda/adapters/dynamo-period-states.ts');
});

it('evaluates the SQS client at init: the archive spool sends on every invocation', () => {
  expect(inputs.some((input) => SQS_CLIENT_INDEX.test(input))).toBe(true);
  const loaded = execFileSync(
    process.execPath,
    [
      '-e',
      `const m = require(${JSON.stringify(outfile)});` +
        'process.stdout.write(JSON.stringify([typeof m.handler, globalThis.__sqsClientEvaluated ?? false]))',
    ],
    { encoding: 'utf8', timeout: 60_000, env: { ...process.env, AWS_REGION: 'us-east-1' } },
  );
  expect(JSON.parse(loaded)).toEqual(['function', true]);
});
