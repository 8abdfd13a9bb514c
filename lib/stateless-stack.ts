import { Duration, Stack, StackProps } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { tenantStackImports } from '../contract/outputs';
import { ALERT_STREAM, COST_STREAM, type StreamName } from '../contract/streams';
import { BillingDedupConfig } from './config';
import { AnomalyEventsRule } from './constructs/anomaly-events-rule';
import type { ArchiveTarget } from './constructs/archive-writer';
import { ConsumerAlarms } from './constructs/consumer-alarms';
import { DlqOperatorRole } from './constructs/dlq-operator-role';
import { OpsDashboard, addProvisionalDriftRow } from './constructs/ops-dashboard';
import { PeriodAutoClose } from './constructs/period-auto-close';
import { addPushEndpoint } from './constructs/push-endpoint';
import { azureAcquisitionSpec } from './constructs/azure-acquisition';
import { gcpAcquisitionSpec } from './constructs/gcp-acquisition';
import { addScheduledAcquisition } from './constructs/scheduled-acquisition';
import { addReconciliation } from './constructs/reconciliation';
import type { QueueConsumer } from './constructs/queue-consumer';
import { tenantTopicArnLike } from './constructs/tenant-topics';
import { anomalyRuleName } from './name-patterns';
import { resourceName, serviceName } from './naming';
import { AlertsStream } from './streams/alerts-stream';
import { addArchiveSpool } from './streams/archive-spool';
import { CostStream } from './streams/cost-stream';
import { addExportPipelines, type ExportPipelines } from './streams/export-pipelines';
import { MessagingTopics } from './streams/messaging-topics';
import { pipelineDefaults } from './streams/pipeline-defaults';
import { addStatelessOutputs } from './streams/stateless-outputs';

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
  /** The evidence archive every consumer writes each batch into before acknowledging it. */
  readonly archive: ArchiveTarget;
}

/**
 * Topics, queues, consumers, alarms, dashboard and outputs. Holds no state of its own
 * (messages are transient; keys and tables live in the stateful stack), so it can be
 * destroyed and re-created freely. Each part is built by its own construct (lib/streams/,
 * lib/constructs/), in the order below: the order is the template's resource order, and every
 * construct keeps the id it has always had, so the deployed logical ids never move.
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
  /** The archive spool and the archiver (both `archiveDelivery` modes). */
  readonly archiveSpool: QueueConsumer;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dlqOperatorRole: DlqOperatorRole;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config } = props;
    const stage = config.stage;
    // Imported by ARN on purpose: the key policy is owned by the stateful stack (it already lets
    // SNS, Budgets, Cost Anomaly Detection and CloudWatch use the key), so nothing here may try to
    // edit it — that would make the stateful stack depend on this one.
    const messagingKey = kms.Key.fromKeyArn(this, 'MessagingKey', props.messagingKey.keyArn);
    const tables = {
      dedupTable: props.dedupTable,
      ledgerTable: props.ledgerTable,
      dataKeyArn: props.dataKey.keyArn,
    };

    const topics = new MessagingTopics(this, { config, messagingKey });
    this.streamTopics = topics.streamTopics;
    this.notificationsTopic = topics.notifications;
    this.opsTopic = topics.ops;
    if (config.tenants.length > 0)
      this.tenantTopicArnLike = tenantTopicArnLike(this, stage, config.costStreamKind === 'fifo');

    // Cost Anomaly Detection also reaches the alerts topic as EventBridge events (same alert key).
    const anomalyRule = new AnomalyEventsRule(this, 'CostAnomalyEvents', {
      // Only the cost stream can be without a shared topic (tenant topics instead).
      topic: this.streamTopics[ALERT_STREAM] as sns.Topic,
      ruleName: anomalyRuleName(stage),
      masterKey: messagingKey,
      dlqRetention: Duration.days(config.dlqRetentionDays),
      opsTopic: this.opsTopic,
      dlqAlarmName: `${anomalyRuleName(stage)}-dlq-not-empty`,
    });
    this.alarms.push(anomalyRule.dlqAlarm);

    this.dlqOperatorRole = new DlqOperatorRole(this, 'DlqOperatorRole', { stage });
    const defaults = pipelineDefaults(config, messagingKey, [
      this.dlqOperatorRole.roleArn,
      ...config.redriveOperators,
    ]);
    const cost = new CostStream(this, {
      config,
      defaults,
      topic: this.streamTopics[COST_STREAM],
      tenantTopicArnLike: this.tenantTopicArnLike,
      ...tables,
    });
    const alerts = new AlertsStream(this, {
      config,
      defaults,
      topic: this.streamTopics[ALERT_STREAM] as sns.Topic,
      notificationsTopic: this.notificationsTopic,
      dedupTable: props.dedupTable,
      dataKeyArn: props.dataKey.keyArn,
    });
    this.pipelines = [cost, alerts];
    this.exports = addExportPipelines(this, {
      config,
      bucketName: props.exportBucketName,
      bucketKeyArn: props.exportKeyArn,
      ...tables,
      notificationsTopic: this.notificationsTopic,
      queueDefaults: defaults.queue,
      consumerDefaults: defaults.consumer,
    });
    const writers = [...this.pipelines, this.exports.deliveries, this.exports.chunks];
    this.archiveSpool = addArchiveSpool(this, {
      config,
      defaults,
      archive: props.archive,
      writers,
    });
    const allPipelines = [...writers, this.archiveSpool];

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
        logRetention: defaults.consumer.logRetention,
        logRemovalPolicy: defaults.consumer.logRemovalPolicy,
        logLevel: defaults.consumer.logLevel,
        opsTopic: this.opsTopic,
        alarmName: resourceName(stage, 'period-auto-close-errors'),
      });
      this.alarms.push(autoClose.alarm);
    }
    const reconciliation = addReconciliation(this, config, { ...props, ...defaults.consumer });
    const push = addPushEndpoint(this, config, {
      alertsTopic: this.streamTopics[ALERT_STREAM] as sns.Topic,
      costTopic: this.streamTopics[COST_STREAM],
      opsTopic: this.opsTopic,
      ledgerTable: props.ledgerTable,
      dedupTable: props.dedupTable,
      dataKeyArn: props.dataKey.keyArn,
      messagingKeyArn: messagingKey.keyArn,
      ...defaults.consumer,
    });
    if (push) this.alarms.push(push.refusedAuthAlarm);
    const acquisitionProps = {
      config,
      ledgerTable: props.ledgerTable,
      dataKeyArn: props.dataKey.keyArn,
      exportBucketName: props.exportBucketName,
      ...(props.exportKeyArn ? { exportKeyArn: props.exportKeyArn } : {}),
      logRetention: defaults.consumer.logRetention,
      logRemovalPolicy: defaults.consumer.logRemovalPolicy,
      logLevel: defaults.consumer.logLevel,
      messagingKey,
      redriveOperatorArns: [this.dlqOperatorRole.roleArn, ...config.redriveOperators],
    };
    const acquisitions = [
      addScheduledAcquisition(
        this,
        'AzureAcquisition',
        acquisitionProps,
        azureAcquisitionSpec(config),
      ),
      addScheduledAcquisition(this, 'GcpAcquisition', acquisitionProps, gcpAcquisitionSpec(config)),
    ].flatMap((acquisition) => (acquisition ? [acquisition.steps] : []));
    topics.allowAlarms();
    this.dlqOperatorRole.allowOperations([...allPipelines, ...acquisitions], messagingKey, [
      this.stackId,
      props.statefulStackId,
    ]);
    const dashboard = new OpsDashboard(this, 'Dashboard', {
      dashboardName: resourceName(stage, 'operations'),
      pipelines: allPipelines,
      alarms: this.alarms,
    });
    addProvisionalDriftRow(
      dashboard.dashboard,
      this.exports.chunks.serviceName,
      config.provisionalDriftThreshold.percent,
    );
    reconciliation?.addDashboardWidgets(dashboard.dashboard);
    this.exportForTenantStacks(cost);

    addStatelessOutputs(this, {
      config,
      streamTopics: this.streamTopics,
      pipelines: this.pipelines,
      exports: this.exports,
      archiveSpool: this.archiveSpool,
      exportBucketName: props.exportBucketName,
      notificationsTopic: this.notificationsTopic,
      opsTopic: this.opsTopic,
      tenantStackNames: props.tenantStackNames,
      dlqOperatorRoleArn: this.dlqOperatorRole.roleArn,
      dashboardName: dashboard.dashboard.dashboardName,
    });
  }

  /**
   * What the tenant stacks import, exported in every configuration (also without tenants): CloudFormation
   * refuses to remove an export a deployed stack imports, and a tenant stack stays deployed until it is
   * destroyed, whatever the configuration says.
   */
  private exportForTenantStacks(cost: QueueConsumer): void {
    const names = tenantStackImports(this.stackName);
    this.exportValue(cost.queue.queueArn, { name: names.costQueueArn });
    this.exportValue(cost.deadLetterQueue.queueArn, { name: names.costDlqArn });
    this.exportValue(this.opsTopic.topicArn, { name: names.opsTopicArn });
  }
}
