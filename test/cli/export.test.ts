import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ExportStore } from '../../lambda/adapters/export-store';
import { parseDeliveredManifest } from '../../lambda/core/exports/delivered-manifest';
import { parseManifest } from '../../lambda/core/exports/manifest';
import { startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { CSV_HEADER, csvOf, deliver, exportStore, hourLine } from '../support/export-pipeline';
import { writeFocusParquet } from '../support/focus-export-generator';
import type { ObjectCreated } from '../../local/emulators/s3-notifications';
import { inspectExportFile } from '../../cli/operations/export-files';
import { MIN_PART_BYTES, uploadExport } from '../../cli/operations/export-upload';
import { cli, tempDir, writeTemp } from './helpers';

const BUCKET = 'exports';
const ACCOUNT = '200000000013';

let s3: LocalS3;
let dynamo: DynamoDBClient;
let tables: LedgerTables;
let store: ExportStore;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  store = exportStore(dynamo, tables.ledgerTable);
});

afterAll(async () => {
  dynamo.destroy();
  await s3.stop();
});

const deps = () => ({ clients: { s3: s3.client, dynamo }, now: () => Date.now() });
const bucketFlag = () => ['--bucket', BUCKET];
const where = () => ['--bucket', BUCKET, '--table', tables.ledgerTable];

const keysUnder = async (prefix: string): Promise<string[]> => {
  const page = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key ?? '').sort();
};

const objectText = async (key: string): Promise<string> => {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (await response.Body?.transformToString()) ?? '';
};

const objectBytes = async (key: string): Promise<Buffer> => {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from((await response.Body?.transformToByteArray()) ?? []);
};

const recordUploads = () => {
  const created: ObjectCreated[] = [];
  const stop = s3.onObjectCreated((event) => created.push(event));
  return { keys: () => created.map((event) => event.key), stop };
};

describe('export put', () => {
  it('uploads the data files, then the manifest, in the Data Exports layout under exports/<tenant>/', async () => {
    const dir = tempDir();
    const csv = join(dir, 'part-0.csv');
    const csvText = csvOf([
      hourLine('10.00', ACCOUNT, 'EC2', 0),
      hourLine('2.5', ACCOUNT, 'S3', 1),
    ]);
    writeFileSync(csv, csvText);
    const gz = join(dir, 'part-1.csv.gz');
    writeFileSync(gz, gzipSync(csvOf([hourLine('1.25', ACCOUNT, 'EC2', 2)])));
    const parquet = join(dir, 'part-2.parquet');
    await writeFocusParquet(parquet, { rows: 20, tenant: 'acme' }, { rowGroupSize: 8 });

    const uploads = recordUploads();
    const result = await cli(
      [
        'export',
        'put',
        csv,
        gz,
        parquet,
        '--tenant',
        ' ACME ',
        '--period',
        '2026-11',
        '--execution-id',
        'run-1',
        ...bucketFlag(),
      ],
      deps(),
    );
    uploads.stop();

    expect(result.stderr).toContain('upload:');
    expect(result.stderr.split('\n').filter((line) => !line.startsWith('upload:'))).toEqual(['']);
    expect(result.code).toBe(0);
    const manifestKey = 'exports/acme/focus/metadata/BILLING_PERIOD=2026-11/focus-Manifest.json';
    const dataKeys = ['part-0.csv', 'part-1.csv.gz', 'part-2.parquet'].map(
      (name) => `exports/acme/focus/data/BILLING_PERIOD=2026-11/run-1/${name}`,
    );
    expect(result.stdout).toContain(`s3://${BUCKET}/${manifestKey}`);
    expect(result.stdout).toContain('execution id  run-1');
    expect(uploads.keys()).toEqual([...dataKeys, manifestKey]);

    const manifest = parseManifest(await objectText(manifestKey), `s3://${BUCKET}/${manifestKey}`);
    expect(manifest).toMatchObject({
      executionId: 'run-1',
      billingPeriod: '2026-11',
      prefix: 'exports/acme',
      exportName: 'focus',
    });
    expect(manifest.dataFiles.map((file) => [file.key, file.format])).toEqual([
      [dataKeys[0], 'csv'],
      [dataKeys[1], 'csv.gz'],
      [dataKeys[2], 'parquet'],
    ]);
    expect(manifest.columns.map((column) => column.name)).toEqual(
      expect.arrayContaining([...CSV_HEADER.split(','), 'SubAccountId', 'Tags']),
    );
    expect(await objectText(dataKeys[0])).toBe(csvText);
    expect((await objectBytes(dataKeys[2])).equals(readFileSync(parquet))).toBe(true);
  });

  it('defaults to a new time-ordered execution id and prints it; --json gives the keys', async () => {
    const csv = writeTemp('focus.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const run = (now: number) =>
      cli(
        [
          'export',
          'put',
          csv,
          '--tenant',
          'beta',
          '--period',
          '2026-11',
          '--json',
          ...bucketFlag(),
        ],
        {
          ...deps(),
          now: () => now,
        },
      );
    const first = await run(Date.UTC(2026, 10, 30, 9, 49, 12, 47));
    const second = await run(Date.UTC(2026, 10, 30, 9, 49, 13, 0));
    expect(first.code).toBe(0);
    const a = JSON.parse(first.stdout) as { executionId: string; dataFileKeys: string[] };
    const b = JSON.parse(second.stdout) as { executionId: string };
    expect(a.executionId).toMatch(/^20261130T094912047Z-[0-9a-f]{8}$/);
    expect(a.executionId < b.executionId).toBe(true);
    expect(a.dataFileKeys).toEqual([
      `exports/beta/focus/data/BILLING_PERIOD=2026-11/${a.executionId}/focus.csv`,
    ]);
    expect(first.stderr).toBe(''); // --json: no progress
  });

  it('a file larger than a part goes up as a multipart upload, byte for byte, with progress per part', async () => {
    const line = hourLine('0.000000000001', ACCOUNT, `Service-${'x'.repeat(200)}`, 0);
    const lines = Array.from(
      { length: Math.ceil((2.2 * MIN_PART_BYTES) / line.length) },
      () => line,
    );
    const path = writeTemp('large.csv', csvOf(lines));
    const file = await inspectExportFile(path);
    const progress: number[] = [];
    const result = await uploadExport(
      s3.client,
      {
        bucket: BUCKET,
        prefix: 'exports/large',
        exportName: 'focus',
        period: '2026-11',
        executionId: 'm1',
      },
      [file],
      { partBytes: MIN_PART_BYTES, onBytes: (sent) => progress.push(sent) },
    );
    expect(progress).toEqual([MIN_PART_BYTES, 2 * MIN_PART_BYTES, file.size]);
    expect(result.bytes).toBe(file.size);
    expect((await objectBytes(result.dataFileKeys[0])).equals(readFileSync(path))).toBe(true);
  });

  it('honours --prefix and --export-name', async () => {
    const csv = writeTemp('azure.csv', csvOf([hourLine('1', ACCOUNT, 'VM', 0)]));
    const result = await cli(
      [
        'export',
        'put',
        csv,
        ...['--tenant', 'gamma', '--period', '2026-11', '--prefix', '/azure/gamma/'],
        ...['--export-name', 'azure-focus', '--execution-id', 'x1', '--no-progress'],
        ...bucketFlag(),
      ],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(await keysUnder('azure/gamma/')).toEqual([
      'azure/gamma/azure-focus/data/BILLING_PERIOD=2026-11/x1/azure.csv',
      'azure/gamma/azure-focus/metadata/BILLING_PERIOD=2026-11/azure-focus-Manifest.json',
    ]);
  });

  describe("with the stage's exportSources (stack output ExportSources)", () => {
    const outputsFile = () =>
      writeTemp(
        'outputs.json',
        JSON.stringify({
          'billing-dedup-dev-stateless': {
            ExportBucketName: BUCKET,
            ExportSources: JSON.stringify([
              { tenant: 'acme', prefix: 'exports/acme/' },
              { tenant: 'globex', prefix: 'exports/globex/' },
              { tenant: 'initech', prefix: 'billing/initech/' },
            ]),
          },
        }),
      );
    const put = (...flags: string[]) =>
      cli(
        [
          'export',
          'put',
          writeTemp('focus.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)])),
          ...['--period', '2026-11', '--no-progress', '--outputs-file', outputsFile()],
          ...flags,
        ],
        deps(),
      );

    it('refuses a --prefix bound to another tenant, naming both, and uploads nothing', async () => {
      const result = await put('--tenant', 'acme', '--prefix', 'exports/globex/');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        '--prefix "exports/globex/" belongs to tenant "globex", not to --tenant "acme"',
      );
      expect(result.stderr).toContain("would replace globex's export of the period");
      expect(result.stderr).toContain('use acme\'s prefix "exports/acme/"');
      expect(await keysUnder('exports/globex/')).toEqual([]);
    });

    it('refuses a prefix no tenant owns (the manifest would be dead-lettered), default prefix too', async () => {
      const result = await put('--tenant', 'initech');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        '--prefix "exports/initech/" is under no exportSources prefix of',
      );
      expect(result.stderr).toContain('use initech\'s prefix "billing/initech/"');
      expect(await keysUnder('exports/initech/')).toEqual([]);
    });

    it("uploads under the tenant's own prefix, given or by default", async () => {
      expect((await put('--tenant', 'initech', '--prefix', 'billing/initech')).code).toBe(0);
      expect((await put('--tenant', 'globex', '--execution-id', 'own')).code).toBe(0);
      expect(await keysUnder('exports/globex/')).toContain(
        'exports/globex/focus/data/BILLING_PERIOD=2026-11/own/focus.csv',
      );
    });
  });

  it('refuses files without the required FOCUS columns before uploading anything, naming them', async () => {
    const good = writeTemp('good.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const bad = writeTemp(
      'bad.csv',
      'BilledCost,BillingAccountId,ChargeCategory,ChargePeriodStart\n1,2,Usage,2026-11-01\n',
    );
    const result = await cli(
      ['export', 'put', good, bad, '--tenant', 'delta', '--period', '2026-11', ...bucketFlag()],
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing uploaded');
    expect(result.stderr).toContain(
      `${bad}: not a complete FOCUS export: missing BillingCurrency, BillingPeriodStart, ChargePeriodEnd`,
    );
    expect(result.stderr).not.toContain(`${good}:`);
    expect(await keysUnder('exports/delta/')).toEqual([]);
  });

  it('takes a legacy CUR CSV as AWS writes it, recognised from its columns, and refuses mixing it with FOCUS', async () => {
    const cur = join(
      __dirname,
      '..',
      'fixtures',
      'cur',
      'legacy-cur-anonymized-2023-11-excerpt.csv',
    );
    const ok = await cli(
      ['export', 'put', cur, '--tenant', 'foxtrot', '--period', '2023-11', ...bucketFlag()],
      deps(),
    );
    expect(ok.code).toBe(0);
    // Delivered as a legacy CUR assembly: files in the assembly's folder, its manifest there and in the period folder.
    const keys = await keysUnder('exports/foxtrot/');
    const assembly =
      /^exports\/foxtrot\/focus\/20231101-20231201\/([^/]+)\/legacy-cur-anonymized-2023-11-excerpt\.csv$/;
    const assemblyId = keys.map((key) => assembly.exec(key)?.[1]).find(Boolean);
    expect(assemblyId).toBeDefined();
    expect(keys).toEqual(
      [
        `exports/foxtrot/focus/20231101-20231201/${assemblyId}/focus-Manifest.json`,
        `exports/foxtrot/focus/20231101-20231201/${assemblyId}/legacy-cur-anonymized-2023-11-excerpt.csv`,
        'exports/foxtrot/focus/20231101-20231201/focus-Manifest.json',
      ].sort(),
    );
    const manifestKey = 'exports/foxtrot/focus/20231101-20231201/focus-Manifest.json';
    expect(
      parseDeliveredManifest(
        JSON.parse(await objectText(manifestKey)),
        `s3://${BUCKET}/${manifestKey}`,
      ),
    ).toMatchObject({
      executionId: assemblyId,
      billingPeriod: '2023-11',
      format: 'cur-legacy-csv',
    });
    const focus = writeTemp('focus.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const mixed = await cli(
      ['export', 'put', cur, focus, '--tenant', 'golf', '--period', '2023-11', ...bucketFlag()],
      deps(),
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('the files are of different formats (cur-legacy-csv, focus)');
  });

  it('takes CUR 2.0 files (CSV.gz, Parquet) as AWS writes them, in the Data Exports layout', async () => {
    for (const [tenant, name] of [
      ['hotel', 'cur2-2023-11-from-legacy-excerpt.csv.gz'],
      ['india', 'cur2-2023-11-from-legacy-excerpt.snappy.parquet'],
    ]) {
      const file = join(__dirname, '..', 'fixtures', 'cur', name);
      const result = await cli(
        [
          'export',
          'put',
          file,
          '--tenant',
          tenant,
          '--period',
          '2023-11',
          '--export-name',
          'cur2',
          ...bucketFlag(),
        ],
        deps(),
      );
      expect(result.code).toBe(0);
      const manifestKey = `exports/${tenant}/cur2/metadata/BILLING_PERIOD=2023-11/cur2-Manifest.json`;
      const manifest = parseManifest(
        JSON.parse(await objectText(manifestKey)),
        `s3://${BUCKET}/${manifestKey}`,
      );
      expect(manifest.format).toBe('cur');
      expect(manifest.dataFiles.map((data) => data.key)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^exports/${tenant}/cur2/data/BILLING_PERIOD=2023-11/[^/]+/${name.replace(/\./g, '\\.')}$`,
          ),
        ),
      ]);
    }
  });

  it('refuses files whose first row is of another billing period (they would book an empty snapshot)', async () => {
    const csv = writeTemp('october.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const result = await cli(
      ['export', 'put', csv, '--tenant', 'delta', '--period', '2026-10', ...bucketFlag()],
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${csv}: its first row is of billing period 2026-11, not 2026-10`,
    );
    expect(await keysUnder('exports/delta/')).toEqual([]);
  });

  it("reads the first row's BillingPeriodStart as its UTC month, as the pipeline books it", async () => {
    const localMidnight = hourLine('1', ACCOUNT, 'EC2', 0).replace(
      '2026-11-01T00:00:00Z',
      '2026-12-01T00:00:00+02:00',
    );
    const csv = writeTemp('offset.csv', csvOf([localMidnight]));
    const december = await cli(
      ['export', 'put', csv, '--tenant', 'delta', '--period', '2026-12', ...bucketFlag()],
      deps(),
    );
    expect(december.code).toBe(2);
    expect(december.stderr).toContain(
      `${csv}: its first row is of billing period 2026-11, not 2026-12`,
    );
    expect(await keysUnder('exports/delta/')).toEqual([]);
  });

  it.each([
    [['--tenant', 'Not a tenant!'], /--tenant: .*the consumer books no tenant under that name/],
    [['--period', '2026-13'], /--period must be yyyy-mm \(got "2026-13"\)/],
    [['--period', '11-2026'], /--period must be yyyy-mm/],
    [['--execution-id', 'a/b'], /--execution-id: /],
    [['--export-name', 'a b'], /--export-name: /],
  ])('a bad flag %j is a usage error naming it', async (flags, message) => {
    const csv = writeTemp('focus.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const base = { '--tenant': 'delta', '--period': '2026-11' } as Record<string, string>;
    base[flags[0]] = flags[1];
    const result = await cli(
      ['export', 'put', csv, ...Object.entries(base).flat(), ...bucketFlag()],
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await keysUnder('exports/delta/')).toEqual([]);
  });

  it('a missing file, an empty file, an unknown extension or a broken gzip is a usage error naming the file', async () => {
    const dir = tempDir();
    const cases: [string, RegExp][] = [
      [join(dir, 'absent.csv'), /absent\.csv: no such file: check the path/],
      [writeTemp('empty.csv', ''), /empty\.csv: cannot be read as csv: the file is empty/],
      [
        writeTemp('focus.xlsx', 'x'),
        /focus\.xlsx: not a FOCUS export file \(expected \.csv, \.csv\.gz or \.parquet\)/,
      ],
      [writeTemp('broken.csv.gz', 'not gzip'), /broken\.csv\.gz: cannot be read as csv\.gz/],
      [writeTemp('broken.parquet', 'not parquet'), /broken\.parquet: cannot be read as parquet/],
    ];
    for (const [path, message] of cases) {
      const result = await cli(
        ['export', 'put', path, '--tenant', 'delta', '--period', '2026-11', ...bucketFlag()],
        deps(),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(await keysUnder('exports/delta/')).toEqual([]);
  });

  it('without --bucket and without a stack, says where the bucket comes from', async () => {
    const csv = writeTemp('focus.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const result = await cli(
      ['export', 'put', csv, '--tenant', 'delta', '--period', '2026-11'],
      deps(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'No billing export bucket name: pass --bucket, --stack <name> or --outputs-file <file>',
    );
  });
});

describe('export status and diff', () => {
  const period = '2026-11';
  const delivery = (tenant: string, executionId: string, eventTime: string, lines: string[]) => ({
    tenant,
    prefix: `exports/${tenant}`,
    executionId,
    eventTime,
    sequencer: '0055AED6DCD90281E5',
    files: { 'part-0.csv': csvOf(lines) },
  });

  beforeAll(async () => {
    await deliver(
      store,
      delivery('omega', 'e-1', '2026-11-02T06:00:00.000Z', [
        hourLine('10.00', ACCOUNT, 'EC2', 0),
        hourLine('10.00', ACCOUNT, 'S3', 1),
      ]),
    );
    await deliver(
      store,
      delivery('omega', 'e-2', '2026-11-03T06:00:00.000Z', [
        hourLine('12.50', ACCOUNT, 'EC2', 0),
        hourLine('10.00', ACCOUNT, 'S3', 1),
        hourLine('12,30', ACCOUNT, 'S3', 2),
        `0.1,${ACCOUNT},USD,2026-10-01T00:00:00Z,Usage,2026-10-05T00:00:00Z,2026-10-05T01:00:00Z,S3`,
      ]),
    );
    // Status discovers the exports under the tenant's prefix in the bucket.
    const csv = writeTemp('seed.csv', csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
    const put = await cli(
      [
        ...['export', 'put', csv, '--tenant', 'omega', '--period', period],
        ...['--execution-id', 'e-3', '--no-progress', ...bucketFlag()],
      ],
      deps(),
    );
    expect(put.code).toBe(0);
  });

  it('status lists the executions newest first with tasks, rows, rejected rows and their reasons', async () => {
    const result = await cli(
      ['export', 'status', '--tenant', 'omega', '--period', period, ...where()],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Source exports/exports/omega/focus, tenant omega, period 2026-11: 2 executions, newest first',
    );
    const lines = result.stdout.split('\n');
    const e2 = lines.findIndex((line) => /^e-2\s+current\s+1\/1\s+4\s+2\s+\S+\s+\S+$/.test(line));
    const e1 = lines.findIndex((line) => /^e-1\s+superseded\s+1\/1\s+2\s+0\s/.test(line));
    expect(e2).toBeGreaterThan(0);
    expect(e1).toBeGreaterThan(e2);
    expect(result.stdout).toContain(
      'e-2 rejected: malformed-row:$ 1, wrong-period:BillingPeriodStart 1',
    );
    expect(result.stdout).toMatch(
      /e\.g\. exports\/omega\/focus\/data\/BILLING_PERIOD=2026-11\/e-2\/part-0\.csv row \d+: /,
    );
  });

  it('status shows what the correction pass of closed periods did, and how to book what it refused', async () => {
    const { planned } = await deliver(
      store,
      delivery('psi', 'e-1', '2026-11-02T06:00:00.000Z', [hourLine('3', ACCOUNT, 'EC2', 0)]),
    );
    await store.recordLateCorrections(
      planned.ref,
      {
        sequence: 1,
        booked: 2,
        unchanged: 1,
        rejected: [
          {
            accountId: ACCOUNT,
            currency: 'USD',
            amount: '-1.5',
            code: 'period-closed',
            reason: 'closed',
          },
        ],
        at: '2026-12-02T00:00:00.000Z',
      },
      1,
    );
    const result = await cli(
      [
        ...['export', 'status', '--tenant', 'psi', '--period', period],
        ...['--source', planned.ref.source, ...where()],
      ],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        '  e-1 closed-period corrections (switch 1): 2 booked, 1 unchanged, 1 rejected',
        `    rejected ${ACCOUNT} USD -1.50: period-closed`,
        '    to book them: reopen each period (billing-dedup period reopen), then redrive the export-chunks DLQ',
      ].join('\n'),
    );
  });

  it('status says which of two exports of the same accounts counts and which is shadowed', async () => {
    const focus = await deliver(
      store,
      delivery('sigma', 'f-1', '2026-11-02T06:00:00.000Z', [
        hourLine('25797.74', ACCOUNT, 'EC2', 0),
      ]),
    );
    const second = await deliver(store, {
      ...delivery('sigma', 's-1', '2026-11-02T07:00:00.000Z', [
        hourLine('16045.09', ACCOUNT, 'EC2', 0),
      ]),
      exportName: 'second',
    });
    // Status discovers both exports under the tenant's prefix in the bucket.
    for (const exportName of ['focus', 'second']) {
      const csv = writeTemp(`${exportName}.csv`, csvOf([hourLine('1', ACCOUNT, 'EC2', 0)]));
      const put = await cli(
        [
          ...['export', 'put', csv, '--tenant', 'sigma', '--period', period],
          ...[
            '--export-name',
            exportName,
            '--execution-id',
            'x-1',
            '--no-progress',
            ...bucketFlag(),
          ],
        ],
        deps(),
      );
      expect(put.code).toBe(0);
    }
    const result = await cli(
      ['export', 'status', '--tenant', 'sigma', '--period', period, ...where()],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  authoritative over ${second.planned.ref.source} on the accounts they share with it`,
    );
    expect(result.stdout).toContain(
      `  shadowed by ${focus.planned.ref.source} on the accounts both cover: kept and shown, never added`,
    );
  });

  it('status --json holds what the store holds', async () => {
    const result = await cli(
      [
        ...['export', 'status', '--tenant', 'omega', '--period', period, '--json'],
        ...['--source', 'exports/exports/omega/focus', '--table', tables.ledgerTable],
      ],
      deps(),
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      sources: { source: string; executions: Record<string, unknown>[] }[];
    };
    const stored = await store.listExecutions('omega', 'exports/exports/omega/focus', period);
    expect(report.sources).toHaveLength(1);
    expect(report.sources[0].executions.map((e) => e.executionId)).toEqual(['e-2', 'e-1']);
    expect(report.sources[0].executions[0]).toMatchObject({
      ...stored.find((e) => e.executionId === 'e-2'),
      rejections: await store.readRejections({
        tenant: 'omega',
        source: 'exports/exports/omega/focus',
        period,
        executionId: 'e-2',
      }),
    });
  });

  it('diff prints each switch newest first: old, new, delta per account and currency, and the notification text', async () => {
    const result = await cli(
      ['export', 'diff', '--tenant', 'omega', '--period', period, ...where()],
      deps(),
    );
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/source exports\/exports\/omega\/focus: e-1 → e-2/);
    expect(out).toMatch(
      new RegExp(`^${ACCOUNT}\\s+USD\\s+20\\s+22\\.5\\s+\\+2\\.50\\s+2 → 2$`, 'm'),
    );
    expect(out).toContain(
      `omega 2026-11, account ${ACCOUNT}: +2.50 USD since the previous export; EC2 +2.50`,
    );
    expect(out).toMatch(/first export of the period: e-1/);
    expect(out).toMatch(new RegExp(`^${ACCOUNT}\\s+USD\\s+0\\s+20\\s+\\+20\\.00\\s+0 → 2$`, 'm'));
    expect(out).toContain('No notification: the first export of a period has no previous export');
    expect(out.indexOf('e-1 → e-2')).toBeLessThan(out.indexOf('first export of the period: e-1'));
  });

  it('diff --threshold above the change shows no notification text; --json has the same diffs', async () => {
    const text = await cli(
      [
        'export',
        'diff',
        '--tenant',
        'omega',
        '--period',
        period,
        '--threshold',
        '2.51',
        ...where(),
      ],
      deps(),
    );
    expect(text.stdout).toContain('No notification: no total moved by 2.51 or more.');
    const result = await cli(
      ['export', 'diff', '--tenant', 'omega', '--period', period, '--json', ...where()],
      deps(),
    );
    const report = JSON.parse(result.stdout) as {
      sources: { diffs: { executionId: string; accounts: unknown[] }[] }[];
    };
    const stored = await store.readDiffs('omega', 'exports/exports/omega/focus', period);
    expect(report.sources[0].diffs.map((diff) => diff.executionId)).toEqual(['e-2', 'e-1']);
    expect(report.sources[0].diffs[0].accounts).toEqual(
      stored.find((diff) => diff.executionId === 'e-2')?.accounts,
    );
  });

  it('a tenant or period without executions says so; a bad threshold or period is a usage error', async () => {
    const none = await cli(
      ['export', 'status', '--tenant', 'nobody', '--period', period, ...where()],
      deps(),
    );
    expect(none.code).toBe(0);
    expect(none.stdout).toContain(
      `No export executions for tenant nobody, period 2026-11 (no export under s3://${BUCKET}/exports/nobody/)`,
    );
    const threshold = await cli(
      ['export', 'diff', '--tenant', 'omega', '--period', period, '--threshold', '-1', ...where()],
      deps(),
    );
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toContain('--threshold: must be 0 or more');
    const badPeriod = await cli(
      ['export', 'status', '--tenant', 'omega', '--period', '2026-1', ...where()],
      deps(),
    );
    expect(badPeriod.code).toBe(2);
    expect(badPeriod.stderr).toContain('--period must be yyyy-mm (got "2026-1")');
  });
});
