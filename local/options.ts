/**
 * The command line of `npm start`: flags parsed and checked before anything starts (a usage error
 * exits 2 with a message, no stack trace).
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SEED } from './phases/run-local';
import { parseFaultSpec, UsageError, type FaultRates } from './runtime/faults';

export interface CliOptions {
  input?: string;
  faults?: FaultRates;
  seed: number;
  report?: string;
  json: boolean;
  redrive: boolean;
  keepRunning: boolean;
  size?: number;
  /** False with `--no-acquisitions`: the Azure and GCP acquisitions do not run. */
  acquisitions: boolean;
  context: Record<string, unknown>;
}

const USAGE =
  'usage: npm start -- [--input FILE.jsonl] [--faults ack-loss=P,throttle=P,timeout=P] [--seed N] [--report FILE.json] [--json] [--redrive] [--keep-running] [--size N] [--no-acquisitions] [-c key=value]';

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
        'no-acquisitions': { type: 'boolean', default: false },
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
    acquisitions: !(values['no-acquisitions'] ?? false),
    context,
  };
};
