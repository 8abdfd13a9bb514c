/**
 * Where the cost consumer's module init goes: the deployed bundle next to bundles of only what it
 * cannot do without — the DynamoDB client; the DynamoDB and SQS clients (the DLQ's client, the rare
 * path); the DynamoDB and S3 clients (what the archive's S3 client used to add); Powertools Logger
 * and Metrics — each built in the deployed shape with the construct's
 * esbuild settings and loaded `--samples` times in a fresh `node`, interleaved, with and without the
 * deployed NODE_OPTIONS (`--enable-source-maps`). Medians, wall and CPU.
 *
 *   npx tsx bench/init-floor.ts [--samples N] [--node PATH]   (PATH: a Node 24 binary, see docs/benchmarks.md)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { STREAMS } from '../contract/streams';
import { CONSUMER_BUNDLE, CONSUMER_NODE_OPTIONS } from '../lib/constructs/consumer-function';
import { BARE_DYNAMODB_CLIENT_SOURCE, bundle, coldLoad, ROOT } from './lib/bundle';
import { median } from './lib/median';

const PARTS: { name: string; source?: string }[] = [
  { name: 'cost consumer (deployed bundle)' },
  { name: 'DynamoDB client only', source: BARE_DYNAMODB_CLIENT_SOURCE },
  {
    name: 'DynamoDB + SQS clients',
    source:
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; import { SQSClient } from '@aws-sdk/client-sqs';" +
      ' export const c = [DynamoDBClient, SQSClient];',
  },
  {
    // What the evidence archive cost before its put was one signed request (SignedS3Put).
    name: 'DynamoDB + S3 clients',
    source:
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; import { S3Client } from '@aws-sdk/client-s3';" +
      ' export const c = [DynamoDBClient, S3Client];',
  },
  {
    name: 'Powertools Logger + Metrics',
    source:
      "import { Logger } from '@aws-lambda-powertools/logger'; import { Metrics } from '@aws-lambda-powertools/metrics';" +
      ' export const c = [Logger, Metrics];',
  },
];

const option = (argv: string[], name: string): string | undefined => {
  const index = argv.indexOf(name);
  return index < 0 ? undefined : argv[index + 1];
};

const main = async () => {
  const argv = process.argv.slice(2);
  const samples = Number(option(argv, '--samples') ?? 15);
  const node = option(argv, '--node') ?? process.execPath;
  if (!Number.isInteger(samples) || samples < 1) {
    process.stderr.write('--samples takes a whole number of cold loads per bundle, at least 1\n');
    process.exit(2);
  }
  const dir = path.join(ROOT, 'bench', 'results', 'tmp', 'init-floor');
  mkdirSync(dir, { recursive: true });
  try {
    const built: { name: string; file: string; bytes: number }[] = [];
    for (const [index, part] of PARTS.entries()) {
      let entry: string = STREAMS.costEvents.handlerEntry;
      if (part.source) {
        entry = path.join(dir, `part-${index}.ts`);
        writeFileSync(entry, part.source);
      }
      const file = path.join(dir, `part-${index}.cjs`);
      const { bytes } = await bundle(entry, CONSUMER_BUNDLE, file);
      built.push({ name: part.name, file, bytes });
    }
    const variants = [CONSUMER_NODE_OPTIONS, ''];
    const times = built.map(() =>
      variants.map(() => ({ wall: [] as number[], cpu: [] as number[] })),
    );
    for (let sample = 0; sample < samples; sample++)
      built.forEach(({ file }, b) =>
        variants.forEach((nodeOptions, v) => {
          const [wall, cpu] = coldLoad(node, file, CONSUMER_BUNDLE, nodeOptions);
          times[b][v].wall.push(wall);
          times[b][v].cpu.push(cpu);
        }),
      );
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const cell = (b: number, v: number) =>
      `${median(times[b][v].wall).toFixed(1)} | ${median(times[b][v].cpu).toFixed(1)}`;
    process.stdout.write(
      [
        `Node ${version}, ${samples} cold loads each, medians (ms).`,
        '',
        `| bundle (CJS, SDK bundled) | bytes | wall, \`${CONSUMER_NODE_OPTIONS}\` | CPU | wall, no NODE_OPTIONS | CPU |`,
        '| --- | --: | --: | --: | --: | --: |',
        ...built.map(
          ({ name, bytes }, b) =>
            `| ${name} | ${bytes.toLocaleString('en-US')} | ${cell(b, 0)} | ${cell(b, 1)} |`,
        ),
      ].join('\n') + '\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

void main();
