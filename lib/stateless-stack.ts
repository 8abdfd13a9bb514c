import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { BillingDedupConfig } from './config';
import { ConsumerAlarms } from './constructs/consumer-alarms';
import { OpsDashboard } from './constructs/ops-dashboard';
import { QueueConsumer } from './constructs/queue-consumer';
import { SecureTopic } from './constructs/secure-topic';
import { messagingName, resourceName, serviceName } from './naming';

export interface StatelessStackProps extends StackProps {
  readonly config: BillingDedupConfig;
  readonly dedupTable: dynamodb.ITable;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKey: kms.IKey;
  readonly messagingKey: kms.IKey;
  /** The CLI reads both stacks' outputs (`--stack`): the DLQ operator role may describe both. */
  readonly statefulStackId: string;
}

/** Stream names (STREAM_NAME) and consumer ids, shared with lambda/. */
export const COST_STREAM = 'cost-events';
export const ALERT_STREAM = 'budget-alerts';
export const COST_CONSUMER = 'cost-ledger';
export const ALERT_CONSUMER = 'budget-alerts';

/**
 * Topics, queues, consumers, alarms, dashboard and outputs. Holds no state of its own
 * (messages are transient; keys and tables live in the stateful stack), so it can be
 * destroyed and re-created freely.
 */
export class StatelessStack extends Stack {
  readonly costEventsTopic: sns.Topic;
  readonly budgetAlertsTopic: sns.Topic;
  readonly notificationsTopic: sns.Topic;
  readonly opsTopic: sns.Topic;
  readonly costEvents: QueueConsumer;
  readonly budgetAlerts: QueueConsumer;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dlqOperatorRole: iam.Role;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config } = props;
    const stage = config.stage;
    const costFifo = config.costStreamKind === 'fifo';

    // Imported by ARN on purpose: the key policy is owned by the stateful stack (it already lets
    // SNS, Budgets, Cost Anomaly Detection and CloudWatch use the key), so nothing here may try to
    // edit it — that would make the stateful stack depend on this one.
    const messagingKey = kms.Key.fromKeyArn(this, 'MessagingKey', props.messagingKey.keyArn);
    const dataKeyArn = props.dataKey.keyArn;

    // ---------------- topics ----------------
    this.costEventsTopic = new SecureTopic(this, 'CostEvents', {
      topicName: messagingName(stage, COST_STREAM, costFifo),
      displayName: `billing-dedup ${stage} cost events`,
      fifo: costFifo,
      masterKey: messagingKey,
      principals: config.costEventsPublishers,
    }).topic;

    this.budgetAlertsTopic = new SecureTopic(this, 'BudgetAlerts', {
      topicName: messagingName(stage, ALERT_STREAM, false),
      displayName: `billing-dedup ${stage} budget alerts`,
      fifo: false,
      masterKey: messagingKey,
      servicePublishers: [
        // https://docs.aws.amazon.com/cost-management/latest/userguide/budgets-sns-policy.html
        {
          service: 'budgets.amazonaws.com',
          sourceArnLike: `arn:${Aws.PARTITION}:budgets::${Aws.ACCOUNT_ID}:*`,
        },
        // Cost Anomaly Detection: AWS documents the aws:SourceAccount condition.
        { service: 'costalerts.amazonaws.com' },
      ],
      principals: config.budgetAlertsPublishers,
    }).topic;

    this.notificationsTopic = new SecureTopic(this, 'Notifications', {
      topicName: messagingName(stage, 'notifications', false),
      displayName: `billing-dedup ${stage} notifications`,
      fifo: false,
      masterKey: messagingKey,
    }).topic;
    for (const email of config.notificationEmails) {
      this.notificationsTopic.addSubscription(new subs.EmailSubscription(email));
    }

    // CloudWatch may publish only from this stage's alarms (allowed once they exist, below).
    const opsTopic = new SecureTopic(this, 'Ops', {
      topicName: messagingName(stage, 'ops', false),
      displayName: `billing-dedup ${stage} ops alarms`,
      fifo: false,
      masterKey: messagingKey,
    });
    this.opsTopic = opsTopic.topic;
    for (const email of config.opsEmails) {
      this.opsTopic.addSubscription(new subs.EmailSubscription(email));
    }

    // ---------------- pipelines ----------------
    // Peeks and redrives the DLQs; with config.redriveOperators, the only principal that may send
    // into a source queue directly (every queue denies everyone else, see QueueConsumer).
    this.dlqOperatorRole = new iam.Role(this, 'DlqOperatorRole', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: `billing-dedup ${stage}: peek and redrive the dead-letter queues (billing-dedup dlq peek, dlq redrive)`,
    });
    const common = {
      redriveOperatorArns: [this.dlqOperatorRole.roleArn, ...config.redriveOperators],
      masterKey: messagingKey,
      retention: Duration.days(config.queueRetentionDays),
      dlqRetention: Duration.days(config.dlqRetentionDays),
      visibilityTimeout: Duration.seconds(config.visibilityTimeoutSeconds),
      maxReceiveCount: config.maxReceiveCount,
      dedupTtl: Duration.days(config.dedupTtlDays),
      batchSize: config.batchSize,
      maxBatchingWindow: Duration.seconds(config.maxBatchingWindowSeconds),
      maxConcurrency: config.eventSourceMaxConcurrency,
      inBatchConcurrency: config.inBatchConcurrency,
    };
    const consumerCommon = {
      timeout: Duration.seconds(config.functionTimeoutSeconds),
      memorySize: config.functionMemoryMb,
      logRetention: config.logRetentionDays as logs.RetentionDays,
      logRemovalPolicy: stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      logLevel: config.logLevel,
    };

    this.costEvents = new QueueConsumer(this, 'CostEventsPipeline', {
      ...common,
      streamName: COST_STREAM,
      topic: this.costEventsTopic,
      fifo: costFifo,
      queueName: messagingName(stage, COST_STREAM, costFifo),
      consumer: {
        ...consumerCommon,
        functionName: resourceName(stage, COST_CONSUMER),
        description: `billing-dedup ${stage}: cost events → ledger, exactly once`,
        entry: 'lambda/handlers/cost-ledger.ts',
        serviceName: serviceName(stage, COST_CONSUMER),
        environment: {
          DEDUP_TABLE_NAME: props.dedupTable.tableName,
          LEDGER_TABLE_NAME: props.ledgerTable.tableName,
        },
      },
    });
    const costRole = this.costEvents.consumer.role;
    allowTable(costRole, 'LedgerTableAccess', props.ledgerTable, [
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // Claims are written inside TransactWriteItems, which IAM authorizes per item action.
    allowTable(costRole, 'DedupTableAccess', props.dedupTable, [
      'dynamodb:PutItem',
      'dynamodb:GetItem',
    ]);
    allowTableKey(costRole, dataKeyArn);

    this.budgetAlerts = new QueueConsumer(this, 'BudgetAlertsPipeline', {
      ...common,
      streamName: ALERT_STREAM,
      topic: this.budgetAlertsTopic,
      fifo: false,
      queueName: messagingName(stage, ALERT_STREAM, false),
      consumer: {
        ...consumerCommon,
        functionName: resourceName(stage, ALERT_CONSUMER),
        description: `billing-dedup ${stage}: budget/anomaly alerts → one notification each`,
        entry: 'lambda/handlers/budget-alerts.ts',
        serviceName: serviceName(stage, ALERT_CONSUMER),
        environment: {
          DEDUP_TABLE_NAME: props.dedupTable.tableName,
          NOTIFICATIONS_TOPIC_ARN: this.notificationsTopic.topicArn,
        },
      },
    });
    const alertRole = this.budgetAlerts.consumer.role;
    // Powertools Idempotency persistence layer: its records are `<keyPrefix>#<hash>` with the
    // stream name as keyPrefix (lambda/adapters/sns-notifier.ts), so the role reaches no other item
    // of the shared dedup table (cost claims are `cost-events#…`).
    allowTable(
      alertRole,
      'DedupTableAccess',
      props.dedupTable,
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ALERT_STREAM}#*`] } },
    );
    allowTableKey(alertRole, dataKeyArn);
    alertRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PublishNotifications',
        actions: ['sns:Publish'],
        resources: [this.notificationsTopic.topicArn],
      }),
    );
    // kms:GenerateDataKey/Decrypt on the messaging key (needed to publish to the encrypted topic)
    // is already granted by QueueConsumer for forwarding poison messages to the DLQ.

    // ---------------- alarms, dashboard ----------------
    for (const pipeline of [this.costEvents, this.budgetAlerts]) {
      const alarms = new ConsumerAlarms(this, `${pipeline.node.id}Alarms`, {
        pipeline,
        namePrefix: resourceName(stage, pipeline.streamName),
        opsTopic: this.opsTopic,
        oldestMessageAgeThreshold: Duration.seconds(config.oldestMessageAgeAlarmSeconds),
      });
      this.alarms.push(...alarms.alarms);
    }
    opsTopic.allowServicePublisher({
      service: 'cloudwatch.amazonaws.com',
      sourceArns: this.alarms.map((alarm) => alarm.alarmArn),
    });
    allowDlqOperations(this.dlqOperatorRole, [this.costEvents, this.budgetAlerts], messagingKey, [
      this.stackId,
      props.statefulStackId,
    ]);
    const dashboard = new OpsDashboard(this, 'Dashboard', {
      dashboardName: resourceName(stage, 'operations'),
      pipelines: [this.costEvents, this.budgetAlerts],
      alarms: this.alarms,
    });

    // ---------------- outputs (stable ids, no exports: tools read them by stack name) ----------------
    const out = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    out('Stage', stage, 'Deployment stage');
    out('CostEventsTopicArn', this.costEventsTopic.topicArn, 'Publish cost events here');
    out('CostEventsStreamKind', config.costStreamKind, 'fifo or standard');
    const streamOutputs = (prefix: string, label: string, pipeline: QueueConsumer) => {
      out(`${prefix}QueueUrl`, pipeline.queue.queueUrl, `${label} source queue`);
      out(`${prefix}QueueArn`, pipeline.queue.queueArn, `${label} source queue ARN`);
      out(`${prefix}DlqUrl`, pipeline.deadLetterQueue.queueUrl, `${label} dead-letter queue`);
      out(`${prefix}DlqArn`, pipeline.deadLetterQueue.queueArn, `${label} dead-letter queue ARN`);
      out(
        `${prefix}ConsumerFunctionName`,
        pipeline.consumer.fn.functionName,
        `Consumer of the ${label.toLowerCase()} queue`,
      );
    };
    streamOutputs('CostEvents', 'Cost events', this.costEvents);
    out(
      'BudgetAlertsTopicArn',
      this.budgetAlertsTopic.topicArn,
      'Publish budget/anomaly alerts here (AWS Budgets, Cost Anomaly Detection)',
    );
    streamOutputs('BudgetAlerts', 'Budget alerts', this.budgetAlerts);
    out(
      'NotificationsTopicArn',
      this.notificationsTopic.topicArn,
      'Subscribe here to receive one notification per alert',
    );
    out('OpsTopicArn', this.opsTopic.topicArn, 'Alarm notifications');
    out(
      'DlqOperatorRoleArn',
      this.dlqOperatorRole.roleArn,
      'Assume this role to peek and redrive the DLQs (billing-dedup dlq …)',
    );
    out('DashboardName', dashboard.dashboard.dashboardName, 'CloudWatch dashboard of this stage');
  }
}

/** Exact DynamoDB actions on one table (no indexes exist; none are granted). */
function allowTable(
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

/**
 * What `billing-dedup dlq peek|redrive` needs (docs/operations.md "Permissions"): read and move
 * the DLQs, send into the source queues (a message move task sends with the caller's
 * permissions), the messaging key for both, and the stack's outputs for discovery.
 */
function allowDlqOperations(
  role: iam.IRole,
  pipelines: QueueConsumer[],
  messagingKey: kms.IKey,
  stackIds: string[],
): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'PeekAndMoveDeadLetters',
      actions: [
        'sqs:ReceiveMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ListDeadLetterSourceQueues',
        'sqs:StartMessageMoveTask',
        'sqs:ListMessageMoveTasks',
        'sqs:CancelMessageMoveTask',
      ],
      resources: pipelines.map((p) => p.deadLetterQueue.queueArn),
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'RedriveIntoSourceQueues',
      actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'],
      resources: pipelines.map((p) => p.queue.queueArn),
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'UseMessagingKey',
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: [messagingKey.keyArn],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadStackOutputs',
      actions: ['cloudformation:DescribeStacks'],
      resources: stackIds,
    }),
  );
}

/** Use of the tables' customer managed key, only through DynamoDB. */
function allowTableKey(role: iam.IRole, keyArn: string): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'UseTableKeyThroughDynamoDb',
      actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
      resources: [keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Aws.REGION}.amazonaws.com` } },
    }),
  );
}
