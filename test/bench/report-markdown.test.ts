import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderMarkdown } from '../../bench/lib/report/markdown';
import { crashRowOf, measurements, reportOf, summaryOf } from './support/report-fixture';

const RESULTS = path.join(__dirname, '..', '..', 'bench', 'results');
const lines = (markdown: string) => markdown.split('\n');

describe('bench report: markdown', () => {
  const markdown = renderMarkdown(reportOf());

  it('opens with the run date and both workloads', () => {
    expect(lines(markdown).slice(0, 3)).toEqual([
      '## Ours vs Powertools baseline — 2026-03-04',
      '',
      'default: 2,000 events per implementation and queue kind (3 repetitions × 667, fresh tables each), 6 account(s), 4 concurrent consumers; ' +
        'hot: 1,000 events per implementation and queue kind (3 repetitions × 333, fresh tables each), 1 account(s), 16 concurrent consumers. ' +
        'Batches of 10; 30% duplicate deliveries, 10% restatements, 1% poison; ' +
        'DynamoDB Local; in-memory queue model; DLQ: in memory.',
    ]);
  });

  it('gives each workload its own table, with handler CPU and cancellations by cause', () => {
    const rendered = lines(markdown);
    const defaultAt = rendered.indexOf('### Default workload');
    const hotAt = rendered.indexOf(
      '### Hot account: every charge on one tenant, account, month and currency',
    );
    expect(defaultAt).toBeGreaterThan(0);
    expect(hotAt).toBeGreaterThan(defaultAt);
    expect(rendered.slice(hotAt)).toEqual(
      expect.arrayContaining([
        '| events/s (median of 3) | 3,000 | 1,000 | 3.00× | 3,000 | 1,000 | 3.00× |',
        '| handler CPU ms / 1,000 events | 400 | 800 | 0.50× | 400 | 800 | 0.50× |',
        '| cancelled transactions (each retried) / 1k events | 0.0 | 0.0 | n/a | 0.0 | 0.0 | n/a |',
        '|   of which contention only / 1k events | 0.0 | 0.0 | n/a | 0.0 | 0.0 | n/a |',
      ]),
    );
  });

  it('puts ours, the baseline and their ratio side by side for each queue kind', () => {
    expect(lines(markdown)).toEqual(
      expect.arrayContaining([
        '|  | ours (standard) | baseline (standard) | ours / baseline | ours (fifo) | baseline (fifo) | ours / baseline |',
        '| events/s (median of 3) | 2,000 | 1,000 | 2.00× | 2,000 | 1,000 | 2.00× |',
        '| WCU / event (billed model) | 3.000 | 3.000 | 1.00× | 3.000 | 3.000 | 1.00× |',
        '|   lower bound: cancelled transactions free | 2.000 | 2.500 | 0.80× | 2.000 | 2.500 | 0.80× |',
        '| failed conditional writes / 1k events | 2.0 | 2.0 | 1.00× | 2.0 | 2.0 | 1.00× |',
        '| under crashes: double-applied / lost (crashes) | 0 / 0 (5) | 3 / 0 (6) |  | 0 / 0 (2) | 0 / 0 (0) |  |',
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

  it('pairs crash runs by workload, queue, mode and rate; – where a side has no run', () => {
    expect(lines(markdown)).toEqual(
      expect.arrayContaining([
        '| default | standard | ack-lost | 5% | 5 | 0 | 0 | 6 | 3 | 0 | 12.50 |',
        '| default | fifo | mid-batch | 5% | 2 | 0 | 0 | – | – | – | – |',
      ]),
    );
  });

  it('adds misapplied and unattributed effects to the lost column', () => {
    const report = measurements();
    report.crash = [
      crashRowOf({ lost: 1, misapplied: 2, unattributed: 1 }),
      crashRowOf({ implementation: 'baseline', misapplied: 4 }),
    ];
    expect(lines(renderMarkdown(reportOf(report)))).toContain(
      '| default | standard | ack-lost | 5% | 5 | 0 | 1 (+3 misapplied) | 5 | 0 | 0 (+4 misapplied) | 0 |',
    );
  });

  it('shows each goal as met or not', () => {
    const report = measurements();
    report.throughput.default.fifo.ours = summaryOf({ eventsPerSecond: 1500 });
    const rendered = lines(renderMarkdown(reportOf(report)));
    expect(rendered).toContain(
      '| default, fifo: events/s ≥ 2× the baseline | ≥ 2.00× | 1,500 vs 1,000 events/s = 1.50× | ❌ no |',
    );
    expect(rendered).toContain(
      "| module init minus the bare DynamoDB client's, deployed shape (CJS, SDK bundled; nodejs24.x), medians of cold loads ≤ 10 ms | ≤ 10 ms | 5.0 ms: 20.0 − 15.0 ms wall (CPU 2.0 ms; Node v24.0.0) | ✅ yes |",
    );
  });

  it('names the reasons of ours’ cancelled transactions under the workload’s table', () => {
    const report = measurements();
    report.throughput.hot.standard.ours = summaryOf({
      cancelledTransactions: 3,
      cancellationReasons: { 'ConditionalCheckFailed@CHARGE': 2, 'TransactionConflict@TOTAL': 1 },
    });
    const rendered = lines(renderMarkdown(reportOf(report)));
    expect(rendered).toContain(
      'Ours, cancelled transactions by reason (item that refused): standard: ConditionalCheckFailed@CHARGE 2, TransactionConflict@TOTAL 1.',
    );
    expect(lines(markdown).filter((line) => line.startsWith('Ours, cancelled'))).toEqual([]);
  });

  it('lists every bundle shape of both handlers and marks the deployed one', () => {
    expect(lines(markdown)).toEqual(
      expect.arrayContaining([
        '| ESM, SDK external | 100,000 | 80.0 | 60.0 | 130,000 | 120.0 | 90.0 |',
        '| CJS, SDK bundled (deployed) | 400,000 | 20.0 | 10.0 | 520,000 | 30.0 | 15.0 |',
      ]),
    );
  });

  it('ends with the machine and the command, and one newline', () => {
    expect(
      markdown.endsWith(
        'Machine: Test CPU, 2 cores (nproc), 8 GiB RAM, Node v20.0.0, linux. Command: `npm run bench` (61 s).\n',
      ),
    ).toBe(true);
  });

  it('renders the committed latest.json into the committed latest.md (after prettier)', () => {
    const report = JSON.parse(readFileSync(path.join(RESULTS, 'latest.json'), 'utf8'));
    const formatted = execFileSync(
      process.execPath,
      [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', 'latest.md'],
      { cwd: RESULTS, input: renderMarkdown(report), encoding: 'utf8' },
    );
    expect(formatted).toBe(readFileSync(path.join(RESULTS, 'latest.md'), 'utf8'));
  });
});
