/**
 * `npm start -- [--input FILE.jsonl] [--faults SPEC] [--seed N] [--report FILE.json] [--json]
 *               [--redrive] [--keep-running] [--size N] [-c key=value]…`
 *
 * Exit codes: 0 verdict PASS, 1 verdict FAIL (or the run failed), 2 usage or configuration error,
 * 130 interrupted (Ctrl-C). The emulators are stopped in every case.
 */
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseFaultSpec, UsageError, type FaultRates } from './runtime/faults';
import { consoleProgress, silentProgress } from './report/progress';
import { summaryText } from './report/run-report';
import { AbortedError, DEFAULT_SEED, runLocal } from './phases/run-local';
import { LocalConfigError } from './runtime/synth';

export interface CliOptions {
  input?: string;
  faults?: FaultRates;
  seed: number;
  report?: string;
  json: boolean;
  redrive: boolean;
  keepRunning: boolean;
  size?: number;
  context: Record<string, unknown>;
}

const USAGE =
  'usage: npm start -- [--input FILE.jsonl] [--faults ack-loss=P,throttle=P,timeout=P] [--seed N] [--report FILE.json] [--json] [--redrive] [--keep-running] [--size N] [-c key=value]';

const integer = (flag: string, text: string, min: number): number => {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min)
    throw new UsageError(`${flag}: expected an integer ≥ ${min}, got "${text}"`);
  return value;
};

/** `--report FILE` is checked before the run: a typo must not cost a whole run and its summary. */
export const checkReportPath = (file: string): string => {
  const target = path.resolve(file);
  const directory = path.dirname(target);
  const stats = statSync(directory, { throwIfNoEntry: false });
  if (!stats) throw new UsageError(`--report: directory ${directory} does not exist`);
  if (!stats.isDirectory()) throw new UsageError(`--report: ${directory} is not a directory`);
  const existing = statSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory())
    throw new UsageError(`--report: ${target} is a directory; give a file name`);
  try {
    accessSync(existing ? target : directory, constants.W_OK);
  } catch {
    throw new UsageError(`--report: cannot write ${existing ? target : `in ${directory}`}`);
  }
  return target;
};

export const parseCli = (argv: string[]): CliOptions => {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        input: { type: 'string' },
        faults: { type: 'string' },
        seed: { type: 'string' },
        report: { type: 'string' },
        json: { type: 'boolean', default: false },
        redrive: { type: 'boolean', default: false },
        'keep-running': { type: 'boolean', default: false },
        size: { type: 'string' },
        context: { type: 'string', short: 'c', multiple: true },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) throw new UsageError(USAGE);
  const context: Record<string, unknown> = {};
  for (const pair of values.context ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`-c: expected key=value, got "${pair}"`);
    context[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    ...(values.input !== undefined ? { input: values.input } : {}),
    ...(values.faults !== undefined ? { faults: parseFaultSpec(values.faults) } : {}),
    seed: values.seed === undefined ? DEFAULT_SEED : integer('--seed', values.seed, 0),
    ...(values.report !== undefined ? { report: checkReportPath(values.report) } : {}),
    json: values.json ?? false,
    redrive: values.redrive ?? false,
    keepRunning: values['keep-running'] ?? false,
    ...(values.size !== undefined ? { size: integer('--size', values.size, 1) } : {}),
    context,
  };
};

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
      signal: controller.signal,
      progress: options.json && !process.stderr.isTTY ? silentProgress : consoleProgress(),
    });
    const json = `${JSON.stringify(result.report, null, 2)}\n`;
    if (options.json) {
      process.stdout.write(json);
      process.stderr.write(`${summaryText(result.report)}\n`);
    } else {
      process.stdout.write(`${summaryText(result.report)}\n`);
    }
    let exitCode: number = result.exitCode;
    if (options.report) {
      try {
        writeFileSync(options.report, json);
      } catch (error) {
        process.stderr.write(
          `--report: could not write ${options.report}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`,
        );
        exitCode = 1;
      }
    }
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
