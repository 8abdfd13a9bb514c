/** The exports report: goals computed from given figures, and the committed results re-rendered. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  computeExportGoals,
  renderExportsMarkdown,
  type ExportsReport,
} from '../../bench/lib/exports-report';

const RESULTS = path.join(__dirname, '..', '..', 'bench', 'results');
const committed = (): ExportsReport =>
  JSON.parse(readFileSync(path.join(RESULTS, 'exports.json'), 'utf8')) as ExportsReport;

describe('exports report', () => {
  it('computes three goals per format from its figures, each met only within its limit', () => {
    const report = committed();
    const csv = report.formats['csv.gz'];
    csv.parseAggregate.rowsPerSecond = 49_999;
    csv.dynamo.writeRequests = 10; // per 1,000 rows: 0.01 per row, the limit
    csv.oneWorker.maxRssMiB = 512.5;
    const goals = computeExportGoals(report);
    expect(goals.map((g) => [g.id, g.met])).toEqual([
      ['exports-csv.gz-parse-aggregate', false],
      ['exports-csv.gz-writes-per-row', true],
      ['exports-csv.gz-worker-memory', false],
      ['exports-parquet-parse-aggregate', true],
      ['exports-parquet-writes-per-row', true],
      ['exports-parquet-worker-memory', true],
    ]);
    expect(goals[0]).toMatchObject({ target: '≥ 50,000', measured: '49,999' });
    csv.dynamo.writeRequests = 10.001;
    expect(computeExportGoals(report)[1].met).toBe(false);
  });

  it('renders one row per format, and the per-row path against each', () => {
    const markdown = renderExportsMarkdown(committed());
    expect(markdown).toMatch(
      /^\| csv\.gz +\| 1,000,000 +\| 100 +\| 4 +\| 34\.3 +\| 4 +\| 64,394 /m,
    );
    expect(markdown).toMatch(/^\| export parquet +\| 0\.023 +\| 0\.011 +\|.*\| 2,055\.05× +\|$/m);
    expect(markdown).toMatch(/^\| per-row SNS path +\| 200\.100 +\| 100\.050 /m);
  });

  it('renders the committed exports.json into the committed exports.md (after prettier)', () => {
    const formatted = execFileSync(
      process.execPath,
      [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', 'exports.md'],
      { cwd: RESULTS, input: renderExportsMarkdown(committed()), encoding: 'utf8' },
    );
    expect(formatted).toBe(readFileSync(path.join(RESULTS, 'exports.md'), 'utf8'));
  });
});
