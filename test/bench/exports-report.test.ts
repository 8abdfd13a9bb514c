/** The committed exports results: the documented shape, and exports.md rendered from exports.json. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exportsReportProblems, renderExportsMarkdown } from '../../bench/lib/report/exports';

const RESULTS = path.join(__dirname, '..', '..', 'bench', 'results');

describe('committed exports results', () => {
  const report = JSON.parse(readFileSync(path.join(RESULTS, 'exports.json'), 'utf8'));

  it('have the documented shape', () => {
    expect(exportsReportProblems(report)).toEqual([]);
  });

  it('render exports.json into the committed exports.md (after prettier)', () => {
    const formatted = execFileSync(
      process.execPath,
      [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', 'exports.md'],
      { cwd: RESULTS, input: renderExportsMarkdown(report), encoding: 'utf8' },
    );
    expect(formatted).toBe(readFileSync(path.join(RESULTS, 'exports.md'), 'utf8'));
  });
});
