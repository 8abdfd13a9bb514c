import { Aspects, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PERIOD_CLOSER_TAG } from '../../lib/constructs/period-closer-role';
import { resourcesOfType, statementsOf, synth, type Synthesized } from './helpers';

type Statement = ReturnType<typeof statementsOf>[number];

const roleOf = (t: Template) => {
  const roles = Object.entries(resourcesOfType(t, 'AWS::IAM::Role')).filter(([id]) =>
    id.startsWith('PeriodCloserRole'),
  );
  expect(roles).toHaveLength(1);
  return roles[0];
};

/** Every statement of the policies attached to the closer role. */
const closerStatements = (t: Template, roleId: string): Statement[] =>
  Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))
    .filter(
      (policy) => JSON.stringify(policy.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap((policy) => statementsOf(policy));

const bySid = (statements: Statement[], sid: string) => {
  const found = statements.filter((statement) => statement.Sid === sid);
  expect(found).toHaveLength(1);
  return found[0];
};

const ledgerTableArn = { 'Fn::GetAtt': [expect.stringMatching(/^LedgerTable/), 'Arn'] };
const onPartitions = (prefix: string) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [prefix] },
  Null: { 'dynamodb:LeadingKeys': 'false' },
});

describe('period closer role (stateful stack)', () => {
  let s: Synthesized;
  let roleId: string;
  let statements: Statement[];
  beforeAll(() => {
    s = synth({ stage: 'prod' });
    const [id] = roleOf(s.statefulTemplate);
    roleId = id;
    statements = closerStatements(s.statefulTemplate, roleId);
  });

  it('is assumable within the account only by principals tagged for this stage', () => {
    const [, role] = roleOf(s.statefulTemplate);
    expect(statementsOf(role, 'AssumeRolePolicyDocument')).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: {
          AWS: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
            ],
          },
        },
        Condition: { StringEquals: { [`aws:PrincipalTag/${PERIOD_CLOSER_TAG}`]: 'prod' } },
      },
    ]);
    expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
  });

  it('may read and write account-period partitions and check export pointers, nothing else of the table', () => {
    expect(bySid(statements, 'ReadAccountPeriods')).toEqual({
      Sid: 'ReadAccountPeriods',
      Effect: 'Allow',
      Action: ['dynamodb:GetItem', 'dynamodb:Query'],
      Resource: ledgerTableArn,
      Condition: onPartitions('TENANT#*'),
    });
    expect(bySid(statements, 'CloseReopenAndVoidInAccountPeriods')).toEqual({
      Sid: 'CloseReopenAndVoidInAccountPeriods',
      Effect: 'Allow',
      Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      Resource: ledgerTableArn,
      Condition: onPartitions('TENANT#*'),
    });
    expect(bySid(statements, 'PinCurrentExportSnapshots')).toEqual({
      Sid: 'PinCurrentExportSnapshots',
      Effect: 'Allow',
      Action: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem'],
      Resource: ledgerTableArn,
      Condition: onPartitions('EXPORT#*'),
    });
    // `reconcile --period` before a close: the stored RECON# records, read only.
    expect(bySid(statements, 'ReadReconciliationRecords')).toEqual({
      Sid: 'ReadReconciliationRecords',
      Effect: 'Allow',
      Action: 'dynamodb:Query',
      Resource: ledgerTableArn,
      Condition: onPartitions('RECON#*'),
    });
    const dynamoActions = statements
      .flatMap((statement) => [statement.Action].flat())
      .filter((action) => String(action).startsWith('dynamodb:'));
    expect(dynamoActions.sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    // The dedup table is out of reach.
    expect(JSON.stringify(statements)).not.toMatch(/DedupTable/);
  });

  it('uses the data key only through DynamoDB, and reads only the stage’s two stacks', () => {
    expect(bySid(statements, 'UseTableKeyThroughDynamoDb')).toEqual({
      Sid: 'UseTableKeyThroughDynamoDb',
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^DataKey/), 'Arn'] },
      Condition: {
        StringEquals: {
          'kms:ViaService': {
            'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
          },
        },
      },
    });
    expect(bySid(statements, 'ReadStageStackOutputs')).toEqual({
      Sid: 'ReadStageStackOutputs',
      Effect: 'Allow',
      Action: 'cloudformation:DescribeStacks',
      Resource: [
        { Ref: 'AWS::StackId' },
        {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':cloudformation:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':stack/billing-dedup-prod-stateless/*',
            ],
          ],
        },
      ],
    });
    expect(statements.map((statement) => statement.Sid).sort()).toEqual([
      'CloseReopenAndVoidInAccountPeriods',
      'PinCurrentExportSnapshots',
      'ReadAccountPeriods',
      'ReadReconciliationRecords',
      'ReadStageStackOutputs',
      'UseTableKeyThroughDynamoDb',
    ]);
  });

  it('is a stack output under a stable id, without an export', () => {
    const outputs = s.statefulTemplate.toJSON().Outputs as Record<
      string,
      { Value: unknown; Export?: unknown }
    >;
    expect(outputs.PeriodCloserRoleArn).toEqual({
      Description: expect.stringContaining(`${PERIOD_CLOSER_TAG}=prod`),
      Value: { 'Fn::GetAtt': [roleId, 'Arn'] },
    });
  });

  it('stays cdk-nag clean; its one suppression names the stateless stack ARN and why', () => {
    const nagged = synth({ stage: 'prod' }, { nag: true });
    expect(Aspects.of(nagged.app).all.some((a) => a instanceof AwsSolutionsChecks)).toBe(true);
    const stack: Stack = nagged.stateful;
    const artifact = stack.node.root as unknown as {
      synth(): { getStackArtifact(id: string): { messages: SynthesisMessage[] } };
    };
    const findings = artifact
      .synth()
      .getStackArtifact(stack.artifactId)
      .messages.filter((m) => /AwsSolutions-/.test(String(m.entry.data)))
      .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
    expect(findings).toEqual([]);
    const role = stack.node.findAll().find((c) => c.node.path.endsWith('PeriodCloser/Role'));
    const suppressions = (
      role?.node.defaultChild as unknown as { cfnOptions: { metadata: Record<string, unknown> } }
    ).cfnOptions.metadata.cdk_nag as { rules_to_suppress: { id: string; applies_to: unknown[] }[] };
    expect(suppressions.rules_to_suppress.map((rule) => [rule.id, rule.applies_to])).toEqual([
      [
        'AwsSolutions-IAM5',
        [
          'Resource::arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/billing-dedup-prod-stateless/*',
        ],
      ],
    ]);
  });
});
