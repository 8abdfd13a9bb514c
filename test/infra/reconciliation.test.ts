import { Match } from 'aws-cdk-lib/assertions';
import { resourcesOfType, synth } from './helpers';

const reconciliationFunctions = (template: ReturnType<typeof synth>['statelessTemplate']) =>
  Object.values(resourcesOfType(template, 'AWS::Lambda::Function')).filter((fn) =>
    String(fn.Properties?.FunctionName).endsWith('-reconciliation'),
  );

/** The statements of the reconciliation function's role policy. */
const functionStatements = (template: ReturnType<typeof synth>['statelessTemplate']) => {
  const policy = Object.entries(resourcesOfType(template, 'AWS::IAM::Policy')).find(([id]) =>
    id.startsWith('ReconciliationFunctionRole'),
  )?.[1];
  return (policy?.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
};

describe('nightly reconciliation (config reconciliation*)', () => {
  it('is on by default: a Scheduler schedule at 04:30 UTC invokes the function with its settings', () => {
    const { statelessTemplate: t } = synth();
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'billing-dedup-dev-reconciliation-nightly',
      ScheduleExpression: 'cron(30 4 * * ? *)',
      State: 'ENABLED',
      Target: Match.objectLike({
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21600 },
      }),
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-reconciliation',
      Environment: {
        Variables: Match.objectLike({
          RECONCILIATION_TOLERANCE_PERCENT: '0.1',
          RECONCILIATION_FLOOR: '0.01',
          RECONCILIATION_LOOKBACK_DAYS: '45',
          LEDGER_TABLE_NAME: Match.anyValue(),
          DEDUP_TABLE_NAME: Match.anyValue(),
          NOTIFICATIONS_TOPIC_ARN: Match.anyValue(),
        }),
      },
    });
  });

  it('takes the configured time, tolerance, floor, look-back and payer tenant', () => {
    const { statelessTemplate: t } = synth({
      reconciliationTimeUtc: '23:05',
      reconciliationTolerancePercent: '0.5',
      reconciliationFloor: '1',
      reconciliationLookbackDays: 10,
      reconciliationPayerTenant: 'acme',
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(5 23 * * ? *)',
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-reconciliation',
      Environment: {
        Variables: Match.objectLike({
          RECONCILIATION_TOLERANCE_PERCENT: '0.5',
          RECONCILIATION_FLOOR: '1',
          RECONCILIATION_LOOKBACK_DAYS: '10',
          RECONCILIATION_PAYER_TENANT: 'acme',
        }),
      },
    });
  });

  it('takes the provider from config: Cost Explorer by default, or the invoices of the listed billing accounts', () => {
    const fnOf = (t: ReturnType<typeof synth>['statelessTemplate']) =>
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: 'billing-dedup-dev-reconciliation',
        Environment: {
          Variables: Match.objectLike({ RECONCILIATION_PROVIDER: 'cost-explorer' }),
        },
      });
    fnOf(synth().statelessTemplate);
    synth({
      reconciliationProvider: 'invoicing',
      reconciliationInvoiceAccounts: '123456789012,210987654321',
    }).statelessTemplate.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-reconciliation',
      Environment: {
        Variables: Match.objectLike({
          RECONCILIATION_PROVIDER: 'invoicing',
          RECONCILIATION_INVOICE_ACCOUNTS: '123456789012,210987654321',
        }),
      },
    });
    expect(() => synth({ reconciliationProvider: 'invoicing' })).toThrow(
      'reconciliationProvider: "invoicing" sums the invoices of the billing accounts in reconciliationInvoiceAccounts',
    );
  });

  it('is off with reconciliation=false: no schedule, no function', () => {
    const { statelessTemplate: t } = synth({ reconciliation: false });
    t.resourceCountIs('AWS::Scheduler::Schedule', 0);
    expect(reconciliationFunctions(t)).toEqual([]);
  });

  it.each([
    [{ reconciliationTimeUtc: '24:00' }, /reconciliationTimeUtc/],
    [{ reconciliationTolerancePercent: '-1' }, /reconciliationTolerancePercent/],
    [{ reconciliationLookbackDays: 0 }, /reconciliationLookbackDays/],
    [{ reconciliationPayerTenant: 'Not#A-Slug' }, /reconciliationPayerTenant/],
  ])('refuses %p at synth', (config, message) => {
    expect(() => synth(config)).toThrow(message);
  });

  it('grants exactly Cost Explorer, Invoicing, the ledger scan, RECON# writes and its own claims', () => {
    const { statelessTemplate: t } = synth();
    const statements = functionStatements(t);
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid, s]));
    expect(bySid.ReadProviderTotals).toMatchObject({
      Action: ['ce:GetCostAndUsage', 'invoicing:ListInvoiceSummaries'],
      Resource: '*',
    });
    expect(bySid.ReadLedgerTotals).toMatchObject({ Action: 'dynamodb:Scan' });
    expect(bySid.WriteReconciliationRecords).toMatchObject({
      Action: 'dynamodb:BatchWriteItem',
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RECON#*'] } },
    });
    expect(bySid.DriftNotificationClaims).toMatchObject({
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['reconciliation#*'] } },
    });
    expect(bySid.PublishDriftNotifications).toMatchObject({ Action: 'sns:Publish' });
    // Nothing else: these, and the log group's statement (no Sid).
    expect(Object.keys(bySid).sort()).toEqual(
      [
        'DriftNotificationClaims',
        'PublishDriftNotifications',
        'ReadLedgerTotals',
        'ReadProviderTotals',
        'UseMessagingKeyThroughSns',
        'UseTableKeyThroughDynamoDb',
        'WriteReconciliationRecords',
        'undefined',
      ].sort(),
    );
  });

  it('with a payer role: may assume exactly that role, and no longer asks the provider itself', () => {
    const role = 'arn:aws:iam::999999999999:role/billing-dedup-reconciliation-reader';
    const { statelessTemplate: t } = synth({
      reconciliationRoleArn: role,
      reconciliationExternalId: 'a1b2-c3d4',
    });
    const [fn] = reconciliationFunctions(t);
    expect(fn.Properties?.Environment).toMatchObject({
      Variables: { RECONCILIATION_ROLE_ARN: role, RECONCILIATION_EXTERNAL_ID: 'a1b2-c3d4' },
    });
    const statements = functionStatements(t);
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid, s]));
    expect(bySid.AssumePayerRole).toEqual({
      Sid: 'AssumePayerRole',
      Effect: 'Allow',
      Action: 'sts:AssumeRole',
      Resource: role,
    });
    expect(bySid.ReadProviderTotals).toBeUndefined();
    expect(statements.filter((s) => JSON.stringify(s.Action).includes('sts:'))).toHaveLength(1);
  });

  it('alarms on the paging metric with the runbook, to the ops topic, and shows on the dashboard', () => {
    const { statelessTemplate: t } = synth();
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-reconciliation-drift',
      MetricName: 'reconciliationPaging',
      Namespace: 'BillingDedup',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp(
        'Runbook.*billing-dedup reconcile --period.*reconciliation-incomplete',
      ),
      AlarmActions: [Match.anyValue()],
    });
    const body = JSON.stringify(
      Object.values(resourcesOfType(t, 'AWS::CloudWatch::Dashboard'))[0].Properties?.DashboardBody,
    );
    expect(body).toContain('reconciliation: records by status');
    expect(body).toContain('reconciliationLargestDifference');
    expect(body).toContain('reconciliationIncomplete');
    expect(body).toContain('ReconciliationDrift');
  });
});
