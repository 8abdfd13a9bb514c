import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { STREAMS } from '../../contract/streams';
import { tenantBindingsOf } from '../../contract/tenant-bindings';
import type { BillingDedupConfig } from '../config';
import { QueueConsumer, type QueueConsumerProps } from '../constructs/queue-consumer';
import { tenantTopicArnPattern } from '../constructs/tenant-topics';
import { messagingName, resourceName, serviceName } from '../naming';
import type { PipelineDefaults } from './pipeline-defaults';
import { allowTable, allowTableKey } from './table-grants';

const STREAM = STREAMS.costEvents;

export interface CostStreamProps {
  readonly config: BillingDedupConfig;
  readonly defaults: PipelineDefaults;
  /** The shared cost topic; none with `tenants` and without `trustedCostTopic`. */
  readonly topic?: sns.ITopic;
  /** With `tenants`: the ArnLike pattern of the tenant topics (lib/constructs/tenant-topics.ts). */
  readonly tenantTopicArnLike?: string;
  readonly dedupTable: dynamodb.ITable;
  readonly ledgerTable: dynamodb.ITable;
  /** The tables' customer managed key. */
  readonly dataKeyArn: string;
}

/**
 * The cost stream's queue + DLQ + `cost-ledger` consumer (docs/consumer-core.md): a QueueConsumer
 * with the cost stream's settings (ledger table, tenant bindings, shards, late-charge policy) and
 * grants (the ledger's exact item actions, the charge claims in the dedup table, the tables' key
 * through DynamoDB). Its id is the one the stack has always given it (`CostEventsPipeline`), so the
 * deployed logical ids stay.
 */
export class CostStream extends QueueConsumer {
  static readonly ID = `${STREAM.outputPrefix}Pipeline`;

  constructor(scope: Construct, props: CostStreamProps) {
    super(scope, CostStream.ID, costQueueConsumerProps(scope, props));
    allowTable(this.consumer.role, 'LedgerTableAccess', props.ledgerTable, [
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // Charge leases and dead-letter markers; legacy claims are never read.
    allowTable(this.consumer.role, 'DedupTableAccess', props.dedupTable, [
      'dynamodb:PutItem',
      'dynamodb:GetItem',
    ]);
    allowTableKey(this.consumer.role, props.dataKeyArn);
  }
}

function costQueueConsumerProps(scope: Construct, props: CostStreamProps): QueueConsumerProps {
  const { config } = props;
  const stage = config.stage;
  const fifo = config.costStreamKind === 'fifo';
  const withTenants = config.tenants.length > 0;
  return {
    ...props.defaults.queue,
    streamName: STREAM.name,
    topic: props.topic,
    ...(props.tenantTopicArnLike ? { tenantTopicArnLike: props.tenantTopicArnLike } : {}),
    fifo,
    queueName: messagingName(stage, STREAM.name, fifo),
    consumer: {
      ...props.defaults.consumer,
      functionName: resourceName(stage, STREAM.consumer),
      description: `billing-dedup ${stage}: cost events → ledger, exactly once`,
      entry: STREAM.handlerEntry,
      serviceName: serviceName(stage, STREAM.consumer),
      // Grows with the tenants: bundled with the code, not in the 4 KB environment.
      ...(withTenants
        ? { bundledConfig: { tenants: tenantBindingsOf(config.tenants, '').tenants } }
        : {}),
      environment: {
        dedupTableName: props.dedupTable.tableName,
        ledgerTableName: props.ledgerTable.tableName,
        ...(withTenants
          ? {
              // The pattern only: the tenants (they grow) are in the bundled config above.
              tenantBindings: Stack.of(scope).toJsonString({
                topicArnPattern: tenantTopicArnPattern(scope, stage, fifo),
                ...(props.topic ? { trustedTopicArn: props.topic.topicArn } : {}),
              }),
            }
          : {}),
        totalShards: config.totalShards,
        lateChargePolicy: config.lateChargePolicy,
      },
    },
  };
}
