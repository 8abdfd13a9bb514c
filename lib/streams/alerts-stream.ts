import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { STREAMS } from '../../contract/streams';
import type { BillingDedupConfig } from '../config';
import { QueueConsumer } from '../constructs/queue-consumer';
import { messagingName, resourceName, serviceName } from '../naming';
import type { PipelineDefaults } from './pipeline-defaults';
import { allowTable, allowTableKey } from './table-grants';

const STREAM = STREAMS.budgetAlerts;

export interface AlertsStreamProps {
  readonly config: BillingDedupConfig;
  readonly defaults: PipelineDefaults;
  /** The budget-alerts topic (AWS Budgets, Cost Anomaly Detection, the anomaly rule). */
  readonly topic: sns.ITopic;
  /** Where each alert is published once. */
  readonly notificationsTopic: sns.ITopic;
  readonly dedupTable: dynamodb.ITable;
  /** The tables' customer managed key. */
  readonly dataKeyArn: string;
}

/**
 * The alerts stream's queue + DLQ + `budget-alerts` consumer (docs/alerts.md): a QueueConsumer that
 * claims each alert key in the dedup table (Powertools Idempotency, only its own `<stream>#` items)
 * and publishes it once on `notifications`. Its id is the one the stack has always given it
 * (`BudgetAlertsPipeline`), so the deployed logical ids stay.
 */
export class AlertsStream extends QueueConsumer {
  static readonly ID = `${STREAM.outputPrefix}Pipeline`;

  constructor(scope: Construct, props: AlertsStreamProps) {
    const stage = props.config.stage;
    super(scope, AlertsStream.ID, {
      ...props.defaults.queue,
      streamName: STREAM.name,
      topic: props.topic,
      fifo: false,
      queueName: messagingName(stage, STREAM.name, false),
      consumer: {
        ...props.defaults.consumer,
        functionName: resourceName(stage, STREAM.consumer),
        description: `billing-dedup ${stage}: budget/anomaly alerts → one notification each`,
        entry: STREAM.handlerEntry,
        serviceName: serviceName(stage, STREAM.consumer),
        environment: {
          dedupTableName: props.dedupTable.tableName,
          notificationsTopicArn: props.notificationsTopic.topicArn,
        },
      },
    });
    const role = this.consumer.role;
    // Powertools Idempotency persistence layer: its records are `<keyPrefix>#<hash>` with the stream
    // name as keyPrefix (lambda/adapters/sns-notifier.ts), so the role reaches no other item of the
    // shared dedup table (cost claims start with the cost stream's name).
    allowTable(
      role,
      'DedupTableAccess',
      props.dedupTable,
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${STREAM.name}#*`] } },
    );
    allowTableKey(role, props.dataKeyArn);
    // kms:GenerateDataKey/Decrypt on the messaging key (needed to publish to the encrypted topic) is
    // already granted by QueueConsumer for forwarding poison messages to the DLQ.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PublishNotifications',
        actions: ['sns:Publish'],
        resources: [props.notificationsTopic.topicArn],
      }),
    );
  }
}
