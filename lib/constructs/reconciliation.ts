import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { consumerEnvironment } from '../../contract/environment';
import {
  RECONCILIATION_ENV,
  RECONCILIATION_METRICS,
  parseTimeUtc,
} from '../../contract/reconciliation';
import { METRIC_NAMESPACE } from '../../contract/telemetry';
import type { BillingDedupConfig } from '../config';
import { resourceName, serviceName } from '../naming';
import { ConsumerFunction } from './consumer-function';
import { tableKeyStatementProps } from '../streams/table-grants';

/** The dedup-table key prefix of the drift notification claims (lambda/handlers/reconciliation.ts). */
const CLAIM_SCOPE = 'reconciliation';
/** Ledger partitions of the records (lambda/adapters/table-layout.ts `RECON_PREFIX`). */
const RECORD_KEYS = 'RECON#*';
const STATUSES = ['ok', 'drift', 'missing-in-ledger', 'missing-at-provider'] as const;

export interface ReconciliationProps {
  readonly functionName: string;
  readonly serviceName: string;
  readonly ledgerTable: dynamodb.ITable;
  readonly dedupTable: dynamodb.ITable;
  readonly dedupTtl: Duration;
  readonly dataKeyArn: string;
  readonly messagingKeyArn: string;
  readonly notificationsTopic: sns.ITopic;
  readonly opsTopic: sns.ITopic;
  readonly alarmName: string;
  readonly scheduleName: string;
  /** `HH:MM`, UTC (config `reconciliationTimeUtc`). */
  readonly timeUtc: string;
  readonly tolerancePercent: string;
  readonly floor: string;
  readonly lookbackDays: number;
  readonly payerTenant?: string;
  /** Config `reconciliationProvider` and, for `invoicing`, its billing accounts. */
  readonly provider: string;
  readonly invoiceAccounts: readonly string[];
  /** Config `reconciliationRoleArn` / `reconciliationExternalId`: a payer role assumed to ask the provider. */
  readonly payerRole?: { readonly roleArn: string; readonly externalId: string };
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: string;
}

/**
 * The nightly reconciliation against the provider (docs/reconciliation.md): an EventBridge Scheduler
 * schedule invokes a function that reads the ledger, asks Cost Explorer for the payer's totals, writes
 * `RECON#` records and notifies each final figure above the tolerance once (kind
 * `reconciliation-drift`). An alarm pages the ops topic when a run finds one, with the runbook in its
 * description; `addDashboardWidgets` puts the status beside the stream widgets.
 */
export class Reconciliation extends Construct {
  readonly function: ConsumerFunction;
  readonly schedule: scheduler.CfnSchedule;
  readonly driftAlarm: cloudwatch.Alarm;
  readonly errorAlarm: cloudwatch.Alarm;
  private readonly serviceName: string;

  constructor(scope: Construct, id: string, props: ReconciliationProps) {
    super(scope, id);
    this.serviceName = props.serviceName;
    this.function = new ConsumerFunction(this, 'Function', {
      functionName: props.functionName,
      description:
        'billing-dedup: nightly reconciliation of the ledger against the provider totals',
      entry: 'lambda/handlers/reconciliation.ts',
      timeout: Duration.minutes(15),
      memorySize: 1024,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        ...consumerEnvironment({
          ledgerTableName: props.ledgerTable.tableName,
          dedupTableName: props.dedupTable.tableName,
          dedupTtlSeconds: props.dedupTtl.toSeconds(),
          notificationsTopicArn: props.notificationsTopic.topicArn,
          serviceName: props.serviceName,
          logLevel: props.logLevel,
        }),
        [RECONCILIATION_ENV.tolerancePercent]: props.tolerancePercent,
        [RECONCILIATION_ENV.floor]: props.floor,
        [RECONCILIATION_ENV.lookbackDays]: String(props.lookbackDays),
        ...(props.payerTenant ? { [RECONCILIATION_ENV.payerTenant]: props.payerTenant } : {}),
        [RECONCILIATION_ENV.provider]: props.provider,
        ...(props.invoiceAccounts.length > 0
          ? { [RECONCILIATION_ENV.invoiceAccounts]: props.invoiceAccounts.join(',') }
          : {}),
        ...(props.payerRole
          ? {
              [RECONCILIATION_ENV.roleArn]: props.payerRole.roleArn,
              [RECONCILIATION_ENV.externalId]: props.payerRole.externalId,
            }
          : {}),
      },
    });
    const role = this.function.role;
    const add = (statement: iam.PolicyStatementProps) =>
      role.addToPrincipalPolicy(new iam.PolicyStatement(statement));
    add({
      sid: 'ReadLedgerTotals',
      // The statement rows and PERIOD items of every account-period (one Scan each a night).
      actions: ['dynamodb:Scan'],
      resources: [props.ledgerTable.tableArn],
    });
    add({
      sid: 'WriteReconciliationRecords',
      actions: ['dynamodb:BatchWriteItem'],
      resources: [props.ledgerTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [RECORD_KEYS] } },
    });
    add({
      sid: 'DriftNotificationClaims',
      // Powertools Idempotency records `reconciliation#<hash>` in the dedup table.
      actions: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ],
      resources: [props.dedupTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CLAIM_SCOPE}#*`] } },
    });
    add(tableKeyStatementProps(props.dataKeyArn));
    add({
      sid: 'PublishDriftNotifications',
      actions: ['sns:Publish'],
      resources: [props.notificationsTopic.topicArn],
    });
    add({
      sid: 'UseMessagingKeyThroughSns',
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: [props.messagingKeyArn],
      conditions: { StringEquals: { 'kms:ViaService': `sns.${Aws.REGION}.amazonaws.com` } },
    });
    if (props.payerRole) {
      // The provider is asked under the payer role: the function's own role needs only to assume it.
      add({
        sid: 'AssumePayerRole',
        actions: ['sts:AssumeRole'],
        resources: [props.payerRole.roleArn],
      });
    } else {
      add({
        sid: 'ReadProviderTotals',
        // Cost Explorer and Invoicing have no resource-level permissions: `*` is the only resource.
        actions: ['ce:GetCostAndUsage', 'invoicing:ListInvoiceSummaries'],
        resources: ['*'],
      });
    }

    const { hour, minute } = parseTimeUtc(props.timeUtc);
    // L1 with its own role: the L2 target grants `<function>:*` too (every version); this one may invoke
    // exactly the function.
    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: `EventBridge Scheduler: invokes ${props.functionName}`,
    });
    schedulerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeReconciliation',
        actions: ['lambda:InvokeFunction'],
        resources: [this.function.fn.functionArn],
      }),
    );
    this.schedule = new scheduler.CfnSchedule(this, 'Schedule', {
      name: props.scheduleName,
      description: `billing-dedup: nightly reconciliation at ${props.timeUtc} UTC`,
      scheduleExpression: `cron(${minute} ${hour} * * ? *)`,
      scheduleExpressionTimezone: 'UTC',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: this.function.fn.functionArn,
        roleArn: schedulerRole.roleArn,
        retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 6 * 3600 },
      },
    });
    if (!props.payerRole)
      NagSuppressions.addResourceSuppressions(
        role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Cost Explorer (ce:GetCostAndUsage) and the Invoicing API (invoicing:ListInvoiceSummaries) define no ' +
              'resource types: the service authorization reference allows only `*` as their resource.',
            appliesTo: ['Resource::*'],
          },
        ],
        true,
      );

    this.driftAlarm = new cloudwatch.Alarm(this, 'Drift', {
      alarmName: props.alarmName,
      alarmDescription:
        `Reconciliation drift: a final provider figure differs from the ledger by more than ${props.tolerancePercent} % ` +
        `(floor ${props.floor}). Runbook (docs/operations.md "Reconciliation drift"): run ` +
        '`billing-dedup reconcile --period YYYY-MM` for the period in the notification (kind reconciliation-drift); ' +
        'missing-in-ledger: look for an export or stream that never arrived (dlq peek, export status); ' +
        'missing-at-provider: look for a wrong account id or tenant; drift: compare the statement (ledger statement) ' +
        'with the provider invoice, then fix by an export re-delivery or a charge void; an incomplete export snapshot ' +
        '(kind reconciliation-incomplete: rows read differ from the rows its files hold): re-deliver the export. ' +
        'The alarm clears after a night without either.',
      metric: this.pagingMetric(),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.errorAlarm = new cloudwatch.Alarm(this, 'Errors', {
      alarmName: `${props.alarmName}-errors`,
      alarmDescription:
        'The nightly reconciliation failed (Cost Explorer throttling beyond its retries, a DynamoDB error): read ' +
        'the function log, then run `billing-dedup reconcile --period YYYY-MM --run` or wait for the next night.',
      metric: this.function.fn.metricErrors({
        period: Duration.days(1),
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [this.driftAlarm, this.errorAlarm]) {
      alarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
      alarm.addOkAction(new actions.SnsAction(props.opsTopic));
    }
  }

  private metric(name: string, statistic: string, dimensions: Record<string, string> = {}) {
    return new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: this.serviceName, ...dimensions },
      statistic,
      period: Duration.days(1),
    });
  }

  /** Final figures above the tolerance found by the night's run. */
  pagingMetric(): cloudwatch.Metric {
    return this.metric(RECONCILIATION_METRICS.paging, cloudwatch.Stats.MAXIMUM);
  }

  /** The reconciliation row of the operations dashboard: status counts, pages, largest drift. */
  addDashboardWidgets(dashboard: cloudwatch.Dashboard): void {
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          '## reconciliation (nightly, ledger vs provider) — per period: `billing-dedup reconcile --period YYYY-MM`',
        width: 24,
        height: 1,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'reconciliation: records by status (last run)',
        left: STATUSES.map((status) =>
          this.metric(RECONCILIATION_METRICS.records, cloudwatch.Stats.MAXIMUM, { status }).with({
            label: status,
          }),
        ),
        stacked: true,
        width: 8,
      }),
      new cloudwatch.SingleValueWidget({
        title: 'reconciliation: paging (drift + incomplete)',
        metrics: [this.pagingMetric().with({ label: 'paging' })],
        width: 4,
      }),
      new cloudwatch.SingleValueWidget({
        title: 'reconciliation: incomplete export snapshots (account-periods)',
        metrics: [
          this.metric(RECONCILIATION_METRICS.incomplete, cloudwatch.Stats.MAXIMUM).with({
            label: 'incomplete',
          }),
        ],
        width: 4,
      }),
      new cloudwatch.SingleValueWidget({
        title: 'reconciliation: largest |difference|',
        metrics: [
          this.metric(RECONCILIATION_METRICS.largestDifference, cloudwatch.Stats.MAXIMUM).with({
            label: 'largest drift',
          }),
        ],
        width: 4,
      }),
      new cloudwatch.GraphWidget({
        title: 'reconciliation: Cost Explorer requests',
        left: [
          this.metric(RECONCILIATION_METRICS.providerRequests, cloudwatch.Stats.SUM).with({
            label: 'billed requests',
          }),
        ],
        width: 4,
      }),
    );
  }
}

/** What the stateless stack hands over: its topics and alarm list, the tables and keys, log settings. */
export interface ReconciliationHost extends Construct {
  readonly notificationsTopic: sns.ITopic;
  readonly opsTopic: sns.ITopic;
  readonly alarms: cloudwatch.Alarm[];
}

/**
 * The reconciliation of a stateless stack, when config `reconciliation` is on (the default); its alarms
 * join the stack's. One call in lib/stateless-stack.ts.
 */
export function addReconciliation(
  host: ReconciliationHost,
  config: BillingDedupConfig,
  props: {
    ledgerTable: dynamodb.ITable;
    dedupTable: dynamodb.ITable;
    dataKey: { keyArn: string };
    messagingKey: { keyArn: string };
    logRetention: logs.RetentionDays;
    logRemovalPolicy: RemovalPolicy;
    logLevel: string;
  },
): Reconciliation | undefined {
  if (!config.reconciliation) return undefined;
  const reconciliation = new Reconciliation(host, 'Reconciliation', {
    functionName: resourceName(config.stage, 'reconciliation'),
    serviceName: serviceName(config.stage, 'reconciliation'),
    scheduleName: resourceName(config.stage, 'reconciliation-nightly'),
    alarmName: resourceName(config.stage, 'reconciliation-drift'),
    ledgerTable: props.ledgerTable,
    dedupTable: props.dedupTable,
    dedupTtl: Duration.days(config.dedupTtlDays),
    dataKeyArn: props.dataKey.keyArn,
    messagingKeyArn: props.messagingKey.keyArn,
    notificationsTopic: host.notificationsTopic,
    opsTopic: host.opsTopic,
    timeUtc: config.reconciliationTimeUtc,
    tolerancePercent: config.reconciliationTolerancePercent,
    floor: config.reconciliationFloor,
    lookbackDays: config.reconciliationLookbackDays,
    ...(config.reconciliationPayerTenant ? { payerTenant: config.reconciliationPayerTenant } : {}),
    provider: config.reconciliationProvider,
    invoiceAccounts: config.reconciliationInvoiceAccounts,
    ...(config.reconciliationRoleArn && config.reconciliationExternalId
      ? {
          payerRole: {
            roleArn: config.reconciliationRoleArn,
            externalId: config.reconciliationExternalId,
          },
        }
      : {}),
    logRetention: props.logRetention,
    logRemovalPolicy: props.logRemovalPolicy,
    logLevel: props.logLevel,
  });
  host.alarms.push(reconciliation.driftAlarm, reconciliation.errorAlarm);
  return reconciliation;
}
