import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { SERVICE_PUBLISHERS } from '../../contract/publishers';

export const ANOMALY_EVENT_PATTERN: events.EventPattern = {
  source: ['aws.ce'],
  detailType: ['Anomaly Detected'],
};

export interface AnomalyEventsRuleProps {
  /** The budget-alerts topic: the event JSON becomes the SNS message, as the consumer expects it. */
  readonly topic: sns.ITopic;
  readonly ruleName: string;
}

/**
 * Cost Anomaly Detection's `Anomaly Detected` events (default event bus) → the budget-alerts topic.
 * The topic lets EventBridge publish for this rule only (`aws:SourceArn`), not for every rule of the
 * account; the messaging key's policy lets EventBridge use the key (contract/publishers.ts).
 */
export class AnomalyEventsRule extends Construct {
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: AnomalyEventsRuleProps) {
    super(scope, id);
    this.rule = new events.Rule(this, 'Rule', {
      ruleName: props.ruleName,
      description: 'Cost Anomaly Detection "Anomaly Detected" events to the budget-alerts topic',
      eventPattern: ANOMALY_EVENT_PATTERN,
      // Not events-targets' SnsTopic: it would let EventBridge publish for any rule of the account.
      targets: [{ bind: () => ({ arn: props.topic.topicArn }) }],
    });
    props.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowPublishFromCostAnomalyEventsRule',
        effect: iam.Effect.ALLOW,
        principals: [new iam.ServicePrincipal(SERVICE_PUBLISHERS.eventBridgeRules.principal)],
        actions: ['sns:Publish'],
        resources: [props.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnEquals: { 'aws:SourceArn': this.rule.ruleArn },
        },
      }),
    );
  }
}
