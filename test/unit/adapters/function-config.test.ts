/** The bundled function config (contract/function-config.ts): what lib/ bundles is what the functions read. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTION_CONFIG_FILE_NAME } from '../../../contract/function-config';
import { exportSettings } from '../../../lambda/adapters/export-settings';
import { readFunctionConfig } from '../../../lambda/adapters/function-config';
import { tenantBindings } from '../../../lambda/adapters/settings';

const PATTERN = 'arn:aws:sns:eu-west-1:123456789012:billing-dedup-dev-cost-events-{tenant}.fifo';
const CONFIG = {
  tenants: { acme: { sources: ['aws'] }, globex: {} },
  exportSources: [{ tenant: 'acme', prefix: 'acme/focus/' }],
};

const codeDirectory = (content: string): string => {
  const directory = mkdtempSync(join(tmpdir(), 'function-config-'));
  writeFileSync(join(directory, FUNCTION_CONFIG_FILE_NAME), content);
  return directory;
};

describe('the function config bundled next to the code', () => {
  const env = {
    LAMBDA_TASK_ROOT: codeDirectory(JSON.stringify(CONFIG)),
    FUNCTION_CONFIG_FILE: FUNCTION_CONFIG_FILE_NAME,
    TENANT_BINDINGS: JSON.stringify({ topicArnPattern: PATTERN }),
    EXPORT_BUCKET_NAME: 'exports',
    LEDGER_TABLE_NAME: 'ledger',
  };

  it('gives the cost consumer its tenants, the topic pattern from the environment', () => {
    expect(tenantBindings(env)).toEqual({ topicArnPattern: PATTERN, tenants: CONFIG.tenants });
  });

  it('gives the export functions their sources', () => {
    expect(exportSettings(env).sources).toEqual([
      { tenant: 'acme', bucket: 'exports', prefix: 'acme/focus' },
    ]);
  });

  it('is the same inline (FUNCTION_CONFIG: the local run)', () => {
    expect(readFunctionConfig({ FUNCTION_CONFIG: JSON.stringify(CONFIG) })).toEqual(CONFIG);
  });

  it('a missing file, or one with bad content, fails the init naming it', () => {
    expect(() =>
      readFunctionConfig({ LAMBDA_TASK_ROOT: tmpdir(), FUNCTION_CONFIG_FILE: 'absent.json' }),
    ).toThrow(/FUNCTION_CONFIG_FILE: cannot read .*absent\.json \(ENOENT\)/);
    const bad = { LAMBDA_TASK_ROOT: codeDirectory('{"exportSources":[{"tenant":"A!"}]}') };
    expect(() =>
      readFunctionConfig({ ...bad, FUNCTION_CONFIG_FILE: FUNCTION_CONFIG_FILE_NAME }),
    ).toThrow(/billing-dedup-config\.json: exportSources\[0\]\.tenant/);
    expect(() =>
      tenantBindings({ TENANT_BINDINGS: JSON.stringify({ topicArnPattern: PATTERN }) }),
    ).toThrow(/TENANT_BINDINGS must be .*the tenants here or in the function config/);
  });
});
