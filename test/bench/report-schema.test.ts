import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPORT_SCHEMA } from '../../bench/lib/report/document';
import { reportProblems } from '../../bench/lib/report/schema';
import { reportOf } from './support/report-fixture';

/** The fixture as it comes back from latest.json: plain JSON, open to any damage. */
const parsed = (): Record<string, unknown> => JSON.parse(JSON.stringify(reportOf()));

describe('bench report: schema of latest.json', () => {
  it('accepts a complete report and the committed bench/results/latest.json', () => {
    expect(reportProblems(parsed())).toEqual([]);
    const file = path.join(__dirname, '..', '..', 'bench', 'results', 'latest.json');
    expect(reportProblems(JSON.parse(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('names the schema it expects', () => {
    expect(reportProblems({ ...parsed(), schema: 'billing-dedup-bench/0' })).toEqual([
      `schema: expected ${REPORT_SCHEMA}`,
    ]);
  });

  it('names each missing or mistyped figure by its key path', () => {
    const report = parsed() as {
      machine: Record<string, unknown>;
      throughput: { hot: { fifo: { baseline: { wcuPerEvent: Record<string, unknown> } } } };
      init: { handlers: { ours: { shapes: Record<string, unknown>[] } } };
    };
    delete report.machine.nproc;
    report.throughput.hot.fifo.baseline.wcuPerEvent.billedLow = '1.2';
    report.init.handlers.ours.shapes[3].initMs = null;
    expect(reportProblems(report)).toEqual([
      'machine.nproc: expected number',
      'throughput.hot.fifo.baseline.wcuPerEvent.billedLow: expected number',
      'init.handlers.ours.shapes[3].initMs: expected number',
    ]);
  });

  it('checks every crash row and every goal', () => {
    const report = parsed() as {
      crash: Record<string, unknown>[];
      goals: Record<string, unknown>[];
    };
    report.crash[1].rate = '5%';
    delete report.crash[2].moneyError;
    delete report.goals[3].met;
    expect(reportProblems(report)).toEqual([
      'crash[1].rate: expected number',
      'crash[2].moneyError: expected string',
      'goals[3]: expected { id, description, target, measured, met }',
    ]);
  });

  it('reports rows that are not objects instead of throwing', () => {
    expect(reportProblems({ ...parsed(), crash: [null, 3] })).toEqual([
      'crash[0]: expected object',
      'crash[1]: expected object',
    ]);
    expect(reportProblems({ ...parsed(), goals: [null] })).toEqual([
      'goals[0]: expected { id, description, target, measured, met }',
    ]);
  });

  it('reports lists that are not arrays instead of throwing', () => {
    expect(reportProblems({ ...parsed(), crash: 'none', goals: {} })).toEqual([
      'crash: expected array',
      'goals: expected array',
    ]);
  });

  it('reports a document that is not an object at all', () => {
    for (const value of [null, 'latest', 42, []]) {
      const problems = reportProblems(value);
      expect(problems[0]).toBe(`schema: expected ${REPORT_SCHEMA}`);
      expect(problems).toContain('crash: expected array');
      expect(problems).toContain('goals: expected array');
    }
  });
});
