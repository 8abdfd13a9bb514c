import { Template } from 'aws-cdk-lib/assertions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { ENV } from '../../contract/environment';
import { CostStream } from '../../lib/streams/cost-stream';
import { MessagingTopics } from '../../lib/streams/messaging-topics';
import {
  ACCOUNT,
  constructFixture,
  DATA_KEY_ARN,
  DEDUP_TABLE_ARN,
  LEDGER_TABLE_ARN,
} from './construct-fixture';
import { actionsOf, resourcesOfType, statementsOf, type Statement } from './helpers';

const TENANTS = JSON.stringify([
  { id: 'acme', publishers: [`arn:aws:iam::${ACCOUNT}:role/acme`] },
  { id: 'globex', publishers: [`arn:aws:iam::${ACCOUNT}:role/globex`] },
]);

/** A CostStream in a bare stack, fed by the shared cost topic when the configuration has one. */
const build = (context: Record<string, unknown> = {}) => {
  const f = constructFixture(context);
  const topics = new MessagingTopics(f.stack, { config: f.config, messagingKey: f.messagingKey });
  const stream = new CostStream(f.stack, {
    config: f.config,
    defaults: f.defaults,
    topic: topics.streamTopics['cost-events'] as sns.ITopic | undefined,
    ...(f.config.tenants.length > 0 ? { tenantTopicArnLike: 'arn:aws:sns:*:*:tenant-*' } : {}),
    dedupTable: f.dedupTable,
    ledgerTable: f.ledgerTable,
    dataKeyArn: DATA_KEY_ARN,
  });
  return { stream, template: Template.fromStack(f.stack) };
};

const consumerStatements = (template: Template): Statement[] =>
  Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap((p) => statementsOf(p));

const bySid = (statements: Statement[], sid: string): Statement => {
  const found = statements.filter((s) => s.Sid === sid);
  expect(found).toHaveLength(1);
  return found[0];
};

const environmentOf = (template: Template): Record<string, unknown> => {
  const fns = Object.values(resourcesOfType(template, 'AWS::Lambda::Function'));
  expect(fns).toHaveLength(1);
  return (fns[0].Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
};

describe('CostStream (lib/streams/cost-stream.ts)', () => {
  const { stream, template } = build();

  it('keeps the id the stack has always given it, so the logical ids stay', () => {
    expect(CostStream.ID).toBe('CostEventsPipeline');
    expect(stream.node.id).toBe('CostEventsPipeline');
    const [fnId] = Object.keys(resourcesOfType(template, 'AWS::Lambda::Function'));
    expect(fnId).toMatch(/^CostEventsPipelineConsumerFunction[0-9A-F]{8}$/);
  });

  it('is one FIFO queue + DLQ + consumer, subscribed to the shared cost topic', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'billing-dedup-dev-cost-events.fifo',
      FifoQueue: true,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-cost-ledger',
    });
  });

  it('a standard stream with costStreamKind=standard', () => {
    const standard = build({ costStreamKind: 'standard', batchSize: 10 }).template;
    standard.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'billing-dedup-dev-cost-events',
    });
    for (const queue of Object.values(resourcesOfType(standard, 'AWS::SQS::Queue')))
      expect(queue.Properties?.FifoQueue).toBeUndefined();
  });

  it('tells the consumer its tables, shards and late-charge policy (no tenant bindings without tenants)', () => {
    const env = environmentOf(template);
    expect(env[ENV.ledgerTableName]).toBe('ledger');
    expect(env[ENV.dedupTableName]).toBe('dedup');
    expect(env[ENV.totalShards]).toBeDefined();
    expect(env[ENV.lateChargePolicy]).toBe('roll-forward');
    expect(env[ENV.tenantBindings]).toBeUndefined();
  });

  it('with tenants and no trusted topic: tenant bindings by topic pattern, no shared-topic subscription', () => {
    const tenants = build({ tenants: TENANTS }).template;
    tenants.resourceCountIs('AWS::SNS::Subscription', 0);
    const bindings = JSON.stringify(environmentOf(tenants)[ENV.tenantBindings]);
    expect(bindings).toContain('billing-dedup-dev-cost-events-{tenant}.fifo');
    expect(bindings).not.toContain('trustedTopicArn');
  });

  it('with tenants and a trusted topic: the bindings name that topic', () => {
    const trusted = build({ tenants: TENANTS, trustedCostTopic: true }).template;
    trusted.resourceCountIs('AWS::SNS::Subscription', 1);
    expect(JSON.stringify(environmentOf(trusted)[ENV.tenantBindings])).toContain('trustedTopicArn');
  });

  it("grants the ledger's item actions, the claims and the tables' key through DynamoDB only", () => {
    const statements = consumerStatements(template);
    const ledger = bySid(statements, 'LedgerTableAccess');
    expect(actionsOf(ledger)).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(ledger.Resource).toBe(LEDGER_TABLE_ARN);
    const dedup = bySid(statements, 'DedupTableAccess');
    expect(actionsOf(dedup)).toEqual(['dynamodb:PutItem', 'dynamodb:GetItem']);
    expect(dedup.Resource).toBe(DEDUP_TABLE_ARN);
    const key = bySid(statements, 'UseTableKeyThroughDynamoDb');
    expect(key.Resource).toBe(DATA_KEY_ARN);
    expect(JSON.stringify(key.Condition)).toContain('dynamodb.');
    const tableActions = statements
      .filter((s) => [LEDGER_TABLE_ARN, DEDUP_TABLE_ARN].includes(s.Resource as string))
      .flatMap(actionsOf);
    for (const forbidden of [
      'dynamodb:DeleteItem',
      'dynamodb:Scan',
      'dynamodb:Query',
      'dynamodb:*',
    ])
      expect(tableActions).not.toContain(forbidden);
  });
});
