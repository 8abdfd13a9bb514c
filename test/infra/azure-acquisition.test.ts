import { Match } from 'aws-cdk-lib/assertions';
import { ConfigError, contextFrom, resolveConfig } from '../../lib/config';
import { actionsOf, fnByName, resourcesOfType, statementsOf, synth } from './helpers';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-azure-AbCdEf';
const GLOBEX_SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:globex-azure-Zz9Yy8';
const acme = {
  tenant: 'acme',
  storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
  container: 'exports',
  exportFolder: 'cost-exports/acme-focus-daily/',
  secretArn: SECRET,
};
const CONTEXT = {
  exportSources: [
    { tenant: 'acme', prefix: 'acme/' },
    { tenant: 'globex', prefix: 'exports/globex/' },
    { tenant: 'initech', prefix: 'initech/' },
  ],
  azureExports: [
    acme,
    { ...acme, container: 'more' },
    {
      ...acme,
      tenant: 'globex',
      storageAccountUrl: 'https://globexcosts.blob.core.windows.net',
      secretArn: GLOBEX_SECRET,
      schedule: 'cron(15 */4 * * ? *)',
    },
  ],
};

const problemOf = (context: Record<string, unknown>): string => {
  try {
    resolveConfig(contextFrom({ ...CONTEXT, ...context }));
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

describe('azureExports: the stage copies Azure exports', () => {
  it('is off without azureExports: no function, no schedule', () => {
    const { statelessTemplate: t } = synth({ exportSources: CONTEXT.exportSources });
    t.resourceCountIs('AWS::Scheduler::ScheduleGroup', 0);
    expect(
      Object.values(resourcesOfType(t, 'AWS::Lambda::Function')).filter((fn) =>
        String(fn.Properties?.FunctionName).endsWith('-export-azure'),
      ),
    ).toHaveLength(0);
  });

  describe('configured', () => {
    const { statelessTemplate: t } = synth(CONTEXT);
    const fn = fnByName(t, 'billing-dedup-dev-export-azure');
    const roleId = (fn.resource.Properties?.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const statements = Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))
      .filter((policy) =>
        (policy.Properties?.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
      )
      .flatMap((policy) => statementsOf(policy));
    const bySid = (sid: string) => statements.find((s) => s.Sid === sid);

    it('schedules one pass per tenant, sending the tenant, on its schedule (default every 6 hours)', () => {
      t.hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
        Name: 'billing-dedup-dev-export-azure',
      });
      t.resourceCountIs('AWS::Scheduler::Schedule', 3); // acme, globex, the nightly reconciliation
      t.hasResourceProperties('AWS::Scheduler::Schedule', {
        Name: 'acme',
        ScheduleExpression: 'rate(6 hours)',
        State: 'ENABLED',
        Target: Match.objectLike({ Input: '{"tenant":"acme"}' }),
      });
      t.hasResourceProperties('AWS::Scheduler::Schedule', {
        Name: 'globex',
        ScheduleExpression: 'cron(15 */4 * * ? *)',
        Target: Match.objectLike({ Input: '{"tenant":"globex"}' }),
      });
    });

    it('hands the function every source with its resolved prefix', () => {
      const variables = (
        fn.resource.Properties?.Environment as { Variables: Record<string, string> }
      ).Variables;
      expect(JSON.parse(variables.AZURE_EXPORT_SOURCES)).toEqual([
        { ...acme, prefix: 'acme' },
        { ...acme, container: 'more', prefix: 'acme' },
        {
          ...acme,
          tenant: 'globex',
          storageAccountUrl: 'https://globexcosts.blob.core.windows.net',
          secretArn: GLOBEX_SECRET,
          prefix: 'exports/globex',
        },
      ]);
    });

    it('outputs the sources for `billing-dedup acquire`', () => {
      t.hasOutput('AzureExportSources', {
        Value: JSON.stringify([
          { ...acme, prefix: 'acme' },
          { ...acme, container: 'more', prefix: 'acme' },
          {
            ...acme,
            tenant: 'globex',
            storageAccountUrl: 'https://globexcosts.blob.core.windows.net',
            secretArn: GLOBEX_SECRET,
            prefix: 'exports/globex',
          },
        ]),
      });
    });

    it('reads only the named secrets', () => {
      const reads = statements.filter((s) =>
        actionsOf(s).some((a) => a.startsWith('secretsmanager:')),
      );
      expect(reads).toEqual([
        expect.objectContaining({
          Action: 'secretsmanager:GetSecretValue',
          Resource: [SECRET, GLOBEX_SECRET],
        }),
      ]);
    });

    it('writes only under the prefixes of tenants with an Azure export', () => {
      const write = bySid('WriteAzureCopies');
      expect(actionsOf(write!)).toEqual(['s3:PutObject', 's3:GetObject']);
      expect(JSON.stringify(write!.Resource)).toMatch(/\/acme\/\*"/);
      expect(JSON.stringify(write!.Resource)).toMatch(/\/exports\/globex\/\*"/);
      expect(JSON.stringify(write!.Resource)).not.toMatch(/initech/);
      expect(bySid('ListAzureCopies')!.Condition).toEqual({
        StringLike: { 's3:prefix': ['acme/*', 'exports/globex/*'] },
      });
      expect(statements.filter((s) => actionsOf(s).includes('s3:PutObject'))).toHaveLength(1);
    });

    it('reads and moves only the configured sources’ cursor items', () => {
      const cursor = bySid('AzureCopyCursors');
      expect(actionsOf(cursor!)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
      expect(cursor!.Condition).toEqual({
        'ForAllValues:StringEquals': {
          'dynamodb:LeadingKeys': [
            'ACQUIRE#azure#acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily',
            'ACQUIRE#azure#acmecosts.blob.core.windows.net/more/cost-exports/acme-focus-daily',
            'ACQUIRE#azure#globexcosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily',
          ],
        },
      });
    });

    it('pages the ops topic when a pass fails', () => {
      t.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: 'billing-dedup-dev-export-azure-errors',
        MetricName: 'Errors',
        Threshold: 1,
      });
    });
  });

  describe('refused at synth, naming the fix', () => {
    it.each([
      [
        'a secret ARN that is not an ARN',
        { azureExports: [{ ...acme, secretArn: 'acme-azure' }] },
        'azureExports[0].secretArn must be the complete Secrets Manager ARN',
      ],
      [
        'a secret ARN without the 6 characters Secrets Manager appends',
        {
          azureExports: [
            { ...acme, secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme' },
          ],
        },
        'as `aws secretsmanager describe-secret --secret-id <name>` prints it',
      ],
      [
        'an Azure export of a tenant with no export prefix',
        { azureExports: [{ ...acme, tenant: 'umbrella' }] },
        'azureExports[0].tenant: tenant "umbrella" has no export prefix; the copies land under it, so add {"tenant": "umbrella", "prefix": "umbrella/"} to exportSources',
      ],
      [
        'a prefix of another tenant',
        { azureExports: [{ ...acme, prefix: 'initech/' }] },
        'azureExports[0].prefix: "initech/" is not one of tenant "acme"\'s exportSources prefixes ("acme/")',
      ],
      [
        'a tenant with several prefixes and none named',
        {
          exportSources: [...CONTEXT.exportSources, { tenant: 'acme', prefix: 'acme-2/' }],
          azureExports: [acme],
        },
        'azureExports[0].prefix: tenant "acme" has several export prefixes ("acme/", "acme-2/"); name the one the copies land under',
      ],
      [
        'two schedules for one tenant',
        { azureExports: [acme, { ...acme, container: 'more', schedule: 'rate(1 hour)' }] },
        'azureExports[0].schedule: tenant "acme" has Azure exports on "rate(6 hours)" and "rate(1 hour)"',
      ],
      [
        'a schedule that is not an expression',
        { azureExports: [{ ...acme, schedule: 'every 6 hours' }] },
        'azureExports[0].schedule must be an EventBridge Scheduler expression such as "rate(6 hours)"',
      ],
      [
        'a storage account given by name only',
        { azureExports: [{ ...acme, storageAccountUrl: 'acmecosts' }] },
        "azureExports[0].storageAccountUrl must be the storage account's blob endpoint, https://<account>.blob.core.windows.net",
      ],
      [
        'the same export twice',
        { azureExports: [acme, acme] },
        'names the export folder https://acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily/ again',
      ],
    ])('%s', (_case, context, message) => {
      expect(problemOf(context)).toContain(message);
    });
  });
});
