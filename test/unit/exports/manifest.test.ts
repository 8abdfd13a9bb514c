/** AWS Data Exports manifests: layout, validation, and the manifests we build for other providers. */
import { ValidationError } from '../../../lambda/core/errors';
import {
  manifestFor,
  parseManifest,
  REQUIRED_FOCUS_COLUMNS,
  type ManifestSpec,
} from '../../../lambda/core/exports/manifest';

const root = 'billing/acme/focus-export';
const manifestUri = `s3://exports-bucket/${root}/metadata/BILLING_PERIOD=2026-11/focus-export-Manifest.json`;
const dataUri = (name: string) => `s3://exports-bucket/${root}/data/BILLING_PERIOD=2026-11/${name}`;

/** Shaped like a FOCUS 1.0 with AWS columns export's manifest. */
const awsManifest = (overrides: Record<string, unknown> = {}) => ({
  executionId: 'a1b2c3d4-0000-4000-8000-000000000001',
  exportArn: 'arn:aws:bcm-data-exports:us-east-1:123456789012:export/focus-export-1a2b3c',
  columns: [...REQUIRED_FOCUS_COLUMNS, 'SubAccountId', 'ServiceName', 'x_ServiceCode'].map(
    (name) => ({
      name,
      type: name === 'BilledCost' ? 'decimal' : 'string',
    }),
  ),
  dataFiles: [
    dataUri('focus-export-00001.snappy.parquet'),
    dataUri('focus-export-00002.snappy.parquet'),
  ],
  billingPeriod: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
  ...overrides,
});

const rejection = (run: () => unknown): ValidationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('parseManifest', () => {
  it('reads execution, export, period, columns and data files from the manifest and its key', () => {
    const manifest = parseManifest(JSON.stringify(awsManifest()), manifestUri);
    expect(manifest).toMatchObject({
      bucket: 'exports-bucket',
      prefix: 'billing/acme',
      exportName: 'focus-export',
      exportRoot: root,
      billingPeriod: '2026-11',
      executionId: 'a1b2c3d4-0000-4000-8000-000000000001',
    });
    expect(manifest.columns.map((column) => column.name)).toContain('x_ServiceCode');
    expect(manifest.dataFiles).toEqual([
      {
        uri: dataUri('focus-export-00001.snappy.parquet'),
        bucket: 'exports-bucket',
        key: `${root}/data/BILLING_PERIOD=2026-11/focus-export-00001.snappy.parquet`,
        format: 'parquet',
      },
      expect.objectContaining({ format: 'parquet' }),
    ]);
  });

  it('accepts CSV and gzip-compressed CSV files, in an execution folder too', () => {
    const manifest = parseManifest(
      awsManifest({ dataFiles: [dataUri('x/part-1.csv.gz'), dataUri('x/part-2.csv')] }),
      manifestUri,
    );
    expect(manifest.dataFiles.map((file) => file.format)).toEqual(['csv.gz', 'csv']);
  });

  it('accepts a manifest without a prefix', () => {
    const manifest = parseManifest(
      awsManifest({ dataFiles: ['s3://b/focus-export/data/BILLING_PERIOD=2026-11/f.csv'] }),
      's3://b/focus-export/metadata/BILLING_PERIOD=2026-11/focus-export-Manifest.json',
    );
    expect(manifest).toMatchObject({ prefix: '', exportRoot: 'focus-export' });
  });

  it.each([
    [
      'another export',
      `s3://exports-bucket/billing/acme/other-export/data/BILLING_PERIOD=2026-11/f.csv`,
    ],
    [
      'another tenant prefix',
      `s3://exports-bucket/billing/globex/focus-export/data/BILLING_PERIOD=2026-11/f.csv`,
    ],
    ['another billing period', `s3://exports-bucket/${root}/data/BILLING_PERIOD=2026-10/f.csv`],
    ['the metadata folder', `s3://exports-bucket/${root}/metadata/BILLING_PERIOD=2026-11/f.csv`],
    [
      'a path that climbs out',
      `s3://exports-bucket/${root}/data/BILLING_PERIOD=2026-11/../../../../globex/f.csv`,
    ],
    ['another bucket', `s3://other-bucket/${root}/data/BILLING_PERIOD=2026-11/f.csv`],
  ])('rejects a data file in %s: the prefix binds the tenant', (_, uri) => {
    const error = rejection(() => parseManifest(awsManifest({ dataFiles: [uri] }), manifestUri));
    expect(error).toMatchObject({ code: 'invalid-field', field: 'dataFiles[0]' });
  });

  it('rejects a data file listed twice (it would be counted twice)', () => {
    const uri = dataUri('f.csv');
    expect(
      rejection(() => parseManifest(awsManifest({ dataFiles: [uri, uri] }), manifestUri)),
    ).toMatchObject({
      field: 'dataFiles[1]',
      reason: expect.stringContaining('twice'),
    });
  });

  it('rejects a file type it cannot read rather than ingesting part of the period', () => {
    expect(
      rejection(() =>
        parseManifest(awsManifest({ dataFiles: [dataUri('f.json.gz')] }), manifestUri),
      ),
    ).toMatchObject({
      field: 'dataFiles[0]',
      reason: expect.stringContaining('unsupported file type'),
    });
  });

  it('rejects an empty or missing list of data files', () => {
    expect(
      rejection(() => parseManifest(awsManifest({ dataFiles: [] }), manifestUri)),
    ).toMatchObject({
      code: 'invalid-field',
      field: 'dataFiles',
    });
    expect(
      rejection(() => parseManifest(awsManifest({ dataFiles: undefined }), manifestUri)),
    ).toMatchObject({
      code: 'missing-field',
      field: 'dataFiles',
    });
  });

  it('names every required FOCUS column a manifest lacks', () => {
    const columns = awsManifest().columns.filter(
      (column) => column.name !== 'BillingCurrency' && column.name !== 'BilledCost',
    );
    const error = rejection(() => parseManifest(awsManifest({ columns }), manifestUri));
    expect(error.field).toBe('columns');
    expect(error.reason).toMatch(/missing BilledCost, BillingCurrency/);
  });

  it.each([
    ['not under metadata/', `s3://b/${root}/BILLING_PERIOD=2026-11/focus-export-Manifest.json`],
    [
      'named after another export',
      `s3://b/${root}/metadata/BILLING_PERIOD=2026-11/other-Manifest.json`,
    ],
    [
      'a month that does not exist',
      `s3://b/${root}/metadata/BILLING_PERIOD=2026-13/focus-export-Manifest.json`,
    ],
    ['not an s3 URI', `${root}/metadata/BILLING_PERIOD=2026-11/focus-export-Manifest.json`],
  ])('rejects a manifest key %s', (_, uri) => {
    expect(rejection(() => parseManifest(awsManifest(), uri)).field).toBe('manifestKey');
  });

  it('rejects a declared billing period other than the partition it is stored in', () => {
    const manifest = awsManifest({ billingPeriod: { start: '2026-10-01T00:00:00.000Z' } });
    expect(rejection(() => parseManifest(manifest, manifestUri)).field).toBe('billingPeriod.start');
  });

  it('reads a declared start with an offset as the UTC month it is in', () => {
    const localMidnight = awsManifest({ billingPeriod: { start: '2026-11-01T00:00:00+02:00' } });
    expect(rejection(() => parseManifest(localMidnight, manifestUri)).reason).toBe(
      "2026-11-01T00:00:00+02:00 is in 2026-10 (UTC), not in BILLING_PERIOD=2026-11 of the manifest's location",
    );
    const westOfUtc = awsManifest({ billingPeriod: { start: '2026-10-31T20:00:00-04:00' } });
    expect(() => parseManifest(westOfUtc, manifestUri)).not.toThrow();
  });

  it('rejects an execution folder that is not the manifest execution', () => {
    const inFolder = `s3://exports-bucket/${root}/metadata/BILLING_PERIOD=2026-11/other-execution/focus-export-Manifest.json`;
    expect(rejection(() => parseManifest(awsManifest(), inFolder)).field).toBe('executionId');
  });

  it('rejects text that is not a JSON object, and missing ids', () => {
    expect(rejection(() => parseManifest('{"executionId":', manifestUri)).code).toBe(
      'malformed-body',
    );
    expect(rejection(() => parseManifest('[]', manifestUri)).code).toBe('malformed-body');
    expect(
      rejection(() => parseManifest(awsManifest({ executionId: undefined }), manifestUri)),
    ).toMatchObject({ code: 'missing-field', field: 'executionId' });
    expect(
      rejection(() => parseManifest(awsManifest({ exportArn: 7 }), manifestUri)),
    ).toMatchObject({ code: 'invalid-field', field: 'exportArn' });
  });
});

describe('manifestFor', () => {
  const spec: ManifestSpec = {
    bucket: 'exports-bucket',
    prefix: 'billing/globex',
    exportName: 'azure-focus',
    billingPeriod: '2026-12',
    executionId: '20261215T0400Z',
    columns: [...REQUIRED_FOCUS_COLUMNS, 'SubAccountId', 'x_BillingProfileId'],
    dataFileNames: ['part-0.csv.gz', 'part-1.parquet'],
  };

  it('builds the AWS layout, and parses back to the same export', () => {
    const built = manifestFor(spec);
    expect(built.manifestKey).toBe(
      'billing/globex/azure-focus/metadata/BILLING_PERIOD=2026-12/azure-focus-Manifest.json',
    );
    expect(built.dataFileKeys).toEqual([
      'billing/globex/azure-focus/data/BILLING_PERIOD=2026-12/20261215T0400Z/part-0.csv.gz',
      'billing/globex/azure-focus/data/BILLING_PERIOD=2026-12/20261215T0400Z/part-1.parquet',
    ]);
    const parsed = parseManifest(built.json, built.manifestUri);
    expect(parsed).toEqual({
      bucket: spec.bucket,
      manifestKey: built.manifestKey,
      exportRoot: 'billing/globex/azure-focus',
      prefix: spec.prefix,
      exportName: spec.exportName,
      billingPeriod: spec.billingPeriod,
      executionId: spec.executionId,
      exportArn: built.document.exportArn,
      columns: spec.columns.map((name) => ({ name, type: 'string' })),
      format: 'focus',
      dataFiles: built.dataFileKeys.map((key, index) => ({
        uri: `s3://${spec.bucket}/${key}`,
        bucket: spec.bucket,
        key,
        format: index === 0 ? 'csv.gz' : 'parquet',
      })),
    });
    expect(built.document.billingPeriod).toEqual({
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });

  it.each([
    ['prefix', { prefix: '/billing' }],
    ['prefix', { prefix: 'billing/../acme' }],
    ['exportName', { exportName: 'a/b' }],
    ['billingPeriod', { billingPeriod: '2026-1' }],
    ['executionId', { executionId: '../x' }],
    ['dataFileNames[0]', { dataFileNames: ['../x.csv'] }],
    ['dataFileNames[0]', { dataFileNames: ['notes.txt'] }],
    ['columns', { columns: ['BilledCost'] }],
    ['dataFiles', { dataFileNames: [] }],
  ])('refuses to build a manifest with a bad %s', (field, change) => {
    expect(rejection(() => manifestFor({ ...spec, ...change })).field).toBe(field);
  });
});
