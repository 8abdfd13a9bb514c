/**
 * The GCP billing acquisition construct (config gcpBillingExports): built alone on the construct
 * fixture for its resources and IAM, and in the app for on/off and the stack output.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { gcpAcquisitionSpec } from '../../lib/constructs/gcp-acquisition';
import {
  prefixedScheduleName,
  ScheduledAcquisition,
} from '../../lib/constructs/scheduled-acquisition';
import {
  constructFixture,
  DATA_KEY_ARN,
  LEDGER_TABLE_ARN,
  MESSAGING_KEY_ARN,
  OPERATOR_ROLE_ARN,
} from './construct-fixture';
import {
  actionsOf,
  dlqOf,
  fnByName,
  queueByName,
  resourcesOfType,
  statementsOf,
  synth,
  type Statement,
} from './helpers';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-gcp-AbCdEf';
const GLOBEX_SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:globex-gcp-Zz9Yy8';
const EXPORT_KEY_ARN =
  'arn:aws:kms:eu-west-1:111122223333:key/00000000-0000-0000-0000-0000000000ex';
const STANDARD = 'acme-billing.billing_export.gcp_billing_export_v1_012345_6789AB_CDEF01';
const DETAILED = 'acme-billing.billing_export.gcp_billing_export_resource_v1_012345_6789AB_CDEF01';
const GLOBEX = 'globex-fin.billing.gcp_billing_export_v1_ABCDEF_012345_6789AB';
const acme = {
  tenant: 'acme',
  jobProject: 'acme-billing',
  table: STANDARD,
  location: 'US',
  secretArn: SECRET,
};
export const GCP_CONTEXT = {
  exportSources: [
    { tenant: 'acme', prefix: 'acme/' },
    { tenant: 'globex', prefix: 'exports/globex/' },
    { tenant: 'initech', prefix: 'initech/' },
  ],
  gcpBillingExports: [
    acme,
    { ...acme, table: DETAILED, exportName: 'gcp-detailed' },
    {
      tenant: 'globex',
      jobProject: 'globex-fin',
      table: GLOBEX,
      location: 'europe-west1',
      secretArn: GLOBEX_SECRET,
      prefix: 'exports/globex/gcp/',
      schedule: 'cron(15 */4 * * ? *)',
    },
  ],
};

const build = (context: Record<string, unknown> = GCP_CONTEXT) => {
  const fixture = constructFixture(context);
  const opsTopic = new sns.Topic(fixture.stack, 'Ops');
  const acquisition = new ScheduledAcquisition(fixture.stack, 'GcpAcquisition', {
    config: fixture.config,
    ledgerTable: fixture.ledgerTable,
    dataKeyArn: DATA_KEY_ARN,
    exportBucketName: 'exports-bucket',
    exportKeyArn: EXPORT_KEY_ARN,
    logRetention: logs.RetentionDays.ONE_MONTH,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    logLevel: 'INFO',
    messagingKey: fixture.messagingKey,
    redriveOperatorArns: [OPERATOR_ROLE_ARN],
    opsTopic,
    spec: gcpAcquisitionSpec(fixture.config),
  });
  return { template: Template.fromStack(fixture.stack), acquisition };
};

const functionStatements = (template: Template): Statement[] => {
  const fn = Object.values(resourcesOfType(template, 'AWS::Lambda::Function')).find(
    (f) => f.Properties?.FunctionName === 'billing-dedup-dev-export-gcp',
  );
  const roleId = (fn?.Properties?.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) =>
      (policy.Properties?.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    )
    .flatMap((policy) => statementsOf(policy));
};

describe('gcpBillingExports: the stage reads GCP billing export tables', () => {
  const { template: t } = build();
  const statements = functionStatements(t);
  const bySid = (sid: string) => statements.find((s) => s.Sid === sid);

  it('is one function, one schedule group with a schedule per tenant, a scheduler role and an alarm', () => {
    t.resourceCountIs('AWS::Lambda::Function', 1);
    t.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    t.resourceCountIs('AWS::Scheduler::Schedule', 2);
    t.resourceCountIs('AWS::IAM::Role', 2);
    t.resourceCountIs('AWS::CloudWatch::Alarm', 2);
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-export-gcp',
      Timeout: 900,
      MemorySize: 512,
    });
    t.hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
      Name: 'billing-dedup-dev-export-gcp',
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'gcp-acme',
      ScheduleExpression: 'rate(6 hours)',
      Target: Match.objectLike({
        Input: '{"tenant":"acme"}',
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 3600 },
      }),
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'gcp-globex',
      ScheduleExpression: 'cron(15 */4 * * ? *)',
      Target: Match.objectLike({ Input: '{"tenant":"globex"}' }),
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-export-gcp-errors',
      MetricName: 'Errors',
      Threshold: 1,
      AlarmActions: Match.anyValue(),
      OKActions: Match.anyValue(),
    });
  });

  it('hands the function every source with its resolved prefix and export name', () => {
    const fn = Object.values(resourcesOfType(t, 'AWS::Lambda::Function'))[0];
    const variables = (fn.Properties?.Environment as { Variables: Record<string, string> })
      .Variables;
    expect(JSON.parse(variables.GCP_BILLING_SOURCES)).toEqual([
      { ...acme, prefix: 'acme', exportName: 'gcp-billing' },
      { ...acme, table: DETAILED, prefix: 'acme', exportName: 'gcp-detailed' },
      {
        tenant: 'globex',
        jobProject: 'globex-fin',
        table: GLOBEX,
        location: 'europe-west1',
        secretArn: GLOBEX_SECRET,
        prefix: 'exports/globex/gcp',
        exportName: 'gcp-billing',
      },
    ]);
  });

  it('grants exactly these statements', () => {
    expect(statements.map((s) => s.Sid ?? actionsOf(s).join(' '))).toEqual([
      'logs:CreateLogStream logs:PutLogEvents',
      'ReadGcpServiceAccountKeys',
      'GcpBillingCursors',
      'UseTableKeyThroughDynamoDb',
      'WriteGcpBillingFiles',
      'ListGcpBillingFiles',
      'EncryptExportObjectsThroughS3',
      // The step queue: the event source's grant (receive, delete, the key to decrypt), then ours.
      'sqs:ReceiveMessage sqs:ChangeMessageVisibility sqs:GetQueueUrl sqs:DeleteMessage sqs:GetQueueAttributes',
      'kms:Decrypt',
      'SendOwnAcquisitionSteps',
      'EncryptAcquisitionSteps',
    ]);
  });

  it('reads only the named secrets', () => {
    expect(bySid('ReadGcpServiceAccountKeys')).toEqual(
      expect.objectContaining({
        Action: 'secretsmanager:GetSecretValue',
        Resource: [SECRET, GLOBEX_SECRET],
      }),
    );
  });

  it('reads and writes only the sources’ cursor items', () => {
    const cursor = bySid('GcpBillingCursors');
    expect(actionsOf(cursor!)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(cursor!.Resource).toBe(LEDGER_TABLE_ARN);
    expect(cursor!.Condition).toEqual({
      'ForAllValues:StringEquals': {
        'dynamodb:LeadingKeys': [
          `ACQUIRE#gcp#${STANDARD}`,
          `ACQUIRE#gcp#${DETAILED}`,
          `ACQUIRE#gcp#${GLOBEX}`,
        ],
      },
    });
  });

  it("writes only under each source's export folder", () => {
    const write = bySid('WriteGcpBillingFiles');
    expect(actionsOf(write!)).toEqual(['s3:PutObject', 's3:GetObject']);
    expect(JSON.stringify(write!.Resource)).toBe(
      JSON.stringify(
        ['acme/gcp-billing/', 'acme/gcp-detailed/', 'exports/globex/gcp/gcp-billing/'].map(
          (folder) => ({
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, `:s3:::exports-bucket/${folder}*`],
            ],
          }),
        ),
      ),
    );
    expect(bySid('ListGcpBillingFiles')!.Condition).toEqual({
      StringLike: {
        's3:prefix': [
          'acme/gcp-billing/*',
          'acme/gcp-detailed/*',
          'exports/globex/gcp/gcp-billing/*',
        ],
      },
    });
    expect(statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')))).toHaveLength(2);
  });

  it('uses the export key only through S3', () => {
    expect(bySid('EncryptExportObjectsThroughS3')).toEqual(
      expect.objectContaining({
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: EXPORT_KEY_ARN,
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
          },
        },
      }),
    );
  });

  it('lets the scheduler role invoke only this function', () => {
    const schedulerPolicies = Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))
      .flatMap((policy) => statementsOf(policy))
      .filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    expect(schedulerPolicies).toEqual([
      expect.objectContaining({
        Sid: 'InvokeGcpAcquisition',
        Action: 'lambda:InvokeFunction',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^GcpAcquisitionFunction/), 'Arn'] },
      }),
    ]);
  });
});

describe('the step queue (a pass continued through SQS)', () => {
  const { template: t } = build();
  const QUEUE = 'billing-dedup-dev-export-gcp-steps';
  const queue = queueByName(t, QUEUE);
  const dlq = dlqOf(t, QUEUE);
  const policyOf = (queueId: string) =>
    Object.values(resourcesOfType(t, 'AWS::SQS::QueuePolicy'))
      .filter((p) => (p.Properties?.Queues as { Ref: string }[]).some((q) => q.Ref === queueId))
      .flatMap((p) => statementsOf(p));

  it('is encrypted with the messaging key, retries after 6 × the function timeout, dead-letters after 5 receives', () => {
    expect(queue.resource.Properties).toEqual(
      expect.objectContaining({
        QueueName: QUEUE,
        KmsMasterKeyId: MESSAGING_KEY_ARN,
        VisibilityTimeout: 5400,
        MessageRetentionPeriod: 14 * 86_400,
        RedrivePolicy: expect.objectContaining({ maxReceiveCount: 5 }) as unknown,
      }),
    );
    expect(dlq.resource.Properties).toEqual(
      expect.objectContaining({
        KmsMasterKeyId: MESSAGING_KEY_ARN,
        MessageRetentionPeriod: 14 * 86_400,
      }),
    );
    expect(dlq.resource.DeletionPolicy).toBe('Retain');
    expect(dlq.resource.Properties?.QueueName).toBeUndefined();
  });

  it('both queues refuse plain HTTP; only the function and the redrive operators send into the queue', () => {
    for (const id of [queue.id, dlq.id]) {
      const statements = policyOf(id);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
    const deny = policyOf(queue.id).find((s) => s.Sid === 'DenySendExceptPipeline');
    expect(deny?.Condition).toEqual({
      ArnNotEquals: { 'aws:SourceArn': [{ 'Fn::GetAtt': [dlq.id, 'Arn'] }] },
      ArnNotLike: {
        'aws:PrincipalArn': [
          { 'Fn::GetAtt': [expect.stringMatching(/^GcpAcquisitionFunctionRole/), 'Arn'] },
          OPERATOR_ROLE_ARN,
        ],
      },
    });
  });

  it('is an event source of the function: one record at a time, partial batch responses', () => {
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [queue.id, 'Arn'] },
    });
  });

  it('the function sends only into its own step queue and its DLQ, and is told both and the receive count', () => {
    const send = functionStatements(t).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(send).toEqual([
      expect.objectContaining({
        Sid: 'SendOwnAcquisitionSteps',
        Resource: [{ 'Fn::GetAtt': [queue.id, 'Arn'] }, { 'Fn::GetAtt': [dlq.id, 'Arn'] }],
      }),
    ]);
    const variables = (
      fnByName(t, 'billing-dedup-dev-export-gcp').resource.Properties?.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables.ACQUISITION_STEP_QUEUE_URL).toEqual({ Ref: queue.id });
    expect(variables.DLQ_URL).toEqual({ Ref: dlq.id });
    expect(variables.ACQUISITION_STEP_MAX_RECEIVE_COUNT).toBe('5');
  });

  it('alarms the ops topic when its DLQ holds a step', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${QUEUE}-dlq-not-empty`,
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq.id, 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: Match.anyValue(),
      OKActions: Match.anyValue(),
    });
  });

  it('takes acquisitionStepMaxReceiveCount from the config; fewer than 3 is refused', () => {
    const { template: eight } = build({ ...GCP_CONTEXT, acquisitionStepMaxReceiveCount: '8' });
    expect(
      queueByName(eight, QUEUE).resource.Properties?.RedrivePolicy as { maxReceiveCount: number },
    ).toEqual(expect.objectContaining({ maxReceiveCount: 8 }));
    expect(() => build({ ...GCP_CONTEXT, acquisitionStepMaxReceiveCount: '2' })).toThrow(
      /acquisitionStepMaxReceiveCount: must be between 3 and 1000 receives/,
    );
  });
});

describe('schedule names', () => {
  it('are the tenant after "gcp-", unique beside the Azure copier’s (CloudFormation keys a schedule by its name alone)', () => {
    expect(prefixedScheduleName('gcp-', 'acme')).toBe('gcp-acme');
    const long = `t${'a'.repeat(62)}z`;
    const name = prefixedScheduleName('gcp-', long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^gcp-ta+-[0-9a-f]{8}$/);
    expect(prefixedScheduleName('gcp-', `${long.slice(0, -1)}y`)).not.toBe(name);
  });
});

describe('in the stateless stack', () => {
  it('is off without gcpBillingExports', () => {
    const { statelessTemplate: t } = synth({ exportSources: GCP_CONTEXT.exportSources });
    expect(
      Object.values(resourcesOfType(t, 'AWS::Lambda::Function')).filter((fn) =>
        String(fn.Properties?.FunctionName).endsWith('-export-gcp'),
      ),
    ).toHaveLength(0);
    expect(t.findOutputs('GcpBillingSources')).toEqual({});
  });

  it('configured: the function, its alarm among the stack’s, the sources as an output', () => {
    const { statelessTemplate: t } = synth(GCP_CONTEXT);
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-export-gcp',
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-export-gcp-errors',
    });
    const value = JSON.parse(
      String(Object.values(t.findOutputs('GcpBillingSources'))[0]?.Value),
    ) as { table: string }[];
    expect(value.map((source) => source.table)).toEqual([STANDARD, DETAILED, GLOBEX]);
  });

  it('configured: the step queues are the DLQ operator’s to peek and redrive, their URLs stack outputs', () => {
    const { statelessTemplate: t } = synth(GCP_CONTEXT);
    const QUEUE = 'billing-dedup-dev-export-gcp-steps';
    const queue = queueByName(t, QUEUE);
    const dlq = dlqOf(t, QUEUE);
    const operator = Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))
      .flatMap((policy) => statementsOf(policy))
      .filter((s) => s.Sid === 'PeekAndMoveDeadLetters' || s.Sid === 'RedriveIntoSourceQueues');
    expect(operator.find((s) => s.Sid === 'PeekAndMoveDeadLetters')?.Resource).toContainEqual({
      'Fn::GetAtt': [dlq.id, 'Arn'],
    });
    expect(operator.find((s) => s.Sid === 'RedriveIntoSourceQueues')?.Resource).toContainEqual({
      'Fn::GetAtt': [queue.id, 'Arn'],
    });
    expect(Object.values(t.findOutputs('GcpAcquisitionStepDlqUrl'))[0]?.Value).toEqual({
      Ref: dlq.id,
    });
    expect(Object.values(t.findOutputs('GcpAcquisitionStepQueueUrl'))[0]?.Value).toEqual({
      Ref: queue.id,
    });
  });
});

describe('the sources travel in the environment (4 KB)', () => {
  const long = (i: number) => ({
    tenant: 'acme',
    jobProject: 'acme-billing-prod',
    table: `acme-billing-prod.billing_export.gcp_billing_export_resource_v1_012345_6789AB_CDEF${String(i).padStart(2, '0')}`,
    location: 'europe-west1',
    secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-gcp-billing-AbCdEf',
    exportName: `gcp-billing-${i}`,
  });
  const context = (n: number) => ({
    exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
    gcpBillingExports: Array.from({ length: n }, (_, i) => long(i)),
  });

  it('11 long entries synthesize; 12 are refused at synth naming the key to shorten', () => {
    expect(() => synth(context(11))).not.toThrow();
    expect(() => synth(context(12))).toThrow(
      /GcpAcquisitionFunction\w*: environment of about 4328 bytes, over Lambda's 4096\. Fix: .*gcpBillingExports/,
    );
  });
});
