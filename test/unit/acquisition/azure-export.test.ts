/**
 * The pure parts of the Azure export copier: the documented manifest (test/fixtures/azure), which runs
 * are new and complete, and where a run lands in the export bucket.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../../lambda/core/errors';
import {
  parseAzureManifest,
  type AzureExportRun,
} from '../../../lambda/core/acquisition/azure-manifest';
import {
  blobProblems,
  mayBeAfterCursor,
  selectRuns,
} from '../../../lambda/core/acquisition/azure-runs';
import { azureTarget } from '../../../lambda/core/acquisition/azure-target';
import { parseDeliveredManifest } from '../../../lambda/core/exports/delivered-manifest';
import { sourceOfKey } from '../../../lambda/core/exports/source';

const FIXTURE = join(__dirname, '../../fixtures/azure/manifest.json');
const fixtureText = readFileSync(FIXTURE, 'utf8');
const RUN_FOLDER =
  'cost-exports/acme-focus-daily/20240901-20240930/202409201833/0d5c6f1e-6a8e-4a53-9b1d-7c1f2e3a4b5c/';
const MANIFEST_NAME = `${RUN_FOLDER}manifest.json`;

const validationErrorOf = (action: () => unknown): ValidationError => {
  try {
    action();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

const run = (overrides: Partial<AzureExportRun>): AzureExportRun => ({
  manifestName: `${overrides.runId ?? 'r'}/manifest.json`,
  exportName: 'acme-focus-daily',
  datasetType: 'FocusCost',
  runId: 'r',
  submittedTime: '2024-09-20T00:00:00.000Z',
  period: '2024-09',
  blobs: [{ name: `${overrides.runId ?? 'r'}/part_0_0001.csv`, byteCount: 10 }],
  ...overrides,
});

const listingOf = (...runs: AzureExportRun[]) =>
  new Map(runs.flatMap((each) => each.blobs.map((blob) => [blob.name, { size: blob.byteCount }])));

describe('parseAzureManifest', () => {
  it('reads the documented manifest: export, dataset, run id, submission time, period and blobs', () => {
    expect(parseAzureManifest(fixtureText, MANIFEST_NAME)).toEqual({
      manifestName: MANIFEST_NAME,
      exportName: 'acme-focus-daily',
      resourceId:
        '/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.CostManagement/exports/acme-focus-daily',
      datasetType: 'FocusCost',
      runId: 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598',
      submittedTime: '2024-09-20T18:33:03.103Z',
      period: '2024-09',
      blobs: [{ name: `${RUN_FOLDER}part_0_0001.csv`, byteCount: 9853 }],
    });
  });

  it('refuses a blob outside the run folder, a blob listed twice and a run over two months', () => {
    const document = JSON.parse(fixtureText);
    const withBlobs = (blobs: unknown[]) => JSON.stringify({ ...document, blobs });
    expect(
      validationErrorOf(() =>
        parseAzureManifest(
          withBlobs([{ blobName: 'other-run/part_0_0001.csv', byteCount: 1 }]),
          MANIFEST_NAME,
        ),
      ).field,
    ).toBe('blobs[0].blobName');
    const blob = { blobName: `${RUN_FOLDER}a.csv`, byteCount: 1 };
    expect(
      validationErrorOf(() => parseAzureManifest(withBlobs([blob, blob]), MANIFEST_NAME)).reason,
    ).toContain('twice');
    const twoMonths = JSON.stringify({
      ...document,
      runInfo: { ...document.runInfo, endDate: '2024-10-02T00:00:00' },
    });
    expect(validationErrorOf(() => parseAzureManifest(twoMonths, MANIFEST_NAME)).field).toBe(
      'runInfo.endDate',
    );
    expect(
      validationErrorOf(() =>
        parseAzureManifest(
          withBlobs([{ blobName: `${RUN_FOLDER}a.csv`, byteCount: -1 }]),
          MANIFEST_NAME,
        ),
      ).field,
    ).toBe('blobs[0].byteCount');
  });
});

describe('which runs to copy', () => {
  it('a run is complete only when every blob is listed with its byte count', () => {
    const complete = run({});
    expect(blobProblems(complete, listingOf(complete))).toEqual([]);
    expect(blobProblems(complete, new Map())).toEqual([
      { blobName: 'r/part_0_0001.csv', expectedBytes: 10 },
    ]);
    expect(blobProblems(complete, new Map([['r/part_0_0001.csv', { size: 9 }]]))).toEqual([
      { blobName: 'r/part_0_0001.csv', expectedBytes: 10, listedBytes: 9 },
    ]);
  });

  it('copies the newest complete run of each period after the cursor, oldest first', () => {
    const old = run({ runId: 'a', submittedTime: '2024-09-01T00:00:00.000Z' });
    const septEarly = run({ runId: 'b', submittedTime: '2024-09-10T00:00:00.000Z' });
    const augRerun = run({
      runId: 'c',
      submittedTime: '2024-09-11T00:00:00.000Z',
      period: '2024-08',
    });
    const septLate = run({ runId: 'd', submittedTime: '2024-09-12T00:00:00.000Z' });
    const septBroken = run({ runId: 'e', submittedTime: '2024-09-13T00:00:00.000Z' });
    const listed = listingOf(old, septEarly, augRerun, septLate);
    const selection = selectRuns([septBroken, septLate, augRerun, septEarly, old], listed, {
      submittedTime: old.submittedTime,
      runId: old.runId,
    });
    expect(selection.toCopy.map((each) => each.runId)).toEqual(['c', 'd']);
    expect(selection.superseded.map((each) => each.runId)).toEqual(['b']);
    expect(selection.incomplete.map((each) => each.run.runId)).toEqual(['e']);
  });

  it('runs at the cursor are done; without a cursor every run is new', () => {
    const only = run({});
    expect(selectRuns([only], listingOf(only), only).toCopy).toEqual([]);
    expect(selectRuns([only], listingOf(only), undefined).toCopy).toEqual([only]);
  });

  it('reads only manifests written at or after the cursor run was submitted', () => {
    const cursor = { submittedTime: '2024-09-12T00:00:00.000Z', runId: 'd' };
    expect(mayBeAfterCursor({ lastModified: '2024-09-11T23:59:59.000Z' }, cursor)).toBe(false);
    expect(mayBeAfterCursor({ lastModified: '2024-09-12T00:00:00.000Z' }, cursor)).toBe(true);
    expect(mayBeAfterCursor({ lastModified: '2000-01-01T00:00:00.000Z' }, undefined)).toBe(true);
  });
});

describe('azureTarget', () => {
  const parsed = parseAzureManifest(fixtureText, MANIFEST_NAME);

  it('lays the run out as an execution the planner reads, under the tenant prefix', () => {
    const target = azureTarget('exports-bucket', 'acme', parsed);
    const runFolder = 'BILLING_PERIOD=2024-09/af754a8e-30fc-4ef3-bfc6-71bd1efb8598';
    expect(target.files).toEqual([
      {
        blobName: `${RUN_FOLDER}part_0_0001.csv`,
        byteCount: 9853,
        key: `acme/acme-focus-daily/data/${runFolder}/part_0_0001.csv`,
      },
    ]);
    expect(target.manifest.manifestKey).toBe(
      `acme/acme-focus-daily/metadata/${runFolder}/acme-focus-daily-Manifest.json`,
    );
    const planned = parseDeliveredManifest(target.manifest.json, target.manifest.manifestUri);
    expect(planned).toMatchObject({
      executionId: 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598',
      billingPeriod: '2024-09',
      exportName: 'acme-focus-daily',
      format: 'focus',
      exportArn: parsed.resourceId,
    });
    const sources = [{ tenant: 'acme', bucket: 'exports-bucket', prefix: 'acme' }];
    expect(sourceOfKey(sources, 'exports-bucket', target.manifest.manifestKey)?.tenant).toBe(
      'acme',
    );
  });

  it('refuses a dataset the readers do not book, naming the export setting to change', () => {
    const error = validationErrorOf(() =>
      azureTarget('exports-bucket', 'acme', { ...parsed, datasetType: 'ActualCost' }),
    );
    expect(error.field).toBe('exportConfig.type');
    expect(error.reason).toContain('Cost and usage details (FOCUS)');
  });

  it('refuses two blobs with one file name (the target folder is flat)', () => {
    const twice = {
      ...parsed,
      blobs: [
        { name: `${RUN_FOLDER}x/part.csv`, byteCount: 1 },
        { name: `${RUN_FOLDER}y/part.csv`, byteCount: 1 },
      ],
    };
    expect(validationErrorOf(() => azureTarget('exports-bucket', 'acme', twice)).field).toBe(
      'blobs',
    );
  });
});
