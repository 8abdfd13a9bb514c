import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliDeps, CliIo } from '../../cli/context';
import { run } from '../../cli/main';

export interface Captured {
  io: CliIo;
  stdout(): string;
  stderr(): string;
}

/** Injected stdout/stderr (not TTYs) and an empty environment. */
export const captureIo = (env: NodeJS.ProcessEnv = {}, cwd = tmpdir()): Captured => {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
      env,
      cwd,
    },
    stdout: () => out,
    stderr: () => err,
  };
};

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real argument parsing and command with injected streams, env and deps. */
export const cli = async (
  argv: string[],
  deps: CliDeps = {},
  env: NodeJS.ProcessEnv = {},
): Promise<CliRun> => {
  const captured = captureIo(env);
  const code = await run(argv, captured.io, deps);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
};

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'billing-dedup-cli-'));

export const writeTemp = (name: string, content: string): string => {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
};

/** A virtual clock: `sleep` advances time instantly and records each delay. */
export const virtualClock = (start = 1_796_000_000_000) => {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
    sleeps,
    advance: (ms: number) => {
      time += ms;
    },
  };
};
