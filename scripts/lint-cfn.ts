/**
 * `npm run lint:cfn`: synthesizes representative configurations of the app and runs cfn-lint
 * (1.x, a Python tool: `pip install cfn-lint`) on every template, with the rules .cfnlintrc.yaml
 * ignores and why. Exit 0 only when cfn-lint reports no error for any of them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { checkDeployLimits } from '../lib/deploy-limits';

const tenants = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `t${String(i).padStart(2, '0')}`,
    publishers: [`arn:aws:iam::123456789012:role/publisher-${i}`],
    ...(i % 2 === 0 ? { maxEventsPerMinute: 1000 } : {}),
  }));

/** The configurations every template shape comes from. */
export const REPRESENTATIVE_CONFIGS: Record<string, Record<string, unknown>> = {
  defaults: {},
  'prod-tenants-exports': {
    stage: 'prod',
    region: 'eu-west-1',
    tenants: tenants(60),
    trustedCostTopic: true,
    costEventsPublishers: ['123456789012'],
    exportSources: tenants(60).map(({ id }) => ({ tenant: id, prefix: `${id}/` })),
    dataExports: [
      { prefix: 't00/', name: 't00-cur2', table: 'cur2' },
      { prefix: 't01/', name: 't01-focus', table: 'focus', format: 'csv', overwrite: true },
    ],
    autoCloseAfterDays: 10,
    opsEmails: ['oncall@example.com'],
  },
  'shared-bucket-standard': {
    stage: 'prod-eu',
    exportBucketName: 'finops-exports',
    exportBucketKeyArn:
      'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    exportSources: [{ tenant: 'acme', prefix: 'prod-eu/acme/' }],
    costStreamKind: 'standard',
    batchSize: 50,
  },
  'azure-and-gcp-acquisitions': {
    exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
    azureExports: [
      {
        tenant: 'acme',
        storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
        container: 'exports',
        exportFolder: 'cost-exports/acme-focus-daily/',
        secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-azure-AbCdEf',
      },
    ],
    gcpBillingExports: [
      {
        tenant: 'acme',
        jobProject: 'acme-billing',
        table: 'acme-billing.billing.gcp_billing_export_v1_012345_6789AB_CDEF01',
        location: 'US',
        secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-gcp-AbCdEf',
      },
    ],
  },
};

function lint(): number {
  const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) {
    console.error(
      'cfn-lint is not installed: `npm run lint:cfn` needs cfn-lint 1.x on PATH (pip install cfn-lint). ' +
        'See README "Prerequisites".',
    );
    return 2;
  }
  let failed = 0;
  for (const [name, context] of Object.entries(REPRESENTATIVE_CONFIGS)) {
    const outdir = mkdtempSync(path.join(tmpdir(), `billing-dedup-cfn-${name}-`));
    try {
      const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], ...context } });
      buildApp(app, { nag: false });
      const assembly = app.synth();
      checkDeployLimits(assembly);
      const templates = assembly.stacks.map((stack) => stack.templateFullPath);
      const result = spawnSync(
        'cfn-lint',
        [
          '--config-file',
          path.join(__dirname, '..', '.cfnlintrc.yaml'),
          '--non-zero-exit-code',
          'error',
          '--format',
          'parseable',
          '--',
          ...templates,
        ],
        { encoding: 'utf8' },
      );
      const status = result.status === 0 ? 'ok' : 'FAIL';
      console.log(`${status}  ${name}: ${templates.map((t) => path.basename(t)).join(', ')}`);
      if (result.status !== 0) {
        failed++;
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }
  return failed === 0 ? 0 : 1;
}

if (require.main === module) process.exit(lint());
