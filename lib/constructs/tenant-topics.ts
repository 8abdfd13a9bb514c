import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { COST_STREAM } from '../../contract/streams';
import { TENANT_PLACEHOLDER, type TenantConfig } from '../../contract/tenant-bindings';
import { messagingName } from '../naming';
import { SecureTopic } from './secure-topic';

export interface TenantTopicsProps {
  readonly stage: string;
  readonly fifo: boolean;
  readonly masterKey: kms.IKey;
  readonly tenants: readonly TenantConfig[];
  /** The cost-events queue every tenant topic delivers to, and its DLQ (undeliverable messages). */
  readonly costQueueArn: string;
  readonly costDeadLetterQueueArn: string;
}

/** `billing-dedup-<stage>-cost-events-<tenant>(.fifo)`: the name binds the topic to its tenant. */
export const tenantTopicName = (stage: string, tenant: string, fifo: boolean): string =>
  messagingName(stage, `${COST_STREAM}-${tenant}`, fifo);

/** Every tenant topic's ARN with `{tenant}` for the tenant id (the cost consumer's TENANT_BINDINGS). */
export const tenantTopicArnPattern = (scope: Construct, stage: string, fifo: boolean): string =>
  Stack.of(scope).formatArn({
    service: 'sns',
    resource: tenantTopicName(stage, TENANT_PLACEHOLDER, fifo),
    arnFormat: ArnFormat.NO_RESOURCE_NAME,
  });

/** ArnLike pattern of every tenant topic of this stage (`*` for the tenant id): the queue policies admit it. */
export const tenantTopicArnLike = (scope: Construct, stage: string, fifo: boolean): string =>
  Stack.of(scope).formatArn({
    service: 'sns',
    resource: tenantTopicName(stage, '*', fifo),
    arnFormat: ArnFormat.NO_RESOURCE_NAME,
  });

/**
 * One cost-events topic per tenant (docs/threat-model.md), each publishable only by that tenant's
 * principals, subscribed to the cost queue with envelope delivery (the consumer sees which topic
 * delivered). The queue admits the topics by their name pattern (QueueConsumer), so nothing here
 * changes the queue's policy; undeliverable messages go to the cost DLQ.
 */
export class TenantTopics extends Construct {
  readonly topics: readonly { readonly tenant: string; readonly topic: sns.Topic }[];

  constructor(scope: Construct, id: string, props: TenantTopicsProps) {
    super(scope, id);
    const subscriptions = new Construct(this, 'Subscriptions');
    this.topics = props.tenants.map((tenant) => {
      const topic = new SecureTopic(this, tenant.id, {
        topicName: tenantTopicName(props.stage, tenant.id, props.fifo),
        displayName: `billing-dedup ${props.stage} cost events of ${tenant.id}`,
        fifo: props.fifo,
        masterKey: props.masterKey,
        principals: tenant.publishers,
      }).topic;
      new sns.CfnSubscription(subscriptions, tenant.id, {
        topicArn: topic.topicArn,
        protocol: sns.SubscriptionProtocol.SQS,
        endpoint: props.costQueueArn,
        rawMessageDelivery: false,
        redrivePolicy: { deadLetterTargetArn: props.costDeadLetterQueueArn },
      });
      return { tenant: tenant.id, topic };
    });
  }

  /** Tenant → topic ARN, as JSON (the stack output the CLI reads). */
  topicArnsJson(): string {
    return Stack.of(this).toJsonString(
      Object.fromEntries(this.topics.map(({ tenant, topic }) => [tenant, topic.topicArn])),
    );
  }
}
