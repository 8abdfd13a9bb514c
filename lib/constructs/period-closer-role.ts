import { Aws, CfnOutput, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { STATEFUL_OUTPUTS } from '../../contract/outputs';
import { statefulStackName, statelessStackName } from '../naming';
import { tableKeyStatementProps } from '../streams/table-grants';

/** The principal tag an administrator puts on whoever may assume the role; its value is the stage. */
export const PERIOD_CLOSER_TAG = 'billing-dedup-period-closer';

/** Ledger partitions of accounts (`TENANT#<t>#ACCOUNT#<a>#PERIOD#<m>`) and of exports (`EXPORT#…`). */
const ACCOUNT_PARTITIONS = 'TENANT#*';
const EXPORT_PARTITIONS = 'EXPORT#*';
/** Reconciliation records (`RECON#<yyyy-mm>`): what `billing-dedup reconcile --period` reads before a close. */
const RECONCILIATION_PARTITIONS = 'RECON#*';

export interface PeriodCloserRoleProps {
  readonly stage: string;
  readonly ledgerTable: dynamodb.ITable;
}

/**
 * The role an operator assumes to run `billing-dedup period close | reopen | status`, `charge void` and,
 * before a close, `reconcile --period` (its stored records; no `--run`)
 * (docs/operations.md#who-may-close-a-period): exactly the ledger-table actions those commands send,
 * each only on the partitions it touches, the table's key only through DynamoDB, and the stage's two
 * stacks' outputs for `--stack`. No Scan, no delete: audit records and charges cannot be removed.
 * Trusted by the account, for principals an administrator tagged `billing-dedup-period-closer=<stage>`.
 */
export class PeriodCloserRole extends Construct {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: PeriodCloserRoleProps) {
    super(scope, id);
    const { stage, ledgerTable } = props;
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.AccountRootPrincipal().withConditions({
        StringEquals: { [`aws:PrincipalTag/${PERIOD_CLOSER_TAG}`]: stage },
      }),
      description: `billing-dedup ${stage}: close, reopen and inspect billing periods, void charges (billing-dedup period, charge void)`,
    });
    const onPartitions = (prefix: string) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [prefix] },
      // ForAllValues holds for a request without keys; every action here has them, say so anyway.
      Null: { 'dynamodb:LeadingKeys': 'false' },
    });
    const statements = [
      new iam.PolicyStatement({
        sid: 'ReadAccountPeriods',
        actions: ['dynamodb:GetItem', 'dynamodb:Query'],
        resources: [ledgerTable.tableArn],
        conditions: onPartitions(ACCOUNT_PARTITIONS),
      }),
      new iam.PolicyStatement({
        sid: 'CloseReopenAndVoidInAccountPeriods',
        actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [ledgerTable.tableArn],
        conditions: onPartitions(ACCOUNT_PARTITIONS),
      }),
      new iam.PolicyStatement({
        sid: 'PinCurrentExportSnapshots',
        actions: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem'],
        resources: [ledgerTable.tableArn],
        conditions: onPartitions(EXPORT_PARTITIONS),
      }),
      new iam.PolicyStatement({
        sid: 'ReadReconciliationRecords',
        actions: ['dynamodb:Query'],
        resources: [ledgerTable.tableArn],
        conditions: onPartitions(RECONCILIATION_PARTITIONS),
      }),
      new iam.PolicyStatement({
        sid: 'ReadStageStackOutputs',
        actions: ['cloudformation:DescribeStacks'],
        resources: [Aws.STACK_ID, stackArnByName(statelessStackName(stage))],
      }),
    ];
    if (ledgerTable.encryptionKey)
      statements.push(
        new iam.PolicyStatement(tableKeyStatementProps(ledgerTable.encryptionKey.keyArn)),
      );
    for (const statement of statements) this.role.addToPrincipalPolicy(statement);
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            `The stateless stack depends on ${statefulStackName(stage)}, so this stack cannot name its id; ` +
            'DescribeStacks is granted on that one stack by name (the `*` is the id CloudFormation appends).',
          appliesTo: [
            `Resource::arn:<AWS::Partition>:cloudformation:<AWS::Region>:<AWS::AccountId>:stack/${statelessStackName(stage)}/*`,
          ],
        },
      ],
      true,
    );
    new CfnOutput(Stack.of(this), STATEFUL_OUTPUTS.periodCloserRoleArn, {
      value: this.role.roleArn,
      description: `Role for billing-dedup period close/reopen/status and charge void (assumable by principals tagged ${PERIOD_CLOSER_TAG}=${stage})`,
    });
  }
}

/** A stack of this account and region by name (its ARN ends in an id CloudFormation assigns). */
const stackArnByName = (name: string): string =>
  `arn:${Aws.PARTITION}:cloudformation:${Aws.REGION}:${Aws.ACCOUNT_ID}:stack/${name}/*`;
