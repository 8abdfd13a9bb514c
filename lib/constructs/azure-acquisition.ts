import { Aws, CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import {
  AZURE_ACQUISITION_ENV,
  azureCursorPk,
  azureSourceId,
  type AzureAcquisitionEvent,
} from '../../contract/azure-acquisition';
import { consumerEnvironment } from '../../contract/environment';
import { AZURE_EXPORT_SOURCES_OUTPUT } from '../../contract/outputs';
import { resolveAzureSources } from '../azure-export-config';
import type { BillingDedupConfig } from '../config';
import { resourceName, serviceName } from '../naming';
import { allowTable, allowTableKey } from '../streams/table-grants';
import { ConsumerFunction } from './consumer-function';

export interface AzureAcquisitionProps {
  readonly config: BillingDedupConfig;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKeyArn: string;
  readonly exportBucketName: string;
  /** Key of the export objects (none for SSE-S3). */
  readonly exportKeyArn?: string;
  readonly opsTopic: sns.ITopic;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: string;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The Azure export copier (docs/azure-acquisition.md), when config `azureExports` names any: one
 * function, one EventBridge Scheduler schedule per tenant sending `{"tenant"}`, an alarm on its errors.
 * The role reads only the named secrets, writes only under the tenants' export prefixes and touches
 * only the configured sources' cursor items.
 */
export class AzureAcquisition extends Construct {
  readonly function: ConsumerFunction;
  readonly schedules: scheduler.CfnSchedule[] = [];
  readonly errorAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: AzureAcquisitionProps) {
    super(scope, id);
    const { config } = props;
    const sources = resolveAzureSources(config.azureExports, config.exportSources);
    const functionName = resourceName(config.stage, 'export-azure');
    this.function = new ConsumerFunction(this, 'Function', {
      functionName,
      description: 'billing-dedup: copies Azure Cost Management export runs into the export bucket',
      entry: 'lambda/handlers/azure-acquisition.ts',
      timeout: Duration.minutes(15),
      memorySize: 512,
      importMetaUrl: true,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        ...consumerEnvironment({
          ledgerTableName: props.ledgerTable.tableName,
          exportBucketName: props.exportBucketName,
          serviceName: serviceName(config.stage, 'export-azure'),
          logLevel: props.logLevel,
        }),
        [AZURE_ACQUISITION_ENV.sources]: JSON.stringify(sources),
      },
    });
    new CfnOutput(Stack.of(this), AZURE_EXPORT_SOURCES_OUTPUT, {
      value: JSON.stringify(sources),
      description:
        'Azure export sources (azureExports), as JSON (billing-dedup acquire status | run)',
    });
    const role = this.function.role;
    const add = (statement: iam.PolicyStatementProps) =>
      role.addToPrincipalPolicy(new iam.PolicyStatement(statement));
    add({
      sid: 'ReadAzureClientSecrets',
      actions: ['secretsmanager:GetSecretValue'],
      resources: [...new Set(sources.map((source) => source.secretArn))],
    });
    allowTable(
      role,
      'AzureCopyCursors',
      props.ledgerTable,
      ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      {
        'ForAllValues:StringEquals': {
          'dynamodb:LeadingKeys': sources.map((source) => azureCursorPk(azureSourceId(source))),
        },
      },
    );
    allowTableKey(role, props.dataKeyArn);
    const prefixes = [...new Set(sources.map((source) => `${source.prefix}/`))];
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${props.exportBucketName}`;
    add({
      sid: 'WriteAzureCopies',
      // GetObject: HEAD of a copied blob and the manifest already written (never a second delivery).
      actions: ['s3:PutObject', 's3:GetObject'],
      resources: prefixes.map((prefix) => `${bucketArn}/${prefix}*`),
    });
    add({
      sid: 'ListAzureCopies',
      // S3 answers 404 rather than 403 for a copy not made yet only with s3:ListBucket.
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
          reason:
            'Copied file names come from the Azure export run; writes are limited to the prefixes of the tenants ' +
            'with an Azure export (azureExports → exportSources).',
          appliesTo: prefixes.map((prefix) => ({
            regex: `/^Resource::arn:<AWS::Partition>:s3:::[^/]+\\/${escapeRegex(prefix)}\\*$/`,
          })),
        },
      ],
      true,
    );

    // L1 with its own role, as the reconciliation: the role may invoke exactly this function.
    const schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: `EventBridge Scheduler: invokes ${functionName}`,
    });
    schedulerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeAzureAcquisition',
        actions: ['lambda:InvokeFunction'],
        resources: [this.function.fn.functionArn],
      }),
    );
    const group = new scheduler.CfnScheduleGroup(this, 'Schedules', {
      name: resourceName(config.stage, 'export-azure'),
    });
    for (const tenant of [...new Set(config.azureExports.map((entry) => entry.tenant))]) {
      const entry = config.azureExports.find((e) => e.tenant === tenant);
      const input: AzureAcquisitionEvent = { tenant };
      const schedule = new scheduler.CfnSchedule(this, `Schedule-${tenant}`, {
        name: tenant,
        groupName: group.ref,
        description: `billing-dedup: copies tenant ${tenant}'s Azure exports`,
        scheduleExpression: entry?.schedule ?? '',
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
      });
      this.schedules.push(schedule);
    }

    this.errorAlarm = new cloudwatch.Alarm(this, 'Errors', {
      alarmName: resourceName(config.stage, 'export-azure-errors'),
      alarmDescription:
        'An Azure export copy pass failed (a secret that cannot be read or parsed, Azure refusing the app, ' +
        'a blob rewritten during the copy, S3 or DynamoDB errors): read the function log (it names the source), ' +
        'fix, then `billing-dedup acquire run --tenant <t>` or wait for the next schedule; the pass resumes from its cursor.',
      metric: this.function.fn.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.errorAlarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
    this.errorAlarm.addOkAction(new actions.SnsAction(props.opsTopic));
  }
}

/** The copier of a stateless stack when `azureExports` names any; its alarm joins the stack's. */
export function addAzureAcquisition(
  host: Construct & { readonly opsTopic: sns.ITopic; readonly alarms: cloudwatch.Alarm[] },
  props: Omit<AzureAcquisitionProps, 'opsTopic'>,
): AzureAcquisition | undefined {
  if (props.config.azureExports.length === 0) return undefined;
  const acquisition = new AzureAcquisition(host, 'AzureAcquisition', {
    ...props,
    opsTopic: host.opsTopic,
  });
  host.alarms.push(acquisition.errorAlarm);
  return acquisition;
}
