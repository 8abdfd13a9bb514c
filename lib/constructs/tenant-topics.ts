import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { COST_STREAM } from '../../contract/streams';
import {
  TENANT_PLACEHOLDER,
  tenantBindingsOf,
  type TenantConfig,
} from '../../contract/tenant-bindings';
import { messagingName } from '../naming';
import type { TenantTopic } from './queue-consumer';
import { SecureTopic } from './secure-topic';

export interface TenantTopicsProps {
  readonly stage: string;
  readonly fifo: boolean;
  readonly masterKey: kms.IKey;
  readonly tenants: readonly TenantConfig[];
}

/** `billing-dedup-<stage>-cost-events-<tenant>(.fifo)`: the name binds the topic to its tenant. */
export const tenantTopicName = (stage: string, tenant: string, fifo: boolean): string =>
  messagingName(stage, `${COST_STREAM}-${tenant}`, fifo);

/**
 * One cost-events topic per configured tenant (docs/threat-model.md), each publishable only by that
 * tenant's principals. The cost consumer learns which topic is whose from `bindingsJson`.
 */
export class TenantTopics extends Construct {
  readonly topics: readonly TenantTopic[];
  /** Every tenant topic's ARN with `{tenant}` for the tenant id. */
  readonly topicArnPattern: string;
  /** ArnLike pattern of every tenant topic of this stage (`*` for the tenant id). */
  readonly topicArnLike: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: TenantTopicsProps,
  ) {
    super(scope, id);
    this.topics = props.tenants.map((tenant) => ({
      tenant: tenant.id,
      topic: new SecureTopic(this, tenant.id, {
        topicName: tenantTopicName(props.stage, tenant.id, props.fifo),
        displayName: `billing-dedup ${props.stage} cost events of ${tenant.id}`,
        fifo: props.fifo,
        masterKey: props.masterKey,
        principals: tenant.publishers,
      }).topic,
    }));
    this.topicArnPattern = Stack.of(this).formatArn({
      service: 'sns',
      resource: tenantTopicName(props.stage, TENANT_PLACEHOLDER, props.fifo),
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
    this.topicArnLike = Stack.of(this).formatArn({
      service: 'sns',
      resource: tenantTopicName(props.stage, '*', props.fifo),
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
  }

  /** TENANT_BINDINGS of the cost consumer (a token: the ARNs resolve at deploy time). */
  bindingsJson(trustedTopicArn?: string): string {
    return Stack.of(this).toJsonString(
      tenantBindingsOf(this.props.tenants, this.topicArnPattern, trustedTopicArn),
    );
  }

  /** Tenant → topic ARN, as JSON (the stack output the CLI reads). */
  topicArnsJson(): string {
    return Stack.of(this).toJsonString(
      Object.fromEntries(this.topics.map(({ tenant, topic }) => [tenant, topic.topicArn])),
    );
  }
}
