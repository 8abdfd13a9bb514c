import { App, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { BillingDedupConfig, contextOfNode, resolveConfig } from '../../lib/config';
import { pipelineDefaults, type PipelineDefaults } from '../../lib/streams/pipeline-defaults';

export const ACCOUNT = '111122223333';
export const REGION = 'eu-west-1';
export const DATA_KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/00000000-0000-0000-0000-0000000000da`;
export const MESSAGING_KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/00000000-0000-0000-0000-0000000000ee`;
export const DEDUP_TABLE_ARN = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/dedup`;
export const LEDGER_TABLE_ARN = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/ledger`;
export const OPERATOR_ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/dlq-operator`;

/** One construct of the stateless stack on its own: a bare stack, the configuration, imported tables and keys. */
export interface ConstructFixture {
  readonly stack: Stack;
  readonly config: BillingDedupConfig;
  readonly messagingKey: kms.IKey;
  readonly dedupTable: dynamodb.ITable;
  readonly ledgerTable: dynamodb.ITable;
  readonly defaults: PipelineDefaults;
}

export function constructFixture(context: Record<string, unknown> = {}): ConstructFixture {
  // No bundling: the assertions are about the template, not the code.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const config = resolveConfig(contextOfNode(app.node));
  const stack = new Stack(app, 'Test', { env: { account: ACCOUNT, region: REGION } });
  const messagingKey = kms.Key.fromKeyArn(stack, 'MessagingKey', MESSAGING_KEY_ARN);
  return {
    stack,
    config,
    messagingKey,
    dedupTable: dynamodb.Table.fromTableArn(stack, 'DedupTable', DEDUP_TABLE_ARN),
    ledgerTable: dynamodb.Table.fromTableArn(stack, 'LedgerTable', LEDGER_TABLE_ARN),
    defaults: pipelineDefaults(config, messagingKey, [OPERATOR_ROLE_ARN]),
  };
}
