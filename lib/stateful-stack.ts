import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { STATEFUL_OUTPUTS } from '../contract/outputs';
import { ALL_SERVICE_PUBLISHERS } from '../contract/publishers';
import { DEDUP_TABLE, LEDGER_TABLE } from '../contract/tables';
import { AWS_SCOPE } from './aws-scope';
import { BillingDedupConfig } from './config';
import { createExportBucket } from './constructs/export-bucket';
import { PeriodCloserRole } from './constructs/period-closer-role';
import { toPrincipal } from './constructs/secure-topic';
import { resourceName } from './naming';

export interface StatefulStackProps extends StackProps {
  readonly config: BillingDedupConfig;
}

/** KMS actions AWS services need to publish to / deliver into resources encrypted with the messaging key. */
const SERVICE_KEY_ACTIONS = ['kms:GenerateDataKey*', 'kms:Decrypt'];

/**
 * Everything that holds data or outlives a deployment: the dedup and ledger tables and the
 * customer managed keys. All retained on stack deletion; PITR on; deletion protection outside dev.
 */
export class StatefulStack extends Stack {
  readonly dedupTable: dynamodb.Table;
  readonly ledgerTable: dynamodb.Table;
  /** Encrypts both tables. Only principals of this account (through IAM) may use it. */
  readonly dataKey: kms.Key;
  /** Encrypts every topic and queue; its policy lets the AWS service publishers use it. */
  readonly messagingKey: kms.Key;
  /** Name of the billing export bucket: created here, or `exportBucketName`. */
  readonly exportBucketName: string;
  /** ARN of the key of the export objects (created here, or `exportBucketKeyArn`); none for SSE-S3. */
  readonly exportKeyArn?: string;
  /** The created export bucket (undefined with `exportBucketName`). */
  readonly exportBucket?: s3.Bucket;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    const stage = config.stage;

    this.dataKey = new kms.Key(this, 'DataKey', {
      alias: `alias/${resourceName(stage, 'data')}`,
      description: `billing-dedup ${stage}: encrypts the dedup and ledger tables`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.messagingKey = new kms.Key(this, 'MessagingKey', {
      alias: `alias/${resourceName(stage, 'messaging')}`,
      description: `billing-dedup ${stage}: encrypts SNS topics and SQS queues`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    if (config.exportBucketName === undefined) {
      const created = createExportBucket(this, {
        stage,
        keyAlias: `alias/${resourceName(stage, 'exports')}`,
        noncurrentVersionRetention: Duration.days(config.exportVersionRetentionDays),
        accessLogRetention: Duration.days(config.logRetentionDays),
      });
      this.exportBucket = created.bucket;
      this.exportBucketName = created.bucket.bucketName;
      this.exportKeyArn = created.key.keyArn;
    } else {
      this.exportBucketName = config.exportBucketName;
      this.exportKeyArn = config.exportBucketKeyArn;
    }
    this.addMessagingKeyPolicy(config);

    const tableDefaults = {
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.dataKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: config.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
    } satisfies Partial<dynamodb.TableProps>;

    this.dedupTable = new dynamodb.Table(this, 'DedupTable', {
      ...tableDefaults,
      tableName: resourceName(stage, 'dedup'),
      partitionKey: { name: DEDUP_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: DEDUP_TABLE.expiresAt,
    });

    this.ledgerTable = new dynamodb.Table(this, 'LedgerTable', {
      ...tableDefaults,
      tableName: resourceName(stage, 'ledger'),
      partitionKey: { name: LEDGER_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LEDGER_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
    });

    new PeriodCloserRole(this, 'PeriodCloser', { stage, ledgerTable: this.ledgerTable });

    new CfnOutput(this, STATEFUL_OUTPUTS.dedupTableName, {
      value: this.dedupTable.tableName,
      description: 'Dedup claims table',
    });
    new CfnOutput(this, STATEFUL_OUTPUTS.ledgerTableName, {
      value: this.ledgerTable.tableName,
      description: 'Cost ledger table',
    });
    new CfnOutput(this, STATEFUL_OUTPUTS.dataKeyArn, {
      value: this.dataKey.keyArn,
      description: 'KMS key of the tables',
    });
    new CfnOutput(this, STATEFUL_OUTPUTS.messagingKeyArn, {
      value: this.messagingKey.keyArn,
      description:
        'KMS key of the topics and queues (cross-account publishers need kms:GenerateDataKey/Decrypt on it)',
    });
  }

  /**
   * The messaging key must be usable by whoever writes into an encrypted topic or queue:
   * - SNS delivering into the encrypted queues/DLQs (scoped to this stage's topics),
   * - AWS Budgets and Cost Anomaly Detection publishing to the budget-alerts topic,
   * - CloudWatch alarms publishing to the ops topic,
   * - S3 publishing the export bucket's object-created events to the export-deliveries topic,
   * - configured cross-account producers (only through SNS).
   * Principals of this account keep using it through IAM (default key policy).
   */
  private addMessagingKeyPolicy(config: BillingDedupConfig): void {
    const key = this.messagingKey;
    const stageTopicArns = `arn:${Aws.PARTITION}:sns:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resourceName(config.stage, '*')}`;
    const serviceStatement = (sid: string, service: string, sourceArnLike?: string) =>
      new iam.PolicyStatement({
        sid,
        principals: [new iam.ServicePrincipal(service)],
        actions: SERVICE_KEY_ACTIONS,
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ...(sourceArnLike ? { ArnLike: { 'aws:SourceArn': sourceArnLike } } : {}),
        },
      });

    key.addToResourcePolicy(
      serviceStatement('AllowSnsDeliveryToEncryptedQueues', 'sns.amazonaws.com', stageTopicArns),
    );
    // Every service publisher of every topic (their publishing resources are named after the stage).
    for (const publisher of ALL_SERVICE_PUBLISHERS) {
      key.addToResourcePolicy(
        serviceStatement(
          `Allow${publisher.name}ToPublish`,
          publisher.principal,
          publisher.sourceArnLike?.(AWS_SCOPE, resourceName(config.stage, '*')),
        ),
      );
    }

    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowS3ExportBucketNotifications',
        principals: [new iam.ServicePrincipal('s3.amazonaws.com')],
        actions: SERVICE_KEY_ACTIONS,
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnEquals: { 'aws:SourceArn': exportBucketArn(this.exportBucketName) },
        },
      }),
    );

    const producers = [
      ...new Set([
        ...config.costEventsPublishers,
        ...config.budgetAlertsPublishers,
        ...config.tenants.flatMap((tenant) => tenant.publishers),
      ]),
    ];
    if (producers.length > 0) {
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowConfiguredProducersThroughSns',
          principals: producers.map(toPrincipal),
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: ['*'],
          conditions: { StringEquals: { 'kms:ViaService': `sns.${Aws.REGION}.amazonaws.com` } },
        }),
      );
    }
  }
}

/** ARN of a bucket of this partition by name (S3 ARNs carry neither region nor account). */
export function exportBucketArn(bucketName: string): string {
  return `arn:${Aws.PARTITION}:s3:::${bucketName}`;
}
