import { createHash } from 'node:crypto';
import { Aws, CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { AcquisitionEvent } from '../../contract/acquisition';
import { consumerEnvironment } from '../../contract/environment';
import type { BillingDedupConfig } from '../config';
import { resourceName, serviceName } from '../naming';
import { allowTable, allowTableKey } from '../streams/table-grants';
import { AcquisitionStepQueue } from './acquisition-step-queue';
import { ConsumerFunction } from './consumer-function';

/** What the stack gives every acquisition function. */
export interface AcquisitionStackProps {
  readonly config: BillingDedupConfig;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKeyArn: string;
  readonly exportBucketName: string;
  /** Key of the export objects (none for SSE-S3). */
  readonly exportKeyArn?: string;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: string;
  /** The key of the step queues (the app's messaging key, as every queue). */
  readonly messagingKey: kms.IKey;
  /** Who may redrive a step DLQ into its queue (the DLQ operator role, `redriveOperators`). */
  readonly redriveOperatorArns: readonly string[];
}

/** One provider's acquisition: its function, its sources and the names of what it grants. */
export interface AcquisitionSpec {
  /** `export-azure`, `export-gcp`: the function, schedule group and alarm names. */
  readonly name: string;
  readonly description: string;
  /** The handler file (lambda/handlers/…). */
  readonly entry: string;
  readonly importMetaUrl?: boolean;
  /** The env var the sources travel in, and the sources (JSON) as the function reads them. */
  readonly sourcesEnv: string;
  readonly sources: readonly { tenant: string; secretArn: string }[];
  /** Each tenant with its schedule expression. */
  readonly schedules: readonly { tenant: string; schedule: string }[];
  /** A tenant's schedule name, unique across every acquisition of the stack. */
  readonly scheduleName: (tenant: string) => string;
  /** `describe` of a tenant's schedule. */
  readonly scheduleDescription: (tenant: string) => string;
  readonly secrets: { sid: string };
  readonly cursors: { sid: string; actions: string[]; partitionKeys: string[] };
  /** The key prefixes the function writes under (ending in `/`), and the reads it needs there. */
  readonly writes: {
    sid: string;
    listSid: string;
    actions: string[];
    prefixes: string[];
    nagReason: string;
  };
  readonly invokeSid: string;
  readonly output: { id: string; description: string };
  readonly alarmDescription: string;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * An acquisition that runs on a schedule (docs/azure-acquisition.md, docs/gcp-acquisition.md): one
 * function, one EventBridge Scheduler schedule per tenant sending `{"tenant"}` to it, its step queue
 * (a pass short of time or throttled continues there; the function consumes it too), alarms on its
 * errors and on the step DLQ to the ops topic, the sources as a stack output. The role reads only the named secrets, writes only
 * under the given prefixes and touches only the sources' cursor items.
 */
export class ScheduledAcquisition extends Construct {
  readonly function: ConsumerFunction;
  readonly schedules: scheduler.CfnSchedule[] = [];
  readonly errorAlarm: cloudwatch.Alarm;
  readonly steps: AcquisitionStepQueue;

  constructor(
    scope: Construct,
    id: string,
    props: AcquisitionStackProps & {
      readonly opsTopic: sns.ITopic;
      readonly spec: AcquisitionSpec;
    },
  ) {
    super(scope, id);
    const { config, spec } = props;
    const functionName = resourceName(config.stage, spec.name);
    const timeout = Duration.minutes(15);
    this.steps = new AcquisitionStepQueue(this, 'Steps', {
      functionName,
      functionTimeout: timeout,
      masterKey: props.messagingKey,
      retention: Duration.days(config.queueRetentionDays),
      dlqRetention: Duration.days(config.dlqRetentionDays),
      maxReceiveCount: config.acquisitionStepMaxReceiveCount,
      redriveOperatorArns: props.redriveOperatorArns,
      opsTopic: props.opsTopic,
    });
    this.function = new ConsumerFunction(this, 'Function', {
      functionName,
      description: spec.description,
      entry: spec.entry,
      timeout,
      memorySize: 512,
      ...(spec.importMetaUrl ? { importMetaUrl: true } : {}),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        ...consumerEnvironment({
          ledgerTableName: props.ledgerTable.tableName,
          exportBucketName: props.exportBucketName,
          serviceName: serviceName(config.stage, spec.name),
          logLevel: props.logLevel,
          acquisitionStepQueueUrl: this.steps.queue.queueUrl,
          dlqUrl: this.steps.deadLetterQueue.queueUrl,
          acquisitionStepMaxReceiveCount: config.acquisitionStepMaxReceiveCount,
        }),
        [spec.sourcesEnv]: JSON.stringify(spec.sources),
      },
    });
    new CfnOutput(Stack.of(this), spec.output.id, {
      value: JSON.stringify(spec.sources),
      description: spec.output.description,
    });
    new CfnOutput(Stack.of(this), `${id}StepQueueUrl`, {
      value: this.steps.queue.queueUrl,
      description: `${spec.name}: step queue URL (a pass continued through SQS)`,
    });
    new CfnOutput(Stack.of(this), `${id}StepDlqUrl`, {
      value: this.steps.deadLetterQueue.queueUrl,
      description: `${spec.name}: step dead-letter queue URL (billing-dedup dlq peek|redrive --dlq-url)`,
    });
    this.grant(props);
    this.steps.consumeWith(this.function);
    this.schedule(props, functionName);

    this.errorAlarm = new cloudwatch.Alarm(this, 'Errors', {
      alarmName: resourceName(config.stage, `${spec.name}-errors`),
      alarmDescription: spec.alarmDescription,
      metric: this.function.fn.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.errorAlarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
    this.errorAlarm.addOkAction(new actions.SnsAction(props.opsTopic));
  }

  private grant(props: AcquisitionStackProps & { readonly spec: AcquisitionSpec }): void {
    const { spec } = props;
    const role = this.function.role;
    const add = (statement: iam.PolicyStatementProps) =>
      role.addToPrincipalPolicy(new iam.PolicyStatement(statement));
    add({
      sid: spec.secrets.sid,
      actions: ['secretsmanager:GetSecretValue'],
      resources: [...new Set(spec.sources.map((source) => source.secretArn))],
    });
    allowTable(role, spec.cursors.sid, props.ledgerTable, spec.cursors.actions, {
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': spec.cursors.partitionKeys },
    });
    allowTableKey(role, props.dataKeyArn);
    const { prefixes } = spec.writes;
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${props.exportBucketName}`;
    add({
      sid: spec.writes.sid,
      actions: spec.writes.actions,
      resources: prefixes.map((prefix) => `${bucketArn}/${prefix}*`),
    });
    add({
      sid: spec.writes.listSid,
      // S3 answers 404 rather than 403 for an object not written yet only with s3:ListBucket.
      actions: ['s3:ListBucket'],
      resources: [bucketArn],
      conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
    });
    if (props.exportKeyArn)
      add({
        sid: 'EncryptExportObjectsThroughS3',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [props.exportKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
      });
    NagSuppressions.addResourceSuppressions(
      role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: spec.writes.nagReason,
          appliesTo: prefixes.map((prefix) => ({
            regex: `/^Resource::arn:<AWS::Partition>:s3:::[^/]+\\/${escapeRegex(prefix)}\\*$/`,
          })),
        },
      ],
      true,
    );
  }

  private schedule(props: { readonly spec: AcquisitionSpec }, functionName: string): void {
    const { spec } = props;
    // L1 with its own role, as the reconciliation: the role may invoke exactly this function.
    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: `EventBridge Scheduler: invokes ${functionName}`,
    });
    schedulerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: spec.invokeSid,
        actions: ['lambda:InvokeFunction'],
        resources: [this.function.fn.functionArn],
      }),
    );
    const group = new scheduler.CfnScheduleGroup(this, 'Schedules', { name: functionName });
    for (const { tenant, schedule: expression } of spec.schedules) {
      const input: AcquisitionEvent = { tenant };
      this.schedules.push(
        new scheduler.CfnSchedule(this, `Schedule-${tenant}`, {
          name: spec.scheduleName(tenant),
          groupName: group.ref,
          description: spec.scheduleDescription(tenant),
          scheduleExpression: expression,
          scheduleExpressionTimezone: 'UTC',
          flexibleTimeWindow: { mode: 'OFF' },
          state: 'ENABLED',
          target: {
            arn: this.function.fn.functionArn,
            roleArn: schedulerRole.roleArn,
            input: JSON.stringify(input),
            // A missed pass is made up by the next one (the cursor): no retries piling up.
            retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 3600 },
          },
        }),
      );
    }
  }
}

const SCHEDULE_NAME_LENGTH = 64;

/**
 * `<prefix><tenant>`, at most the 64 characters Scheduler allows: a longer one keeps the start of the
 * tenant and a hash of all of it. CloudFormation identifies a schedule by its name alone (not its
 * group), so every acquisition's schedules need names no other has.
 */
export const prefixedScheduleName = (prefix: string, tenant: string): string => {
  const name = `${prefix}${tenant}`;
  if (name.length <= SCHEDULE_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(tenant).digest('hex').slice(0, 8);
  return `${name.slice(0, SCHEDULE_NAME_LENGTH - hash.length - 1)}-${hash}`;
};

/** Each tenant of `entries` once, with its schedule (config checks one schedule per tenant). */
export const tenantSchedules = (
  entries: readonly { tenant: string; schedule: string }[],
): { tenant: string; schedule: string }[] =>
  [...new Set(entries.map((entry) => entry.tenant))].map((tenant) => ({
    tenant,
    schedule: entries.find((entry) => entry.tenant === tenant)?.schedule ?? '',
  }));

/** The acquisition on a stateless stack, its alarm joining the stack's; none without sources. */
export function addScheduledAcquisition(
  host: Construct & { readonly opsTopic: sns.ITopic; readonly alarms: cloudwatch.Alarm[] },
  id: string,
  props: AcquisitionStackProps,
  spec: AcquisitionSpec,
): ScheduledAcquisition | undefined {
  if (spec.sources.length === 0) return undefined;
  const acquisition = new ScheduledAcquisition(host, id, {
    ...props,
    opsTopic: host.opsTopic,
    spec,
  });
  host.alarms.push(acquisition.errorAlarm, acquisition.steps.dlqAlarm);
  return acquisition;
}
