import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { STATEFUL_OUTPUTS } from '../contract/outputs';
import {
  SERVICE_PUBLISHERS,
  type ServicePublisherId,
  servicePublisher,
} from '../contract/publishers';
import { DEDUP_TABLE, LEDGER_TABLE } from '../contract/tables';
import { BillingDedupConfig } from './config';
import { createArchiveBucket } from './constructs/archive-bucket';
import { createExportBucket } from './constructs/export-bucket';
import { PeriodCloserRole } from './constructs/period-closer-role';
import { unwrapSingle } from './constructs/secure-topic';
import { publisherSourceArnLike, stageNamePatterns } from './name-patterns';
import { resourceName } from './naming';

export interface StatefulStackProps extends StackProps {
  readonly config: BillingDedupConfig;
}

/** KMS actions AWS services need to publish to / deliver into resources encrypted with the messaging key. */
const SERVICE_KEY_ACTIONS = ['kms:GenerateDataKey*', 'kms:Decrypt'];

/**
 * Everything that holds data or outlives a deployment: the dedup and ledger tables, the export
 * bucket, the evidence archive and the customer managed keys. All retained on stack deletion; PITR on; deletion protection outside dev.
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
  /** The created export bucket (unused, and empty, with `exportBucketName`). */
  readonly exportBucket: s3.Bucket;
  /** The evidence archive: every consumed message as received, with its outcome. */
  readonly archiveBucket: s3.Bucket;
  /** Encrypts the archive; the consumers use it through S3 only. */
  readonly archiveKey: kms.Key;

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

    // Created in every configuration, also with exportBucketName (it then stays empty): the stack's
    // exports must not depend on the configuration (see exportStableValues).
    const created = createExportBucket(this, {
      stage,
      keyAlias: `alias/${resourceName(stage, 'exports')}`,
      noncurrentVersionRetention: Duration.days(config.exportVersionRetentionDays),
      accessLogRetention: Duration.days(config.logRetentionDays),
    });
    this.exportBucket = created.bucket;
    this.exportBucketName = config.exportBucketName ?? created.bucket.bucketName;
    this.exportKeyArn =
      config.exportBucketName === undefined ? created.key.keyArn : config.exportBucketKeyArn;
    this.addMessagingKeyPolicy(config);

    const archive = createArchiveBucket(this, {
      stage,
      keyAlias: `alias/${resourceName(stage, 'data-archive')}`,
      retention: Duration.days(config.archiveRetentionDays),
      infrequentAccessAfter: Duration.days(config.archiveInfrequentAccessAfterDays),
      glacierInstantAfter: Duration.days(config.archiveGlacierInstantAfterDays),
      objectLock: config.archiveObjectLock,
      accessLogBucket: created.accessLogBucket,
    });
    this.archiveBucket = archive.bucket;
    this.archiveKey = archive.key;

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
    this.exportStableValues(created.key.keyArn);

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
    new CfnOutput(this, STATEFUL_OUTPUTS.archiveBucketName, {
      value: this.archiveBucket.bucketName,
      description: 'Evidence archive: every consumed message as received, with its outcome',
    });
    new CfnOutput(this, STATEFUL_OUTPUTS.messagingKeyArn, {
      value: this.messagingKey.keyArn,
      description:
        'KMS key of the topics and queues (cross-account publishers need kms:GenerateDataKey/Decrypt on it)',
    });
  }

  /**
   * Every value another stack of the stage may import, exported in every configuration. CloudFormation
   * refuses to remove (or change) an export that a deployed stack imports, and the stateful stack is
   * deployed first: an export that only some configurations produce would make the move between them
   * fail. Each value here is fixed for the life of the stage (fixed names, retained resources).
   */
  private exportStableValues(createdExportKeyArn: string): void {
    for (const value of [
      this.dedupTable.tableName,
      this.dedupTable.tableArn,
      this.ledgerTable.tableName,
      this.ledgerTable.tableArn,
      this.dataKey.keyArn,
      this.messagingKey.keyArn,
      this.exportBucket.bucketName,
      createdExportKeyArn,
      this.archiveBucket.bucketName,
      this.archiveKey.keyArn,
      this.stackId,
    ])
      this.exportValue(value);
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
    const patterns = stageNamePatterns(config.stage);
    const serviceStatement = (sid: string, service: string, sourceArnLike?: readonly string[]) =>
      new iam.PolicyStatement({
        sid,
        principals: [new iam.ServicePrincipal(service)],
        actions: SERVICE_KEY_ACTIONS,
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ...(sourceArnLike ? { ArnLike: { 'aws:SourceArn': unwrapSingle(sourceArnLike) } } : {}),
        },
      });

    key.addToResourcePolicy(
      serviceStatement(
        'AllowSnsDeliveryToEncryptedQueues',
        'sns.amazonaws.com',
        patterns.queueFeedingTopics.map(
          (name) => `arn:${Aws.PARTITION}:sns:${Aws.REGION}:${Aws.ACCOUNT_ID}:${name}`,
        ),
      ),
    );
    // Every service publisher of every topic, each limited to this stage's resources it publishes from.
    for (const id of Object.keys(SERVICE_PUBLISHERS) as ServicePublisherId[]) {
      const publisher = servicePublisher(id);
      key.addToResourcePolicy(
        serviceStatement(
          `Allow${publisher.name}ToPublish`,
          publisher.principal,
          publisherSourceArnLike(config.stage, id),
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

    // By account, not by principal: the topic policies name who may publish; the key only needs to
    // follow them through SNS, and one account ID per producer account keeps the policy far below
    // KMS's 32 KB however many tenants and roles are configured.
    const producerAccounts = [
      ...new Set(
        [
          ...config.costEventsPublishers,
          ...config.budgetAlertsPublishers,
          ...config.tenants.flatMap((tenant) => tenant.publishers),
        ].map(accountOf),
      ),
    ];
    if (producerAccounts.length > 0) {
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowConfiguredProducersThroughSns',
          principals: [new iam.AnyPrincipal()],
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: ['*'],
          conditions: {
            StringEquals: {
              'kms:ViaService': `sns.${Aws.REGION}.amazonaws.com`,
              'kms:CallerAccount': unwrapSingle(producerAccounts),
            },
          },
        }),
      );
    }
  }
}

/** The account of a configured publisher: a 12-digit account ID, or the account of a role ARN. */
const accountOf = (idOrArn: string): string =>
  /^\d{12}$/.test(idOrArn) ? idOrArn : idOrArn.split(':')[4];

/** ARN of a bucket of this partition by name (S3 ARNs carry neither region nor account). */
export function exportBucketArn(bucketName: string): string {
  return `arn:${Aws.PARTITION}:s3:::${bucketName}`;
}
