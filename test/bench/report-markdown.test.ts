import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderMarkdown, type Report } from '../../bench/lib/report';
import { crashRowOf, measurements, reportOf, summaryOf } from './support/report-fixture';

const RESULTS = path.join(__dirname, '..', '..', 'bench', 'results');
const lines = (markdown: string) => markdown.split('\n');

/** Renders like `npm run bench` writes: through prettier. */
const prettier = (markdown: string, file: string) =>
  execFileSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', file],
    { cwd: RESULTS, input: markdown, encoding: 'utf8' },
  );

describe('bench report: latest.md', () => {
  const markdown = renderMarkdown(reportOf());

  it('puts ours, the baseline and their ratio side by side per queue kind, one table per workload', () => {
    const rendered = lines(markdown);
    const hotAt = rendered.findIndex((line) => line.startsWith('### hot workload'));
    expect(rendered.findIndex((line) => line.startsWith('### default workload'))).toBeLessThan(
      hotAt,
    );
    expect(rendered).toContain(
      '|  | ours (standard) | baseline (standard) | ours / baseline | ours (fifo) | baseline (fifo) | ours / baseline |',
    );
    expect(rendered.slice(hotAt)).toEqual(
      expect.arrayContaining([
        '| events/s (median of 3) | 3,000 | 1,000 | 3.00× | 3,000 | 1,000 | 3.00× |',
        '| handler CPU ms / 1,000 events | 400 | 800 | 0.50× | 400 | 800 | 0.50× |',
        '|   lower bound: cancelled transactions free | 2.000 | 2.500 | 0.80× | 2.000 | 2.500 | 0.80× |',
        '| on-demand $ / million events | 1.938 | 1.938 | 1.00× | 1.938 | 1.938 | 1.00× |',
        '| cancelled transactions (each retried) / 1k events | 0.0 | 0.0 | n/a | 0.0 | 0.0 | n/a |',
      ]),
    );
  });

  it('lists every operation either side made, sorted, 0 where one side made none', () => {
    const operations = lines(markdown).filter((line) => line.includes(' / event | '));
    expect(operations.slice(1, 5)).toEqual([
      '|   BatchGetItem / event | 0.100 | 0.000 | n/a | 0.100 | 0.000 | n/a |',
      '|   PutItem / event | 0.000 | 1.000 | 0.00× | 0.000 | 1.000 | 0.00× |',
      '|   TransactWriteItems / event | 0.900 | 0.000 | n/a | 0.900 | 0.000 | n/a |',
      '|   UpdateItem / event | 0.000 | 1.000 | 0.00× | 0.000 | 1.000 | 0.00× |',
    ]);
  });

  it('totals the crash runs of each workload, queue kind and side, and lists every crash run', () => {
    const report = measurements();
    report.crash.push(crashRowOf({ lost: 1, misapplied: 2, unattributed: 1, crashes: 4 }));
    const rendered = lines(renderMarkdown(reportOf(report)));
    expect(rendered).toContain(
      '| under crashes: double-applied / lost (crashes) | 0 / 1 (9) | 3 / 0 (6) |  | 0 / 0 (2) | 0 / 0 (0) |  |',
    );
    expect(rendered).toContain(
      '| default | standard | ack-lost | 5% | ours | 1000 | 4 | 0 | 1 | 3 | 0 |',
    );
    expect(rendered).toContain(
      '| default | standard | ack-lost | 5% | baseline | 1000 | 6 | 3 | 0 | 0 | 12.50 |',
    );
  });

  it('names the reasons of ours’ cancelled transactions only where there were some', () => {
    const report = measurements();
    report.throughput.hot.standard.ours = summaryOf({
      cancellationReasons: { 'ConditionalCheckFailed@CHARGE': 2, 'TransactionConflict@TOTAL': 1 },
    });
    expect(lines(renderMarkdown(reportOf(report)))).toContain(
      'Ours, cancelled transactions by reason (item that refused): standard: ConditionalCheckFailed@CHARGE 2, TransactionConflict@TOTAL 1.',
    );
    expect(markdown).not.toContain('Ours, cancelled');
  });

  it('marks the deployed bundle shape and shows each goal as met or not', () => {
    const report = measurements();
    report.throughput.default.fifo.ours = summaryOf({ eventsPerSecond: 1500 });
    const rendered = lines(renderMarkdown(reportOf(report)));
    expect(rendered).toContain(
      '| CJS, SDK bundled (deployed) | 400,000 | 20.0 | 10.0 | 520,000 | 30.0 | 15.0 |',
    );
    expect(rendered).toContain(
      "| default, fifo: events/s ≥ 2× the baseline's | ≥ 2.00× | 1,500 vs 1,000 events/s = 1.50× | ❌ no |",
    );
    expect(markdown.endsWith('Command: `npm run bench` (61 s).\n')).toBe(true);
  });

  it('renders the committed latest.json into the committed latest.md (after prettier)', () => {
    const report = JSON.parse(readFileSync(path.join(RESULTS, 'latest.json'), 'utf8')) as Report;
    expect(prettier(renderMarkdown(report), 'latest.md')).toBe(
      readFileSync(path.join(RESULTS, 'latest.md'), 'utf8'),
    );
  });
});
