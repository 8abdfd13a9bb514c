/**
 * Where the report of `npm start` goes: the summary on stdout, or with `--json` the JSON report on
 * stdout and the summary on stderr; and the JSON report in the `--report` file.
 */
import { writeFileSync } from 'node:fs';
import { summaryText, type LocalReport } from './run-report';

/** False when the `--report` file could not be written (the run then exits 1; the summary is out first). */
export const writeReport = (
  report: LocalReport,
  options: { json: boolean; report?: string },
): boolean => {
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (options.json) {
    process.stdout.write(json);
    process.stderr.write(`${summaryText(report)}\n`);
  } else {
    process.stdout.write(`${summaryText(report)}\n`);
  }
  if (options.report) {
    try {
      writeFileSync(options.report, json);
    } catch (error) {
      process.stderr.write(
        `--report: could not write ${options.report}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`,
      );
      return false;
    }
  }
  return true;
};
