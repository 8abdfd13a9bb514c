/**
 * `npm start -- [--input FILE.jsonl] [--faults SPEC] [--seed N] [--report FILE.json] [--json]
 *               [--redrive] [--keep-running] [--size N] [--no-acquisitions] [-c key=value]…`
 *
 * Exit codes: 0 verdict PASS, 1 verdict FAIL (or the run failed), 2 usage or configuration error,
 * 130 interrupted (Ctrl-C). The emulators are stopped in every case.
 */
import { parseCli, type CliOptions } from './options';
import { AbortedError, runLocal } from './phases/run-local';
import { consoleProgress, silentProgress } from './report/progress';
import { writeReport } from './report/output';
import { UsageError } from './runtime/faults';
import { LocalConfigError } from './runtime/synth';

export const main = async (argv: string[]): Promise<number> => {
  let options: CliOptions;
  try {
    options = parseCli(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (name: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      if (!options.keepRunning) process.stderr.write(`\n${name}: stopping the emulators…\n`);
      controller.abort();
    } else {
      process.stderr.write(`${name} again: exiting now\n`);
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runLocal({
      input: options.input,
      faults: options.faults,
      seed: options.seed,
      context: options.context,
      sampleSize: options.size,
      redrive: options.redrive,
      keepRunning: options.keepRunning,
      acquisitions: options.acquisitions,
      signal: controller.signal,
      progress: options.json && !process.stderr.isTTY ? silentProgress : consoleProgress(),
    });
    const exitCode = writeReport(result.report, options) ? result.exitCode : 1;
    return controller.signal.aborted && !options.keepRunning ? 130 : exitCode;
  } catch (error) {
    if (error instanceof AbortedError) {
      process.stderr.write('interrupted; emulators stopped\n');
      return 130;
    }
    if (error instanceof UsageError || error instanceof LocalConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    process.stderr.write(
      `local run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
