/**
 * The exports section of `npm run bench` at a tiny size: a generated export through the S3 emulator,
 * the planner and chunk workers (child processes) on DynamoDB Local. The run itself fails when a
 * snapshot differs from the ground truth; this checks the report's shape and its exact figures. No
 * timing assertions.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXPORT_FORMATS } from '../../bench/lib/exports-bench';
import { renderExportsMarkdown, type ExportsReport } from '../../bench/lib/exports-report';
import { DEFAULTS, runExportsSection } from '../../bench/run';
import { expectedFocusExport } from '../support/focus-export-generator';

jest.setTimeout(300_000);

const ROWS = 2_000;
const FILES = 4;

let out: string;
let report: ExportsReport;

beforeAll(async () => {
  const endpoint = process.env.DYNAMODB_LOCAL_ENDPOINT;
  if (!endpoint)
    throw new Error('DYNAMODB_LOCAL_ENDPOINT is not set: run through jest (globalSetup)');
  out = mkdtempSync(path.join(os.tmpdir(), 'bench-exports-test-'));
  report = await runExportsSection({
    ...DEFAULTS,
    endpoint,
    out,
    quiet: true,
    sections: ['exports'],
    exportRows: ROWS,
    exportStreamEvents: 200,
    exportScaleRows: 3_000,
    exportScaleAccountCurrencies: 600,
  });
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('exports bench (2,000 rows)', () => {
  it('writes exports.json with every figure, and exports.md as its rendering', () => {
    const written = JSON.parse(readFileSync(path.join(out, 'exports.json'), 'utf8')) as unknown;
    expect(written).toEqual(JSON.parse(JSON.stringify(report)));
    const markdown = readFileSync(path.join(out, 'exports.md'), 'utf8');
    expect(markdown).toContain('## Billing exports');
    expect(markdown).toMatch(/^\| parquet +\| 2,000 +\|/m);
    expect(markdown).toMatch(/^\| per-row SNS path +\|/m);
  });

  it('reads every generated row of both formats, rejecting exactly the bad ones', () => {
    const { badRowEvery, seed } = report.config;
    const expected = Array.from({ length: FILES }, (_, index) =>
      expectedFocusExport({
        rows: ROWS / FILES,
        seed: seed + index,
        tenant: 'acme',
        billingPeriod: '2026-11',
        badRowEvery,
      }),
    );
    const rejected = expected.reduce((n, part) => n + part.rowsRejected, 0);
    expect(rejected).toBeGreaterThan(0);
    for (const format of EXPORT_FORMATS) {
      expect(report.formats[format]).toMatchObject({
        rows: ROWS,
        rowsRejected: rejected,
        rowsAccepted: ROWS - rejected,
        files: FILES,
        exact: true,
      });
      expect(report.formats[format].oneWorker.commits).toBe(report.formats[format].tasks);
    }
  });

  it('counts DynamoDB requests and capacity per 1,000 rows for the export and the per-row path', () => {
    for (const figures of [...EXPORT_FORMATS.map((f) => report.formats[f]), report.stream]) {
      expect(figures.dynamo.writeRequests).toBeGreaterThan(0);
      expect(figures.dynamo.wcu.billed).toBeGreaterThan(0);
      expect(figures.costUsdPerMillionRows.total).toBeCloseTo(
        figures.costUsdPerMillionRows.write + figures.costUsdPerMillionRows.read,
        12,
      );
    }
    // The per-row path commits every event on its own; an export commits a chunk of rows.
    expect(report.stream.dynamo.writeRequests).toBeGreaterThan(
      report.formats.parquet.dynamo.writeRequests,
    );
    expect(report.stream.events).toBe(200);
  });

  it('runs the scale case twice, exactly, with every item far below the 400 KB limit', () => {
    const { scale } = report;
    if (!scale) throw new Error('no scale case in the report');
    expect(scale).toMatchObject({ rows: 3_000, exact: true });
    expect(scale.accountCurrencies).toBeGreaterThan(500);
    expect(scale.diffAccountCurrencies).toBeGreaterThan(500);
    expect(scale.diffPages).toBeGreaterThanOrEqual(1);
    expect(scale.largestItemBytes).toBeLessThanOrEqual(310_000);
    expect(scale.largestStoredItemBytes).toBeLessThanOrEqual(310_000);
    expect(scale.second.switchSeconds).toBeGreaterThan(0);
    expect(renderExportsMarkdown(report)).toContain('| scale case | switch, s |');
  });

  it('computes every goal from the figures', () => {
    expect(report.goals.map((goal) => goal.id)).toEqual(
      EXPORT_FORMATS.flatMap((format) => [
        `exports-${format}-parse-aggregate`,
        `exports-${format}-writes-per-row`,
        `exports-${format}-worker-memory`,
      ]),
    );
  });
});
