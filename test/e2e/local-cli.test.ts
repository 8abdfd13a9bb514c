/**
 * `npm start` refuses bad flags, bad configuration and unusable inputs before it runs anything: one
 * line (or one block) on stderr naming the fix, exit 2, no stack trace, no emulator started.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseFaultSpec } from '../../local/runtime/faults';
import { parseCli } from '../../local/options';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-local-cli-'));

const start = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['local/start.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: 'true' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

const expectCleanUsageError = (
  result: { code: number | null; stdout: string; stderr: string },
  message: RegExp,
) => {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/starting DynamoDB Local/);
  expect(result.stdout).toBe('');
};

describe('--faults probabilities are plain decimals between 0 and 1', () => {
  it.each(['0', '0.05', '.5', '1', '1.0'])('accepts %s', (value) => {
    expect(parseFaultSpec(`ack-loss=${value}`)['ack-loss']).toBe(Number(value));
  });

  it.each(['0x1', '1e-2', '0b1', '1.5', '-0.1', 'Infinity', '', ' ', '0.1=2', '5%'])(
    'refuses "%s", naming the value',
    (value) => {
      expect(() => parseFaultSpec(`ack-loss=${value}`)).toThrow(
        `--faults: ack-loss: "${value.trim()}" is not a probability`,
      );
    },
  );

  it('refuses a fault given twice', () => {
    expect(() => parseFaultSpec('timeout=0.1,timeout=0.2')).toThrow(
      '--faults: timeout is given twice',
    );
  });
});

describe('--report is checked before the run', () => {
  it('a missing directory, a directory as the file', () => {
    expect(() => parseCli(['--report', path.join(dir, 'missing', 'report.json')])).toThrow(
      `--report: directory ${path.join(dir, 'missing')} does not exist`,
    );
    expect(() => parseCli(['--report', dir])).toThrow(`--report: ${dir} is a directory`);
    expect(parseCli(['--report', path.join(dir, 'report.json')]).report).toBe(
      path.join(dir, 'report.json'),
    );
  });
});

describe('node local/start.js refuses before starting anything', () => {
  it('--report in a directory that does not exist', () => {
    expectCleanUsageError(
      start('--report', '/nonexistent-billing-dedup/report.json'),
      /^--report: directory \/nonexistent-billing-dedup does not exist\n$/,
    );
  }, 60_000);

  it('--faults ack-loss=0x1', () => {
    expectCleanUsageError(
      start('--faults', 'ack-loss=0x1'),
      /^--faults: ack-loss: "0x1" is not a probability; write a decimal between 0 and 1/,
    );
  }, 60_000);

  it('an empty --input file (nothing to publish is not a clean run)', () => {
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '\n  \n');
    expectCleanUsageError(
      start('--input', empty),
      /^--input: .*empty\.jsonl has no messages \(it is empty or holds only blank lines\)/,
    );
  }, 60_000);

  it('an unknown configuration key given with -c', () => {
    const result = start('-c', 'noSuchKey=1');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/noSuchKey/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toMatch(/starting DynamoDB Local/);
  }, 90_000);
});
