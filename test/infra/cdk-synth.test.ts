import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The environment of a machine without AWS credentials or profile. */
function envWithoutAws(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('AWS_') && !k.startsWith('CDK_')) env[k] = v;
  // Make sure no shared credentials / config file is picked up either.
  env.HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-home-'));
  env.AWS_EC2_METADATA_DISABLED = 'true';
  return env;
}

function cdkSynth(args: string[]) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-cdk-out-'));
  const result = spawnSync(
    'npx',
    ['--no-install', 'cdk', 'synth', '--quiet', '--no-notices', '--output', out, ...args],
    {
      cwd: ROOT,
      env: { ...envWithoutAws(), npm_config_cache: path.join(os.homedir(), '.npm') },
      encoding: 'utf8',
      timeout: 240_000,
    },
  );
  return { ...result, out };
}

describe('npx cdk synth without AWS credentials', () => {
  it('synthesizes both stacks of the default stage (esbuild bundling included)', () => {
    const r = cdkSynth([]);
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    const files = fs.readdirSync(r.out);
    expect(files).toEqual(
      expect.arrayContaining([
        'billing-dedup-dev-stateful.template.json',
        'billing-dedup-dev-stateless.template.json',
      ]),
    );
    // The bundles are CommonJS with the AWS SDK inside (CONSUMER_BUNDLE: the fastest to load).
    const bundles = files
      .filter((f) => f.startsWith('asset.'))
      .map((d) => path.join(r.out, d, 'index.js'));
    // One per function: cost-ledger, budget-alerts, export-planner, export-chunk, reconciliation, archiver.
    expect(bundles).toHaveLength(6);
    for (const b of bundles) {
      const code = fs.readFileSync(b, 'utf8');
      expect(code).toMatch(/module\.exports\s*=/);
      expect(code).not.toMatch(/require\(["']@aws-sdk\/client-/);
      expect(fs.existsSync(`${b}.map`)).toBe(true);
    }
  }, 300_000);

  it('fails with the config message (no stack trace) on a bad stage', () => {
    const r = cdkSynth(['-c', 'stage=Prod_1']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('stage: must be 1-16 characters');
    expect(r.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
  }, 120_000);

  it('fails on a mistyped key of ours instead of ignoring it, while CDK’s own keys pass', () => {
    const r = cdkSynth(['-c', 'maxRecieveCount=3']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('maxRecieveCount: unknown key (did you mean maxReceiveCount?)');
    expect(r.stderr).toMatch(/valid keys: stage, account, region, /);
    expect(r.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
  }, 120_000);
});
