import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Big from 'big.js';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import { readParquetFile, readParquetRows } from '../../../lambda/core/exports/readers/parquet';
import type { ExportRow } from '../../../lambda/core/exports/rows';
import { ExportDeliverer } from '../../../local/exports/delivery';
import { exportCsv, writeSampleExports } from '../../../local/exports/files';
import { exportPrefixOf, exportSourcesFor } from '../../../local/exports/sources';
import { UsageError } from '../../../local/runtime/faults';
import { generateSample } from '../../../local/scenarios/generator';
import { readInputFile } from '../../../local/input-file';
import { notificationRulesOf } from '../../../local/emulators/s3-notifications';
import { createBuckets } from '../../../local/phases/environment';
import {
  exportNotificationsAgainstTruth,
  exportsAgainstTruth,
  exportsFinished,
} from '../../../local/report/run-report';
import { buildPlan } from '../../../local/runtime/template';
import { sampleSteps } from '../../../local/phases/steps';
import type { ExpectedExport } from '../../../local/scenarios/sample';

const folder = mkdtempSync(join(tmpdir(), 'local-exports-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const write = (name: string, text: string): string => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

describe('input file: export and settle lines', () => {
  it('keeps messages, exports and settle lines in file order, with paths relative to the file', () => {
    write('a.csv', 'BilledCost\n');
    write('b.parquet', '');
    const file = write(
      'steps.jsonl',
      [
        '{"topic":"cost-events","message":"x"}',
        '{"topic":"cost-events","message":"y"}',
        '{"export":{"tenant":"Acme","billingPeriod":"2026-11","executionId":"e-1","files":["a.csv","b.parquet"]}}',
        '{"settle":true}',
        '{"topic":"budget-alerts","message":"z"}',
      ].join('\n'),
    );
    const input = readInputFile(file);
    expect(input.skipped).toEqual([]);
    expect(input.messages).toHaveLength(3);
    expect(input.steps?.map((step) => step.kind)).toEqual([
      'messages',
      'export',
      'settle',
      'messages',
    ]);
    const exportStep = input.steps?.[1];
    expect(exportStep?.kind === 'export' && exportStep.delivery).toEqual({
      tenant: 'acme',
      billingPeriod: '2026-11',
      executionId: 'e-1',
      files: [join(folder, 'a.csv'), join(folder, 'b.parquet')],
      line: 3,
    });
  });

  it('skips bad export and settle lines with a reason naming the field', () => {
    const file = write(
      'bad.jsonl',
      [
        '{"export":{"tenant":"acme","billingPeriod":"2026-13","executionId":"e","files":["a.csv"]}}',
        '{"export":{"tenant":"acme","billingPeriod":"2026-11","executionId":".e","files":["a.csv"]}}',
        '{"export":{"tenant":"acme","billingPeriod":"2026-11","executionId":"e","files":[]}}',
        '{"export":{"tenant":"acme","billingPeriod":"2026-11","executionId":"e","files":["a.txt"]}}',
        '{"export":{"tenant":"acme","billingPeriod":"2026-11","executionId":"e","files":["gone.csv"]}}',
        '{"export":{"tenant":"acme","billingPeriod":"2026-11","executionId":"e","files":["a.csv"]},"topic":"cost-events"}',
        '{"settle":"yes"}',
      ].join('\n'),
    );
    const { skipped } = readInputFile(file);
    expect(skipped.map((problem) => problem.error)).toEqual([
      '"export.billingPeriod" must be a YYYY-MM month',
      '"export.executionId" must be 1 to 128 letters, digits, "_", "-" or "." (not first)',
      '"export.files" must be a non-empty list of file paths',
      '"export.files": a.txt is not .csv, .csv.gz or .parquet',
      `"export.files": gone.csv does not exist (${join(folder, 'gone.csv')})`,
      'an export line holds only "export" (no topic or message)',
      'a settle line is exactly {"settle": true}',
    ]);
  });
});

describe('export sources of a local run', () => {
  it('binds exports/<tenant>/ for every tenant of the exports when the context names none', () => {
    const { sources, context } = exportSourcesFor(['globex', 'acme', 'acme'], { stage: 'dev' });
    expect(sources).toEqual([
      { tenant: 'acme', prefix: 'exports/acme/' },
      { tenant: 'globex', prefix: 'exports/globex/' },
    ]);
    expect(JSON.parse(context.exportSources as string)).toEqual(sources);
    expect(context.stage).toBe('dev');
    expect(exportPrefixOf(sources, 'globex')).toBe('exports/globex');
  });

  it('leaves the context alone without exports', () => {
    expect(exportSourcesFor([], { stage: 'dev' })).toEqual({
      sources: [],
      context: { stage: 'dev' },
    });
  });

  it('uses a given list, and refuses one that does not bind a tenant of the exports', () => {
    const given = JSON.stringify([{ tenant: 'acme', prefix: 'billing/acme/' }]);
    expect(exportSourcesFor(['acme'], { exportSources: given }).sources).toEqual([
      { tenant: 'acme', prefix: 'billing/acme/' },
    ]);
    expect(() => exportSourcesFor(['acme', 'initech'], { exportSources: given })).toThrow(
      UsageError,
    );
    expect(() => exportSourcesFor(['acme', 'initech'], { exportSources: given })).toThrow(
      /binds no prefix to tenant initech/,
    );
    expect(() => exportSourcesFor(['acme'], { exportSources: '[' })).toThrow(/not JSON/);
  });
});

describe('the sample exports', () => {
  const sample = generateSample({ seed: 42 });
  const deliveries = writeSampleExports(folder, sample.exports ?? []);

  const rowsOf = async (path: string): Promise<AsyncIterable<ExportRow>> => {
    const bytes = await readFile(path);
    if (!path.endsWith('.parquet'))
      return readCsvRows(Readable.from([bytes]), { gzip: path.endsWith('.gz') });
    const file = {
      byteLength: bytes.length,
      slice: async (start: number, end = bytes.length) =>
        bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + end),
    };
    const parquet = await readParquetFile(file);
    return readParquetRows(file, parquet, { fromGroup: 0, toGroup: parquet.rowGroups.length });
  };

  it('read back through the pipeline readers to the rows the truth counts, exactly', async () => {
    for (const [index, delivery] of deliveries.entries()) {
      const spec = (sample.exports ?? [])[index];
      for (const [fileIndex, path] of delivery.files.entries()) {
        const rows = spec.files[fileIndex].rows;
        const { summary, rowsRead } = await aggregateRows(await rowsOf(path), {
          tenant: delivery.tenant,
          objectKey: path,
          billingPeriod: delivery.billingPeriod,
          source: 'aws',
        });
        expect(rowsRead).toBe(rows.length);
        expect(summary.rowsRejected).toBe(rows.filter((row) => row.kind !== 'valid').length);
        const expected = rows
          .filter((row) => row.kind === 'valid')
          .reduce((sum, row) => sum.plus(row.amount as string), new Big(0));
        const actual = summary.totals.reduce((sum, total) => sum.plus(total.total), new Big(0));
        expect(actual.eq(expected)).toBe(true);
      }
    }
  });

  it('are delivered among the messages: first export, half the messages, the rest, the re-export', () => {
    const steps = sampleSteps(sample.messages, deliveries);
    expect(
      steps.map((step) => (step.kind === 'export' ? step.delivery.executionId : step.kind)),
    ).toEqual([
      'acme-2026-11-e1',
      'messages',
      'acme-2026-10-cur2-e1',
      '3f0c9a52-7d4e-4b8f-9a61-2c5e8b1d0a77',
      'acme-2026-11-e1',
      'globex-2026-10-e1',
      'messages',
      'acme-2026-11-e2',
    ]);
    expect(
      steps.reduce((sum, step) => sum + (step.kind === 'messages' ? step.messages.length : 0), 0),
    ).toBe(sample.messages.length);
  });
});

describe('exports checks of the verdict', () => {
  const execution = (status: ExpectedExport['status'], id = 'e-1'): ExpectedExport => ({
    tenant: 'acme',
    billingPeriod: '2026-11',
    executionId: id,
    status,
    rows: 3,
    rejectedRows: 1,
  });

  it('against the truth: exactly the expected executions, statuses and row counts', () => {
    const want = [execution('superseded'), execution('current', 'e-2')];
    expect(exportsAgainstTruth(want, want).ok).toBe(true);
    const wrong = exportsAgainstTruth(want, [execution('current'), execution('current', 'e-2')]);
    expect(wrong.ok).toBe(false);
    expect(wrong.detail).toContain('missing acme 2026-11 e-1 superseded (3 rows, 1 rejected)');
    expect(wrong.detail).toContain('unexpected acme 2026-11 e-1 current (3 rows, 1 rejected)');
  });

  it('export notifications: one per change at or over the threshold, with its exact delta', () => {
    const change = (accountId: string, delta: string) => ({
      tenant: 'acme',
      billingPeriod: '2026-11',
      accountId,
      currency: 'USD',
      delta,
    });
    const sent = (accountId: string, delta: string) => ({
      ...change(accountId, delta),
      change: delta,
      subject: 'Billing export changed',
    });
    const changes = [change('1', '-1.5'), change('2', '0.99'), change('3', '1')];
    expect(
      exportNotificationsAgainstTruth(changes, '1', [sent('1', '-1.50'), sent('3', '1')]).ok,
    ).toBe(true);
    const wrong = exportNotificationsAgainstTruth(changes, '1', [
      sent('1', '-1.5'),
      sent('1', '-1.5'),
      sent('2', '0.99'),
    ]);
    expect(wrong.ok).toBe(false);
    expect(wrong.detail).toContain('acme 2026-11 1 USD notified 2×');
    expect(wrong.detail).toContain('acme 2026-11 3 USD notified 0×');
    expect(wrong.detail).toContain('unexpected acme 2026-11 2 USD 0.99');
  });

  it('without truth: an execution still incomplete at the end fails the run', () => {
    expect(exportsFinished([execution('failed'), execution('current', 'e-2')]).ok).toBe(true);
    const check = exportsFinished([execution('incomplete')]);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain('not every task done');
  });
});

describe('the export bucket in the templates', () => {
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:export-deliveries';
  const stacks = [
    {
      stackName: 'app-stateful',
      template: {
        Resources: { ExportBucket: { Type: 'AWS::S3::Bucket', Properties: {} } },
        Outputs: {
          Bucket: { Value: { Ref: 'ExportBucket' }, Export: { Name: 'app-export-bucket' } },
        },
      },
    },
    {
      stackName: 'app-stateless',
      template: {
        Resources: {
          Deliveries: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'export-deliveries' } },
          Notifications: {
            Type: 'Custom::S3BucketNotifications',
            Properties: {
              BucketName: { 'Fn::ImportValue': 'app-export-bucket' },
              Managed: false,
              NotificationConfiguration: {
                TopicConfigurations: [
                  {
                    TopicArn: { Ref: 'Deliveries' },
                    Events: ['s3:ObjectCreated:*'],
                    Filter: {
                      Key: {
                        FilterRules: [
                          { Name: 'prefix', Value: 'exports/acme/' },
                          { Name: 'suffix', Value: '-Manifest.json' },
                        ],
                      },
                    },
                  },
                ],
              },
            },
          },
        },
      },
    },
  ];

  it('plans the bucket under its generated S3 name and the imported bucket notification configuration', () => {
    const plan = buildPlan(stacks as never, { sqsEndpoint: 'http://sqs' });
    expect(plan.buckets).toEqual([
      {
        logicalId: 'ExportBucket',
        stackName: 'app-stateful',
        bucketName: 'app-stateful-exportbucket',
      },
    ]);
    expect(plan.bucketNotifications).toHaveLength(1);
    expect(plan.bucketNotifications[0].bucketName).toBe('app-stateful-exportbucket');
    expect(notificationRulesOf(plan.bucketNotifications[0].configuration)).toEqual([
      expect.objectContaining({ topicArn, prefix: 'exports/acme/', suffix: '-Manifest.json' }),
    ]);
  });

  it('creates the buckets and wires their notifications to SNS; a configuration S3 refuses names its resource', async () => {
    const plan = buildPlan(stacks as never, { sqsEndpoint: 'http://sqs' });
    const created: string[] = [];
    const wired: [string, number][] = [];
    const s3 = {
      createBucket: async (name: string) => void created.push(name),
      deliverNotifications: async (bucket: string, rules: unknown[]) => {
        wired.push([bucket, rules.length]);
        return () => undefined;
      },
    };
    const sns = { publish: async () => ({}) };
    await createBuckets(s3, plan, sns);
    expect(created).toEqual(['app-stateful-exportbucket']);
    expect(wired).toEqual([['app-stateful-exportbucket', 1]]);

    const fifo = {
      ...plan,
      bucketNotifications: [
        {
          ...plan.bucketNotifications[0],
          configuration: {
            TopicConfigurations: [{ TopicArn: `${topicArn}.fifo`, Events: ['s3:ObjectCreated:*'] }],
          },
        },
      ],
    };
    await expect(createBuckets(s3, fifo, sns)).rejects.toThrow(
      /^app-stateless\/Notifications: bucket notification configuration refused \(as S3 would\): .*FIFO/,
    );
  });
});

describe('ExportDeliverer', () => {
  const sources = [{ tenant: 'acme', prefix: 'exports/acme/' }];
  const putKeys = (client: { send: jest.Mock }) =>
    client.send.mock.calls.map(([command]) => (command as { input: { Key: string } }).input.Key);

  it('writes the data files, then the manifest; again: only the manifest', async () => {
    const file = write('part-1.csv', exportCsv([], '2026-11'));
    const client = { send: jest.fn(async () => ({})) };
    const deliverer = new ExportDeliverer({ s3: client as never, bucket: 'exports', sources });
    const delivery = {
      tenant: 'acme',
      billingPeriod: '2026-11',
      executionId: 'e-1',
      files: [file],
    };
    const first = await deliverer.deliver(delivery);
    expect(putKeys(client)).toEqual([
      'exports/acme/focus/data/BILLING_PERIOD=2026-11/e-1/part-1.csv',
      'exports/acme/focus/metadata/BILLING_PERIOD=2026-11/focus-Manifest.json',
    ]);
    expect(first.repeated).toBe(false);
    client.send.mockClear();
    expect((await deliverer.deliver(delivery)).repeated).toBe(true);
    expect(putKeys(client)).toEqual([
      'exports/acme/focus/metadata/BILLING_PERIOD=2026-11/focus-Manifest.json',
    ]);
  });

  it('refuses other bytes under an execution already delivered, and two files of one name', async () => {
    const client = { send: jest.fn(async () => ({})) };
    const deliverer = new ExportDeliverer({ s3: client as never, bucket: 'exports', sources });
    const delivery = {
      tenant: 'acme',
      billingPeriod: '2026-11',
      executionId: 'e-9',
      files: [write('part-9.csv', exportCsv([], '2026-11'))],
    };
    await deliverer.deliver(delivery);
    write('part-9.csv', `${exportCsv([], '2026-11')}\n`);
    await expect(deliverer.deliver(delivery)).rejects.toThrow(
      'execution e-9 of acme 2026-11 was already delivered with another part-9.csv: give the re-export its own executionId',
    );
    mkdirSync(join(folder, 'other'), { recursive: true });
    const twin = write('other/part-9.csv', exportCsv([], '2026-11'));
    await expect(
      deliverer.deliver({ ...delivery, executionId: 'e-10', files: [delivery.files[0], twin] }),
    ).rejects.toThrow('two files named part-9.csv');
  });
});
