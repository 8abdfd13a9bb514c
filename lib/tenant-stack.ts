import { CfnOutput, Fn, Stack, StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TENANT_TOPICS_OUTPUT, tenantStackImports } from '../contract/outputs';
import { COST_STREAM, STREAMS } from '../contract/streams';
import type { TenantConfig } from '../contract/tenant-bindings';
import { TENANT_STACK_COUNT, tenantStackIndex } from '../contract/tenant-stacks';
import { BillingDedupConfig } from './config';
import { TenantRateAlarms } from './constructs/consumer-alarms';
import { addTenantRateRows } from './constructs/ops-dashboard';
import { TenantTopics } from './constructs/tenant-topics';
import { resourceName, serviceName } from './naming';

export interface TenantStackProps extends StackProps {
  readonly config: BillingDedupConfig;
  /** This stack's number (0 .. TENANT_STACK_COUNT-1) and the tenants whose id hashes to it. */
  readonly index: number;
  readonly tenants: readonly TenantConfig[];
  /** The stateless stack: its stable exports (contract/outputs.ts `tenantStackImports`) are imported by name. */
  readonly statelessStackName: string;
  /** Messaging key ARN (the stateful stack's stable export). */
  readonly messagingKeyArn: string;
}

/** The configured tenants grouped by the stack that holds them (only stacks with tenants). */
export function tenantsByStack(tenants: readonly TenantConfig[]): Map<number, TenantConfig[]> {
  const groups = new Map<number, TenantConfig[]>();
  for (const tenant of tenants) {
    const index = tenantStackIndex(tenant.id);
    groups.set(index, [...(groups.get(index) ?? []), tenant]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

/**
 * The per-tenant resources of up to ~1/TENANT_STACK_COUNT of the tenants: their cost-events topics
 * and subscriptions, rate alarms and a dashboard of their rows. It imports from the other stacks only
 * values they export in every configuration (the stateless stack's cost queue, cost DLQ and ops topic;
 * the stateful stack's messaging key), and nothing imports from it, so adding or removing a tenant
 * changes this stack alone.
 */
export class TenantStack extends Stack {
  readonly tenantTopics: TenantTopics;
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: TenantStackProps) {
    super(scope, id, props);
    if (props.index < 0 || props.index >= TENANT_STACK_COUNT)
      throw new Error(`tenant stack index ${props.index} is outside 0..${TENANT_STACK_COUNT - 1}`);
    const { config } = props;
    const stage = config.stage;
    const imports = tenantStackImports(props.statelessStackName);
    const messagingKey = kms.Key.fromKeyArn(this, 'MessagingKey', props.messagingKeyArn);
    const opsTopic = sns.Topic.fromTopicArn(this, 'OpsTopic', Fn.importValue(imports.opsTopicArn));

    this.tenantTopics = new TenantTopics(this, 'CostEventsTenants', {
      stage,
      fifo: config.costStreamKind === 'fifo',
      masterKey: messagingKey,
      tenants: props.tenants,
      costQueueArn: Fn.importValue(imports.costQueueArn),
      costDeadLetterQueueArn: Fn.importValue(imports.costDlqArn),
    });
    const costService = serviceName(stage, STREAMS.costEvents.consumer);
    this.alarms = new TenantRateAlarms(this, 'TenantRateAlarms', {
      serviceName: costService,
      tenants: props.tenants,
      namePrefix: resourceName(stage, COST_STREAM),
      opsTopic,
    }).alarms;
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: resourceName(
        stage,
        `operations-tenants-${String(props.index).padStart(2, '0')}`,
      ),
    });
    addTenantRateRows(dashboard, costService, props.tenants);

    new CfnOutput(this, TENANT_TOPICS_OUTPUT, {
      value: this.tenantTopics.topicArnsJson(),
      description:
        'Each tenant’s cost-events topic of this stack, as JSON (billing-dedup publish --tenant)',
    });
  }
}
