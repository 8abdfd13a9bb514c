import { Duration, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { SERVICE_PUBLISHERS } from '../../contract/publishers';
import { denyDirectSends } from './queue-consumer';
import { dlqNotEmptyAlarm } from './dlq-alarm';

export const ANOMALY_EVENT_PATTERN: events.EventPattern = {
  source: ['aws.ce'],
  detailType: ['Anomaly Detected'],
};

/** EventBridge's longest retry: 185 attempts over at most 24 hours, then the event goes to the DLQ. */
export const ANOMALY_TARGET_RETRY = {
  maximumRetryAttempts: 185,
  maximumEventAgeInSeconds: 24 * 60 * 60,
} as const;

export interface AnomalyEventsRuleProps {
  /** The budget-alerts topic: the event JSON becomes the SNS message, as the consumer expects it. */
  readonly topic: sns.ITopic;
  readonly ruleName: string;
  /** Encrypts the dead-letter queue (its key policy lets EventBridge use it for this stage's rules). */
  readonly masterKey: kms.IKey;
  readonly dlqRetention: Duration;
  /** Notified when an event lands in the dead-letter queue. */
  readonly opsTopic: sns.ITopic;
  readonly dlqAlarmName: string;
}

/**
 * Cost Anomaly Detection's `Anomaly Detected` events (default event bus) → the budget-alerts topic.
 * The topic lets EventBridge publish for this rule only (`aws:SourceArn`), not for every rule of the
 * account; the messaging key's policy lets EventBridge use the key (contract/publishers.ts). A delivery
 * EventBridge cannot make (throttled, key or policy refused) is retried for up to 24 hours, then kept in
 * an encrypted dead-letter queue whose alarm notifies the ops topic: no anomaly is dropped silently.
 */
export class AnomalyEventsRule extends Construct {
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;
  readonly dlqAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: AnomalyEventsRuleProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: props.dlqRetention,
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.masterKey,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const deadLetterQueue = this.deadLetterQueue;
    this.rule = new events.Rule(this, 'Rule', {
      ruleName: props.ruleName,
      description: 'Cost Anomaly Detection "Anomaly Detected" events to the budget-alerts topic',
      eventPattern: ANOMALY_EVENT_PATTERN,
      // Not events-targets' SnsTopic: it would let EventBridge publish for any rule of the account.
      targets: [
        {
          bind: () => ({
            arn: props.topic.topicArn,
            deadLetterConfig: { arn: deadLetterQueue.queueArn },
            retryPolicy: ANOMALY_TARGET_RETRY,
          }),
        },
      ],
    });
    const fromThisRule = {
      StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      ArnEquals: { 'aws:SourceArn': this.rule.ruleArn },
    };
    props.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowPublishFromCostAnomalyEventsRule',
        effect: iam.Effect.ALLOW,
        principals: [new iam.ServicePrincipal(SERVICE_PUBLISHERS.eventBridgeRules.principal)],
        actions: ['sns:Publish'],
        resources: [props.topic.topicArn],
        conditions: fromThisRule,
      }),
    );
    deadLetterQueue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowUndeliveredAnomalyEvents',
        effect: iam.Effect.ALLOW,
        principals: [new iam.ServicePrincipal(SERVICE_PUBLISHERS.eventBridgeRules.principal)],
        actions: ['sqs:SendMessage'],
        resources: [deadLetterQueue.queueArn],
        conditions: fromThisRule,
      }),
    );
    denyDirectSends({
      queue: deadLetterQueue,
      exceptSourceArns: [this.rule.ruleArn],
      exceptPrincipalArns: [],
    });
    Tags.of(deadLetterQueue).add('billing-dedup:dead-letter-queue-of', props.ruleName);
    NagSuppressions.addResourceSuppressions(deadLetterQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is the dead-letter queue of the Cost Anomaly Detection rule’s target (EventBridge DeadLetterConfig), not a source queue.',
      },
    ]);

    this.dlqAlarm = dlqNotEmptyAlarm(this, 'DlqNotEmpty', {
      queue: deadLetterQueue,
      alarmName: props.dlqAlarmName,
      alarmDescription:
        'Cost Anomaly Detection events could not be delivered to the budget-alerts topic for 24 hours (topic or ' +
        'messaging key policy, throttling) and wait in the rule’s dead-letter queue. Read a message, fix the ' +
        'cause, then publish its body to the budget-alerts topic: the alert key makes a repeat harmless.',
      opsTopic: props.opsTopic,
      datapointsToAlarm: 1,
    });
  }
}
