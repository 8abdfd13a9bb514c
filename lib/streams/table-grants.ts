import { Aws } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';

/** Exact DynamoDB actions on one table (no indexes exist; none are granted). */
export function allowTable(
  role: iam.IRole,
  sid: string,
  table: dynamodb.ITable,
  actions: string[],
  conditions?: Record<string, Record<string, unknown>>,
): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ sid, actions, resources: [table.tableArn], conditions }),
  );
}

/** Use of the tables' customer managed key, only through DynamoDB. */
export const tableKeyStatementProps = (keyArn: string): iam.PolicyStatementProps => ({
  sid: 'UseTableKeyThroughDynamoDb',
  actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
  resources: [keyArn],
  conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Aws.REGION}.amazonaws.com` } },
});

export function allowTableKey(role: iam.IRole, keyArn: string): void {
  role.addToPrincipalPolicy(new iam.PolicyStatement(tableKeyStatementProps(keyArn)));
}
