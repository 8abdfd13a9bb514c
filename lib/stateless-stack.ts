import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { ConsumerEnvironment } from '../contract/environment';
import {
  EXPORT_CHUNKS_OUTPUTS,
  EXPORT_DELIVERIES_OUTPUTS,
  STACK_OUTPUTS,
  STATELESS_OUTPUTS,
  streamOutputs,
  TENANT_STACKS_OUTPUT,
  tenantStackImports,
} from '../contract/outputs';
import { SERVICE_PUBLISHERS, servicePublisher } from '../contract/publishers';
import {
  ALERT_STREAM,
  COST_STREAM,
  STREAM_DEFINITIONS,
  STREAM_NAMES,
  type StreamName,
} from '../contract/streams';
import { BillingDedupConfig } from './config';
import { AnomalyEventsRule } from './constructs/anomaly-events-rule';
import { ConsumerAlarms } from './constructs/consumer-alarms';
import { OpsDashboard } from './constructs/ops-dashboard';
import { PeriodAutoClose } from './constructs/period-auto-close';
import { addReconciliation } from './constructs/reconciliation';
import { QueueConsumer } from './constructs/queue-consumer';
import { SecureTopic } from './constructs/secure-topic';
import { tenantTopicArnLike, tenantTopicArnPattern } from './constructs/tenant-topics';
import { tenantBindingsOf } from '../contract/tenant-bindings';
import type { FunctionConfig } from '../contract/function-config';
import { addExportPipelines, type ExportPipelines } from './export-pipelines';
import { anomalyRuleName, publisherSourceArnLike } from './name-patterns';
import { messagingName, resourceName, serviceName } from './naming';

export interface StatelessStackProps extends StackProps {
  readonly config: BillingDedupConfig;
  readonly dedupTable: dynamodb.ITable;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKey: kms.IKey;
  readonly messagingKey: kms.IKey;
  /** The CLI reads both stacks' outputs (`--stack`): the DLQ operator role may describe both. */
  readonly statefulStackId: string;
  /** Names of the stacks holding the tenants' topics, alarms and dashboards (lib/tenant-stack.ts). */
  readonly tenantStackNames: readonly string[];
  /** The billing export bucket (created by the stateful stack, or configured). */
  readonly exportBucketName: string;
  /** Key of the export objects, if SSE-KMS with a customer managed key. */
  readonly exportKeyArn?: string;
}

/** What a stream's topic and queues need besides the stream's contract definition (contract/streams.ts). */
interface TopicWiring {
  readonly fifo: boolean;
  /** Configured principals allowed to publish to the stream's topic. */
  readonly publishers: readonly string[];
  readonly outputDescription: string;
}

const topicWiringOf = (stream: StreamName, config: BillingDedupConfig): TopicWiring => {
  switch (stream) {
    case COST_STREAM:
      return {
        fifo: config.costStreamKind === 'fifo',
        publishers: config.costEventsPublishers,
        outputDescription: 'Publish cost events here',
      };
    case ALERT_STREAM:
      return {
        fifo: false,
        publishers: config.budgetAlertsPublishers,
        outputDescription:
          'Publish budget/anomaly alerts here (AWS Budgets, Cost Anomaly Detection)',
      };
  }
};

/** The shared cost topic (tenant from the message) exists without tenants, and with them only when trusted producers need it. */
const hasSharedCostTopic = (config: BillingDedupConfig): boolean =>
  config.tenants.length === 0 || config.trustedCostTopic;

/** What a stream's consumer needs besides the settings every consumer gets from QueueConsumer. */
interface ConsumerWiring {
  readonly description: string;
  /** Stream-specific settings (besides the dedup table every consumer uses). */
  readonly environment: ConsumerEnvironment;
  /** Permissions beyond those QueueConsumer grants (tables, their key, topics). */
  readonly grant: (role: iam.IRole, stream: StreamName) => void;
  /** Settings that grow with the configuration, bundled with the code (contract/function-config.ts). */
  readonly bundledConfig?: FunctionConfig;
}

/**
 * Topics, queues, consumers, alarms, dashboard and outputs. Holds no state of its own
 * (messages are transient; keys and tables live in the stateful stack), so it can be
 * destroyed and re-created freely.
 */
export class StatelessStack extends Stack {
  /** Each stream's shared topic, by stream name (the cost stream has none with tenants and no trusted topic). */
  readonly streamTopics: Readonly<Partial<Record<StreamName, sns.Topic>>>;
  /** With `tenants`: the ArnLike pattern of the tenant topics (they live in the tenant stacks). */
  readonly tenantTopicArnLike?: string;
  readonly notificationsTopic: sns.Topic;
  readonly opsTopic: sns.Topic;
  /** Each stream's queue + DLQ + consumer, in STREAM_DEFINITIONS order. */
  readonly pipelines: readonly QueueConsumer[];
  /** The billing-export topic and its two queue + DLQ + function pipelines. */
  readonly exports: ExportPipelines;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dlqOperatorRole: iam.Role;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config } = props;
    const stage = config.stage;

    // Imported by ARN on purpose: the key policy is owned by the stateful stack (it already lets
    // SNS, Budgets, Cost Anomaly Detection and CloudWatch use the key), so nothing here may try to
    // edit it — that would make the stateful stack depend on this one.
    const messagingKey = kms.Key.fromKeyArn(this, 'MessagingKey', props.messagingKey.keyArn);

    // ---------------- topics ----------------
    const streamTopics: Partial<Record<StreamName, sns.Topic>> = {};
    for (const stream of STREAM_DEFINITIONS) {
      const { fifo, publishers } = topicWiringOf(stream.name, config);
      if (stream.name === COST_STREAM && !hasSharedCostTopic(config)) continue;
      streamTopics[stream.name] = new SecureTopic(this, stream.outputPrefix, {
        topicName: messagingName(stage, stream.name, fifo),
        displayName: `billing-dedup ${stage} ${stream.label.toLowerCase()}`,
        fifo,
        masterKey: messagingKey,
        servicePublishers: stream.servicePublishers.map((publisherId) => ({
          service: servicePublisher(publisherId).principal,
          sourceArnLike: publisherSourceArnLike(stage, publisherId),
        })),
        principals: publishers,
      }).topic;
    }
    this.streamTopics = streamTopics;
    if (config.tenants.length > 0)
      this.tenantTopicArnLike = tenantTopicArnLike(this, stage, config.costStreamKind === 'fifo');
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
    // Cost Anomaly Detection also reaches the alerts topic as EventBridge events (same alert key).
    const anomalyRule = new AnomalyEventsRule(this, 'CostAnomalyEvents', {
      // Only the cost stream can be without a shared topic (tenant topics instead).
      topic: streamTopics[ALERT_STREAM] as sns.Topic,
      ruleName: anomalyRuleName(stage),
      masterKey: messagingKey,
      dlqRetention: Duration.days(config.dlqRetentionDays),
      opsTopic: this.opsTopic,
      dlqAlarmName: `${anomalyRuleName(stage)}-dlq-not-empty`,
    });
    this.alarms.push(anomalyRule.dlqAlarm);

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

    this.pipelines = STREAM_DEFINITIONS.map((stream) => {
      const { fifo } = topicWiringOf(stream.name, config);
      const { description, environment, grant, bundledConfig } = this.consumerWiringOf(
        stream.name,
        props,
      );
      const pipeline = new QueueConsumer(this, `${stream.outputPrefix}Pipeline`, {
        ...common,
        streamName: stream.name,
        topic: streamTopics[stream.name],
        ...(stream.name === COST_STREAM && this.tenantTopicArnLike
          ? { tenantTopicArnLike: this.tenantTopicArnLike }
          : {}),
        fifo,
        queueName: messagingName(stage, stream.name, fifo),
        consumer: {
          ...consumerCommon,
          functionName: resourceName(stage, stream.consumer),
          description: `billing-dedup ${stage}: ${description}`,
          entry: stream.handlerEntry,
          serviceName: serviceName(stage, stream.consumer),
          ...(bundledConfig ? { bundledConfig } : {}),
          environment: { dedupTableName: props.dedupTable.tableName, ...environment },
        },
      });
      grant(pipeline.consumer.role, stream.name);
      return pipeline;
    });

    this.exports = addExportPipelines(this, {
      config,
      bucketName: props.exportBucketName,
      bucketKeyArn: props.exportKeyArn,
      dedupTable: props.dedupTable,
      ledgerTable: props.ledgerTable,
      dataKeyArn: props.dataKey.keyArn,
      notificationsTopic: this.notificationsTopic,
      queueDefaults: common,
      consumerDefaults: {
        memorySize: consumerCommon.memorySize,
        logRetention: consumerCommon.logRetention,
        logRemovalPolicy: consumerCommon.logRemovalPolicy,
        logLevel: consumerCommon.logLevel,
      },
    });
    const allPipelines = [...this.pipelines, this.exports.deliveries, this.exports.chunks];

    // ---------------- alarms, dashboard ----------------
    for (const pipeline of allPipelines) {
      const alarms = new ConsumerAlarms(this, `${pipeline.node.id}Alarms`, {
        pipeline,
        namePrefix: resourceName(stage, pipeline.streamName),
        opsTopic: this.opsTopic,
        oldestMessageAgeThreshold: Duration.seconds(config.oldestMessageAgeAlarmSeconds),
      });
      this.alarms.push(...alarms.alarms);
    }
    if (config.autoCloseAfterDays !== undefined) {
      const autoClose = new PeriodAutoClose(this, 'PeriodAutoClose', {
        functionName: resourceName(stage, 'period-auto-close'),
        serviceName: serviceName(stage, 'period-auto-close'),
        ledgerTable: props.ledgerTable,
        dataKeyArn: props.dataKey.keyArn,
        afterDays: config.autoCloseAfterDays,
        logRetention: consumerCommon.logRetention,
        logRemovalPolicy: consumerCommon.logRemovalPolicy,
        logLevel: consumerCommon.logLevel,
        opsTopic: this.opsTopic,
        alarmName: resourceName(stage, 'period-auto-close-errors'),
      });
      this.alarms.push(autoClose.alarm);
    }
    const reconciliation = addReconciliation(this, config, { ...props, ...consumerCommon });
    // By name pattern, not by ARN: one ARN per alarm would grow the topic policy with every tenant.
    opsTopic.allowServicePublisher({
      service: SERVICE_PUBLISHERS.cloudWatchAlarms.principal,
      sourceArnLike: publisherSourceArnLike(stage, 'cloudWatchAlarms'),
    });
    allowDlqOperations(this.dlqOperatorRole, allPipelines, messagingKey, [
      this.stackId,
      props.statefulStackId,
    ]);
    const dashboard = new OpsDashboard(this, 'Dashboard', {
      dashboardName: resourceName(stage, 'operations'),
      pipelines: allPipelines,
      alarms: this.alarms,
    });
    reconciliation?.addDashboardWidgets(dashboard.dashboard);
    this.exportForTenantStacks();

    // ---------------- outputs (stable ids, no exports: tools read them by stack name) ----------------
    const out = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    const pipelineOutputs = (
      ids: Record<'queueUrl' | 'queueArn' | 'dlqUrl' | 'dlqArn' | 'consumerFunctionName', string>,
      pipeline: QueueConsumer,
      label: string,
    ) => {
      out(ids.queueUrl, pipeline.queue.queueUrl, `${label} source queue`);
      out(ids.queueArn, pipeline.queue.queueArn, `${label} source queue ARN`);
      out(ids.dlqUrl, pipeline.deadLetterQueue.queueUrl, `${label} dead-letter queue`);
      out(ids.dlqArn, pipeline.deadLetterQueue.queueArn, `${label} dead-letter queue ARN`);
      out(
        ids.consumerFunctionName,
        pipeline.consumer.fn.functionName,
        `Consumer of the ${label.toLowerCase()} queue`,
      );
    };
    out(STATELESS_OUTPUTS.stage, stage, 'Deployment stage');
    for (const [index, stream] of STREAM_DEFINITIONS.entries()) {
      const ids = streamOutputs(stream.name);
      const pipeline = this.pipelines[index];
      const label = stream.label;
      const topicArn = streamTopics[stream.name]?.topicArn;
      if (topicArn)
        out(ids.topicArn, topicArn, topicWiringOf(stream.name, config).outputDescription);
      if (stream.name === COST_STREAM) {
        out(STATELESS_OUTPUTS.costEventsStreamKind, config.costStreamKind, 'fifo or standard');
        out(
          STATELESS_OUTPUTS.lateChargePolicy,
          config.lateChargePolicy,
          'What a charge for a closed billing period does: roll-forward or reject',
        );
      }
      pipelineOutputs(ids, pipeline, label);
    }
    const { deliveries, chunks, deliveriesTopic } = this.exports;
    out(
      STACK_OUTPUTS.exportBucketName,
      props.exportBucketName,
      'Billing export bucket (point AWS Data Exports here)',
    );
    out(
      STATELESS_OUTPUTS.exportSources,
      JSON.stringify(config.exportSources),
      'Tenant of each export bucket prefix (exportSources), as JSON (billing-dedup export put checks --prefix)',
    );
    out(
      EXPORT_DELIVERIES_OUTPUTS.topicArn,
      deliveriesTopic.topicArn,
      'Manifest notifications of the export bucket',
    );
    for (const [ids, pipeline, label] of [
      [EXPORT_DELIVERIES_OUTPUTS, deliveries, 'Export deliveries'],
      [EXPORT_CHUNKS_OUTPUTS, chunks, 'Export chunks'],
    ] as const) {
      pipelineOutputs(ids, pipeline, label);
    }
    out(
      STATELESS_OUTPUTS.notificationsTopicArn,
      this.notificationsTopic.topicArn,
      'Subscribe here to receive one notification per alert',
    );
    out(STATELESS_OUTPUTS.opsTopicArn, this.opsTopic.topicArn, 'Alarm notifications');
    if (props.tenantStackNames.length > 0)
      out(
        TENANT_STACKS_OUTPUT,
        JSON.stringify(props.tenantStackNames),
        'The stacks of the tenants’ cost-events topics, as JSON (billing-dedup publish --tenant reads their outputs)',
      );
    out(
      STATELESS_OUTPUTS.dlqOperatorRoleArn,
      this.dlqOperatorRole.roleArn,
      'Assume this role to peek and redrive the DLQs (billing-dedup dlq …)',
    );
    out(
      STATELESS_OUTPUTS.dashboardName,
      dashboard.dashboard.dashboardName,
      'CloudWatch dashboard of this stage',
    );
  }

  /**
   * What the tenant stacks import, exported in every configuration (also without tenants): CloudFormation
   * refuses to remove an export a deployed stack imports, and a tenant stack stays deployed until it is
   * destroyed, whatever the configuration says.
   */
  private exportForTenantStacks(): void {
    const names = tenantStackImports(this.stackName);
    const cost = this.pipelines[STREAM_NAMES.indexOf(COST_STREAM)];
    this.exportValue(cost.queue.queueArn, { name: names.costQueueArn });
    this.exportValue(cost.deadLetterQueue.queueArn, { name: names.costDlqArn });
    this.exportValue(this.opsTopic.topicArn, { name: names.opsTopicArn });
  }

  private consumerWiringOf(stream: StreamName, props: StatelessStackProps): ConsumerWiring {
    switch (stream) {
      case COST_STREAM:
        return {
          description: 'cost events → ledger, exactly once',
          environment: {
            ledgerTableName: props.ledgerTable.tableName,
            ...(props.config.tenants.length > 0
              ? {
                  // The pattern only: the tenants (they grow) are in the bundled config below.
                  tenantBindings: this.toJsonString({
                    topicArnPattern: tenantTopicArnPattern(
                      this,
                      props.config.stage,
                      props.config.costStreamKind === 'fifo',
                    ),
                    ...(this.streamTopics[COST_STREAM]
                      ? { trustedTopicArn: this.streamTopics[COST_STREAM].topicArn }
                      : {}),
                  }),
                }
              : {}),
            totalShards: props.config.totalShards,
            lateChargePolicy: props.config.lateChargePolicy,
          },
          ...(props.config.tenants.length > 0
            ? { bundledConfig: { tenants: tenantBindingsOf(props.config.tenants, '').tenants } }
            : {}),
          grant: (role) => {
            allowTable(role, 'LedgerTableAccess', props.ledgerTable, [
              'dynamodb:BatchGetItem',
              'dynamodb:GetItem',
              'dynamodb:PutItem',
              'dynamodb:UpdateItem',
            ]);
            // Claims are written inside TransactWriteItems, which IAM authorizes per item action.
            allowTable(role, 'DedupTableAccess', props.dedupTable, [
              'dynamodb:PutItem',
              'dynamodb:GetItem',
            ]);
            allowTableKey(role, props.dataKey.keyArn);
          },
        };
      case ALERT_STREAM:
        return {
          description: 'budget/anomaly alerts → one notification each',
          environment: { notificationsTopicArn: this.notificationsTopic.topicArn },
          grant: (role, name) => {
            // Powertools Idempotency persistence layer: its records are `<keyPrefix>#<hash>` with
            // the stream name as keyPrefix (lambda/adapters/sns-notifier.ts), so the role reaches
            // no other item of the shared dedup table (cost claims start with the cost stream's name).
            allowTable(
              role,
              'DedupTableAccess',
              props.dedupTable,
              [
                'dynamodb:GetItem',
                'dynamodb:PutItem',
                'dynamodb:UpdateItem',
                'dynamodb:DeleteItem',
              ],
              { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${name}#*`] } },
            );
            allowTableKey(role, props.dataKey.keyArn);
            // kms:GenerateDataKey/Decrypt on the messaging key (needed to publish to the encrypted
            // topic) is already granted by QueueConsumer for forwarding poison messages to the DLQ.
            role.addToPrincipalPolicy(
              new iam.PolicyStatement({
                sid: 'PublishNotifications',
                actions: ['sns:Publish'],
                resources: [this.notificationsTopic.topicArn],
              }),
            );
          },
        };
    }
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
  pipelines: readonly QueueConsumer[],
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
