import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cli } from './helpers';

describe('argument parsing', () => {
  it('--help lists the commands and exit codes, exit 0', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['publish', 'dlq', 'ledger']) expect(result.stdout).toContain(command);
    expect(result.stdout).toContain(
      'Exit codes: 0 ok, 1 operational error (AWS), 2 usage error, 3 publish',
    );
  });

  it('no command or an unknown one is a usage error (exit 2)', async () => {
    expect((await cli([])).code).toBe(2);
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    expect((await cli(['ledger', '--bogus'])).code).toBe(2);
  });

  it('the launcher works as `npx billing-dedup --help` does', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(__dirname, '../../cli/bin.js'), 'dlq', '--help'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(stdout).toContain('peek');
    expect(stdout).toContain('redrive');
  });
});
