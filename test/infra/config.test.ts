import { readFileSync } from 'fs';
import * as path from 'path';
import {
  CONFIG_KEYS,
  ConfigError,
  DEFAULTS,
  contextFrom,
  isOurContextKey,
  resolveConfig,
} from '../../lib/config';
import { CONFIG_TABLE_HEADER, renderConfigTable } from '../../lib/config-docs';
import { CONFIG_RULES } from '../../lib/config-rules';
import { synth } from './helpers';

const resolve = (values: Record<string, unknown>) => resolveConfig(contextFrom(values));

function problemsOf(values: Record<string, unknown>): string {
  try {
    resolve(values);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config defaults', () => {
  it('match the documented defaults', () => {
    const c = resolve({});
    expect(c).toMatchObject({
      stage: 'dev',
      costStreamKind: 'fifo',
      dedupTtlDays: 35,
      queueRetentionDays: 14,
      dlqRetentionDays: 14,
      functionTimeoutSeconds: 30,
      functionMemoryMb: 512,
      maxReceiveCount: 5,
      batchSize: 10,
      maxBatchingWindowSeconds: 5,
      eventSourceMaxConcurrency: 10,
      inBatchConcurrency: 8,
      logLevel: 'INFO',
      logRetentionDays: 30,
      oldestMessageAgeAlarmSeconds: 900,
      costEventsPublishers: [],
      budgetAlertsPublishers: [],
      notificationEmails: [],
      opsEmails: [],
      deletionProtection: false,
      totalShards: 8,
      lateChargePolicy: 'roll-forward',
      additiveSources: [],
      archiveDelivery: 'spool',
    });
    expect(c.account).toBeUndefined();
    expect(c.region).toBeUndefined();
  });

  it('derives the visibility timeout from timeout and batching window', () => {
    expect(resolve({}).visibilityTimeoutSeconds).toBe(
      6 * DEFAULTS.functionTimeoutSeconds + DEFAULTS.maxBatchingWindowSeconds,
    );
    expect(
      resolve({ functionTimeoutSeconds: '60', maxBatchingWindowSeconds: '0' })
        .visibilityTimeoutSeconds,
    ).toBe(360);
  });

  it('turns deletion protection on outside dev', () => {
    expect(resolve({ stage: 'prod' }).deletionProtection).toBe(true);
    expect(resolve({ stage: 'staging' }).deletionProtection).toBe(true);
  });
});

describe('config parsing', () => {
  it('accepts CLI strings (-c key=value) and normalizes case', () => {
    const c = resolve({
      dedupTtlDays: '40',
      costStreamKind: 'STANDARD',
      archiveDelivery: 'Direct',
      logLevel: 'debug',
      account: '123456789012',
    });
    expect(c).toMatchObject({
      dedupTtlDays: 40,
      costStreamKind: 'standard',
      archiveDelivery: 'direct',
      logLevel: 'DEBUG',
      account: '123456789012',
    });
  });

  it('accepts lists as arrays, JSON strings or comma-separated strings', () => {
    expect(resolve({ notificationEmails: ['a@example.com'] }).notificationEmails).toEqual([
      'a@example.com',
    ]);
    expect(resolve({ opsEmails: '["a@example.com","b@example.com"]' }).opsEmails).toEqual([
      'a@example.com',
      'b@example.com',
    ]);
    expect(
      resolve({
        costEventsPublishers: '111122223333, arn:aws:iam::444455556666:role/billing-export',
      }).costEventsPublishers,
    ).toEqual(['111122223333', 'arn:aws:iam::444455556666:role/billing-export']);
    expect(resolve({ additiveSources: 'metering, gcp' }).additiveSources).toEqual([
      'metering',
      'gcp',
    ]);
  });

  it('applies stages.<stage> overrides under flat keys', () => {
    const stages = { prod: { dedupTtlDays: 60, opsEmails: ['oncall@example.com'] } };
    expect(resolve({ stage: 'prod', stages })).toMatchObject({
      dedupTtlDays: 60,
      opsEmails: ['oncall@example.com'],
    });
    expect(resolve({ stage: 'prod', stages, dedupTtlDays: '45' }).dedupTtlDays).toBe(45);
    expect(resolve({ stage: 'dev', stages }).dedupTtlDays).toBe(35);
  });
});

describe('config validation errors are clear', () => {
  it.each([
    [
      { stage: 'Prod_1' },
      /stage: must be 1-16 characters of lower-case letters, digits and single hyphens.*got "Prod_1"/,
    ],
    [{ stage: 'a-very-long-stage-name' }, /stage: must be 1-16 characters/],
    [{ dedupTtlDays: 'abc' }, /dedupTtlDays: expected a whole number of days, got "abc"/],
    [
      { functionTimeoutSeconds: '12.5' },
      /functionTimeoutSeconds: expected a whole number of seconds, got "12.5"/,
    ],
    [{ queueRetentionDays: 20 }, /queueRetentionDays: must be between 1 and 14 days, got 20/],
    [{ eventSourceMaxConcurrency: 1 }, /eventSourceMaxConcurrency: must be between 2 and 1000/],
    [{ costStreamKind: 'kafka' }, /costStreamKind: must be one of "fifo", "standard", got "kafka"/],
    [
      { archiveDelivery: 'firehose' },
      /archiveDelivery: must be one of "spool", "direct", got "firehose"/,
    ],
    [{ logLevel: 'TRACE' }, /logLevel: must be one of "DEBUG", "INFO", "WARN", "ERROR"/],
    [{ logRetentionDays: 10 }, /logRetentionDays: CloudWatch Logs accepts only 1, 3, 5, 7, 14, 30/],
    [{ account: '1234' }, /account: must be a 12-digit AWS account ID, got "1234"/],
    [{ region: 'mars' }, /region: must be an AWS region name/],
    [
      { costEventsPublishers: 'bob' },
      /costEventsPublishers: "bob" is neither a 12-digit account ID nor an IAM role ARN/,
    ],
    [{ budgetAlertsPublishers: '[1,2]' }, /budgetAlertsPublishers: expected a list of strings/],
    [
      { notificationEmails: 'not-an-email' },
      /notificationEmails: "not-an-email" is not an e-mail address/,
    ],
    [{ opsEmails: '[oops' }, /opsEmails: not valid JSON/],
    [
      { batchSize: 20, maxBatchingWindowSeconds: 0, costStreamKind: 'standard' },
      /batchSize: 20 > 10 requires maxBatchingWindowSeconds ≥ 1/,
    ],
    [{ batchSize: 20 }, /batchSize: FIFO queues accept at most 10 records per batch/],
    [{ totalShards: 33 }, /totalShards: must be between 1 and 32 shards, got 33/],
    [{ additiveSources: 'AWS Cloud' }, /additiveSources: "AWS Cloud" is not a provider slug/],
    [
      { lateChargePolicy: 'ignore' },
      /lateChargePolicy: must be one of "roll-forward", "reject", got "ignore"/,
    ],
    [{ stages: 'prod' }, /stages: expected an object keyed by stage name/],
    [{ stage: 'prod', stages: { prod: { dedupTTL: 3 } } }, /stages\.prod\.dedupTTL: unknown key/],
  ])('%j', (values, message) => {
    const text = problemsOf(values);
    expect(text).toMatch(message);
    expect(text).toMatch(/see docs\/infrastructure\.md/);
  });

  it('reports every problem at once', () => {
    const text = problemsOf({ stage: 'BAD', dedupTtlDays: 'x', logLevel: 'loud' });
    expect(text).toMatch(/3 problems/);
    expect(text).toMatch(/stage:/);
    expect(text).toMatch(/dedupTtlDays:/);
    expect(text).toMatch(/logLevel:/);
  });
});

describe('unknown context keys of ours fail with the list of valid keys', () => {
  it('a mistyped flat key is an error naming the likely key and every valid one', () => {
    const text = problemsOf({ maxRecieveCount: '3' });
    expect(text).toMatch(/maxRecieveCount: unknown key \(did you mean maxReceiveCount\?\)/);
    expect(text).toMatch(new RegExp(`valid keys: ${CONFIG_KEYS.join(', ')}, stages`));
  });

  it('keys of CDK and its tools are not ours and are left alone', () => {
    expect(isOurContextKey('maxReceiveCount')).toBe(true);
    for (const key of [
      '@aws-cdk/core:defaultCrossStackReferences',
      'aws:cdk:bundling-stacks',
      'aws:cdk:enable-path-metadata',
      'availability-zones:account=123456789012:region=eu-west-1',
      'acknowledged-issue-numbers',
      'cdk-nag.verbose',
      'Stack/Path',
    ])
      expect(isOurContextKey(key)).toBe(false);
    expect(() =>
      resolve({
        '@aws-cdk/core:defaultCrossStackReferences': 'strong',
        'aws:cdk:bundling-stacks': [],
        'acknowledged-issue-numbers': [32775],
      }),
    ).not.toThrow();
  });

  it('an unknown key inside any stages.<name> entry is an error, not only the deployed stage', () => {
    const text = problemsOf({ stage: 'dev', stages: { prod: { opsEmail: ['a@example.com'] } } });
    expect(text).toMatch(/stages\.prod\.opsEmail: unknown key \(did you mean opsEmails\?\)/);
    expect(text).not.toMatch(/valid keys: stage,/);
  });

  it('all problems are reported together with the unknown keys', () => {
    const text = problemsOf({ batchsize: 5, dedupTtlDays: 'x' });
    expect(text).toMatch(/2 problems/);
    expect(text).toMatch(/batchsize: unknown key \(did you mean batchSize\?\)/);
    expect(text).toMatch(/dedupTtlDays: expected a whole number/);
  });

  it('the app reads the keys of its whole context (cdk.json, -c): a typo fails synth', () => {
    expect(() => synth({ maxRecieveCount: '3' })).toThrow(
      /maxRecieveCount: unknown key \(did you mean maxReceiveCount\?\)/,
    );
  });
});

describe('redriveOperators', () => {
  it('accepts role ARNs, with * wildcards', () => {
    expect(
      resolve({
        redriveOperators:
          'arn:aws:iam::123456789012:role/ops, arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/*/AWSReservedSSO_Ops_*',
      }).redriveOperators,
    ).toEqual([
      'arn:aws:iam::123456789012:role/ops',
      'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/*/AWSReservedSSO_Ops_*',
    ]);
  });

  it('refuses anything that is not a role ARN (an account id would let every principal in)', () => {
    expect(problemsOf({ redriveOperators: '123456789012' })).toMatch(
      /redriveOperators: "123456789012" is not an IAM role ARN/,
    );
  });
});

describe('reconciliationRoleArn / reconciliationExternalId', () => {
  const role = 'arn:aws:iam::999999999999:role/billing-dedup-reconciliation-reader';

  it('are unset by default, and accepted together', () => {
    expect(resolve({})).toMatchObject({
      reconciliationRoleArn: undefined,
      reconciliationExternalId: undefined,
    });
    expect(
      resolve({ reconciliationRoleArn: role, reconciliationExternalId: 'a1b2-c3d4' }),
    ).toMatchObject({ reconciliationRoleArn: role, reconciliationExternalId: 'a1b2-c3d4' });
  });

  it.each([
    [{ reconciliationRoleArn: '999999999999' }, /reconciliationRoleArn: must be an IAM role ARN/],
    [
      { reconciliationRoleArn: role },
      /reconciliationRoleArn: .*set reconciliationExternalId to that value/,
    ],
    [
      { reconciliationExternalId: 'a1b2-c3d4' },
      /reconciliationExternalId: is used only to assume reconciliationRoleArn/,
    ],
    [
      { reconciliationRoleArn: role, reconciliationExternalId: 'has space' },
      /reconciliationExternalId: must be an STS ExternalId/,
    ],
    [
      { reconciliationRoleArn: role, reconciliationExternalId: 'x' },
      /reconciliationExternalId: must be an STS ExternalId/,
    ],
  ])('refuses %j', (values, message) => {
    expect(problemsOf(values)).toMatch(message);
  });
});

describe('the rule table is the single source of keys, defaults and docs', () => {
  it('every key has a rule; the defaults object is derived from it', () => {
    expect(Object.keys(CONFIG_RULES)).toEqual([...CONFIG_KEYS]);
    const derived = ['visibilityTimeoutSeconds', 'exportVersionRetentionDays'];
    for (const key of derived) expect(DEFAULTS).not.toHaveProperty(key);
    expect(Object.keys(DEFAULTS).sort()).toEqual(
      CONFIG_KEYS.filter((k) => !derived.includes(k)).sort(),
    );
  });

  it('docs/infrastructure.md configuration table equals the rule table', () => {
    const page = readFileSync(
      path.join(__dirname, '..', '..', 'docs', 'infrastructure.md'),
      'utf8',
    );
    const section = page.slice(page.indexOf('## Configuration'), page.indexOf('### Invariants'));
    const cells = (line: string) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
    const table = section
      .split('\n')
      .filter((line) => line.startsWith('| `') || line.startsWith('| key'));
    const expected = renderConfigTable()
      .split('\n')
      .filter((line) => !line.startsWith('| ---'));
    expect(table.map(cells)).toEqual(expected.map(cells));
    expect(CONFIG_TABLE_HEADER).toEqual(['key', 'default', 'accepted', 'meaning']);
  });
});

describe('gcpBillingExports', () => {
  const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-gcp-AbCdEf';
  const TABLE = 'acme-billing.billing.gcp_billing_export_v1_012345_6789AB_CDEF01';
  const entry = {
    tenant: 'acme',
    jobProject: 'acme-billing',
    table: TABLE,
    location: 'US',
    secretArn: SECRET,
  };
  const exportSources = [
    { tenant: 'acme', prefix: 'acme/' },
    { tenant: 'globex', prefix: 'globex/' },
  ];
  const withEntries = (...entries: unknown[]) => ({ exportSources, gcpBillingExports: entries });

  it('is off by default', () => {
    expect(resolve({}).gcpBillingExports).toEqual([]);
  });

  it('accepts an entry (JSON text from -c too), defaulting schedule and export name', () => {
    expect(
      resolve({ exportSources, gcpBillingExports: JSON.stringify([entry]) }).gcpBillingExports,
    ).toEqual([{ ...entry, exportName: 'gcp-billing', schedule: 'rate(6 hours)' }]);
    const detailed = {
      ...entry,
      table: 'acme-billing.billing.gcp_billing_export_resource_v1_012345_6789AB_CDEF01',
      location: 'europe-west1',
      prefix: 'acme/gcp/',
      exportName: 'detailed',
      schedule: 'cron(0 */4 * * ? *)',
    };
    expect(resolve(withEntries(detailed)).gcpBillingExports).toEqual([detailed]);
  });

  it.each([
    [
      'a table id without its project',
      { ...entry, table: 'billing.gcp_billing_export_v1_0' },
      'gcpBillingExports[0].table must be the billing export table as <project>.<dataset>.<table>',
    ],
    [
      'a table that is not the standard or detailed export',
      { ...entry, table: 'acme-billing.billing.cloud_pricing_export' },
      'gcpBillingExports[0].table must name the standard (gcp_billing_export_v1_<billing account>) or detailed',
    ],
    [
      'a project id that is not one',
      { ...entry, jobProject: 'Acme Billing' },
      'gcpBillingExports[0].jobProject must be the id of the project the query jobs run in',
    ],
    [
      'a location that is not BigQuery’s',
      { ...entry, location: 'Frankfurt' },
      "gcpBillingExports[0].location must be the billing dataset's location",
    ],
    [
      'a secret name instead of its ARN',
      { ...entry, secretArn: 'acme-gcp' },
      'gcpBillingExports[0].secretArn must be the complete Secrets Manager ARN',
    ],
    [
      'a schedule that is not an expression',
      { ...entry, schedule: 'hourly' },
      'gcpBillingExports[0].schedule must be an EventBridge Scheduler expression',
    ],
    [
      'an unknown field',
      { ...entry, dataset: 'billing' },
      'gcpBillingExports[0].dataset is not a known field',
    ],
  ])('refuses %s, naming the fix', (_case, bad, message) => {
    expect(problemsOf(withEntries(bad))).toContain(message);
  });

  it.each([
    [
      'a tenant without an export prefix',
      { exportSources, gcpBillingExports: [{ ...entry, tenant: 'initech' }] },
      'gcpBillingExports[0].tenant: tenant "initech" has no export prefix; the copies land under it, so add {"tenant": "initech", "prefix": "initech/"} to exportSources',
    ],
    [
      'a prefix outside the tenant’s',
      withEntries({ ...entry, prefix: 'globex/gcp/' }),
      'gcpBillingExports[0].prefix: "globex/gcp/" is not one of, or inside one of, tenant "acme"\'s exportSources prefixes ("acme/")',
    ],
    [
      'a tenant not in tenants',
      { ...withEntries(entry), tenants: [{ id: 'globex', publishers: ['111122223333'] }] },
      'gcpBillingExports[0].tenant: "acme" is not one of tenants[].id (globex)',
    ],
    [
      'two schedules for one tenant',
      withEntries(entry, {
        ...entry,
        table: `${TABLE}2`,
        exportName: 'two',
        schedule: 'rate(1 hour)',
      }),
      'gcpBillingExports[0].schedule: tenant "acme" has GCP billing exports on "rate(6 hours)" and "rate(1 hour)"',
    ],
    [
      'one table twice',
      withEntries(entry, { ...entry, tenant: 'globex' }),
      `gcpBillingExports[1] names the table ${TABLE} again`,
    ],
    [
      'two tables into one export folder',
      withEntries(entry, { ...entry, table: `${TABLE}2` }),
      'gcpBillingExports[1].exportName: "acme/gcp-billing/" is written by gcpBillingExports[0] too',
    ],
  ])('refuses %s, naming the fix', (_case, context, message) => {
    expect(problemsOf(context)).toContain(message);
  });
});
