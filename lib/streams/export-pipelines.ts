import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct, IDependable } from 'constructs';
import { consumerEnvironment } from '../../contract/environment';
import { EXPORT_STREAMS } from '../../contract/streams';
import { BillingDedupConfig } from '../config';
import { QueueConsumer, type QueueConsumerProps } from '../constructs/queue-consumer';
import { SecureTopic } from '../constructs/secure-topic';
import { allowTableKey } from './table-grants';
import { messagingName, resourceName, serviceName } from '../naming';

/** The key suffix of the manifest AWS Data Exports writes after an execution's data files. */
export const MANIFEST_SUFFIX = '-Manifest.json';

/** What both export queues take from the stream pipelines' settings (retention, DLQ, operators…). */
export type ExportQueueDefaults = Pick<
  QueueConsumerProps,
  | 'redriveOperatorArns'
  | 'masterKey'
  | 'retention'
  | 'dlqRetention'
  | 'maxReceiveCount'
  | 'dedupTtl'
  | 'batchSize'
  | 'maxBatchingWindow'
  | 'maxConcurrency'
  | 'inBatchConcurrency'
>;

export type ExportConsumerDefaults = Pick<
  QueueConsumerProps['consumer'],
  'memorySize' | 'logRetention' | 'logRemovalPolicy' | 'logLevel'
>;

export interface ExportPipelinesProps {
  readonly config: BillingDedupConfig;
  /** The export bucket, imported by name (it lives in the stateful stack or outside the app). */
  readonly bucketName: string;
  /** Key of the export objects, when they are SSE-KMS encrypted with a customer managed key. */
  readonly bucketKeyArn?: string;
  readonly dedupTable: dynamodb.ITable;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKeyArn: string;
  readonly notificationsTopic: sns.ITopic;
  readonly queueDefaults: ExportQueueDefaults;
  readonly consumerDefaults: ExportConsumerDefaults;
}

export interface ExportPipelines {
  readonly bucket: s3.IBucket;
  readonly deliveriesTopic: sns.Topic;
  /** export-deliveries: S3 notifications (through the topic) → export planner. */
  readonly deliveries: QueueConsumer;
  /** export-chunks: the planner's tasks → chunk worker. */
  readonly chunks: QueueConsumer;
}

/**
 * The billing-export pipeline (docs/exports.md): the bucket's manifest notifications → SNS
 * `export-deliveries` → queue → planner → queue `export-chunks` → chunk worker. Built at the stack's
 * top level so its logical ids follow the streams' output prefixes like the message streams'.
 */
export function addExportPipelines(stack: Stack, props: ExportPipelinesProps): ExportPipelines {
  const { config } = props;
  const stage = config.stage;
  const { exportDeliveries, exportChunks } = EXPORT_STREAMS;

  // Imported by name in both cases: adding the notifications here (a Custom::S3BucketNotifications
  // resource) keeps the stateful stack free of any reference to this one.
  const bucket = s3.Bucket.fromBucketName(stack, 'ExportBucket', props.bucketName);

  const deliveriesTopic = new SecureTopic(stack, exportDeliveries.outputPrefix, {
    topicName: messagingName(stage, exportDeliveries.name, false),
    displayName: `billing-dedup ${stage} ${exportDeliveries.label.toLowerCase()}`,
    fifo: false,
    masterKey: props.queueDefaults.masterKey,
    servicePublishers: [{ service: 's3.amazonaws.com', sourceArns: [bucket.bucketArn] }],
  }).topic;

  const destination = new ScopedTopicDestination(deliveriesTopic);
  for (const prefix of notificationPrefixes(config)) {
    bucket.addEventNotification(s3.EventType.OBJECT_CREATED, destination, {
      ...(prefix === undefined ? {} : { prefix }),
      suffix: MANIFEST_SUFFIX,
    });
  }
  suppressNotificationsHandlerFindings(stack);

  const exportEnvironment = {
    dedupTableName: props.dedupTable.tableName,
    ledgerTableName: props.ledgerTable.tableName,
    exportBucketName: props.bucketName,
  };
  // Grows with the prefixes: bundled with the code, not in the 4 KB environment.
  const bundledConfig = { exportSources: config.exportSources };
  const { logLevel, ...functionDefaults } = props.consumerDefaults;

  const plannerTimeout = Duration.seconds(config.exportPlannerTimeoutSeconds);
  const deliveries = new QueueConsumer(stack, `${exportDeliveries.outputPrefix}Pipeline`, {
    ...props.queueDefaults,
    streamName: exportDeliveries.name,
    topic: deliveriesTopic,
    fifo: false,
    queueName: messagingName(stage, exportDeliveries.name, false),
    visibilityTimeout: visibilityFor(plannerTimeout, props.queueDefaults.maxBatchingWindow),
    consumer: {
      ...functionDefaults,
      logLevel,
      timeout: plannerTimeout,
      functionName: resourceName(stage, exportDeliveries.consumer),
      description: `billing-dedup ${stage}: export manifests → chunk tasks`,
      entry: exportDeliveries.handlerEntry,
      serviceName: serviceName(stage, exportDeliveries.consumer),
      bundledConfig,
      environment: {
        ...exportEnvironment,
        exportParquetRowsPerTask: config.exportParquetRowsPerTask,
      },
    },
  });

  // One task per invocation: a task's memory is the worker's peak, and tasks run side by side as
  // separate invocations (maxConcurrency), never inside one.
  const chunkTimeout = Duration.seconds(config.exportChunkTimeoutSeconds);
  const chunks = new QueueConsumer(stack, `${exportChunks.outputPrefix}Pipeline`, {
    ...props.queueDefaults,
    streamName: exportChunks.name,
    fifo: false,
    queueName: messagingName(stage, exportChunks.name, false),
    producerRoleArns: [deliveries.consumer.role.roleArn],
    maxReceiveCount: config.exportChunkMaxReceiveCount,
    batchSize: 1,
    maxBatchingWindow: Duration.seconds(0),
    inBatchConcurrency: 1,
    visibilityTimeout: visibilityFor(chunkTimeout, Duration.seconds(0)),
    consumer: {
      ...functionDefaults,
      logLevel,
      memorySize: config.exportChunkMemoryMb,
      timeout: chunkTimeout,
      functionName: resourceName(stage, exportChunks.consumer),
      description: `billing-dedup ${stage}: export chunk tasks → snapshot totals, diff notifications`,
      entry: exportChunks.handlerEntry,
      serviceName: serviceName(stage, exportChunks.consumer),
      bundledConfig,
      environment: {
        ...exportEnvironment,
        notificationsTopicArn: props.notificationsTopic.topicArn,
        exportDiffThreshold: config.exportDiffNotifyThreshold,
        exportCsvSubchunkRows: config.exportCsvSubchunkRows,
        // A task failing on its last receive fails its execution instead of leaving it incomplete.
        exportChunkMaxReceiveCount: config.exportChunkMaxReceiveCount,
        // Corrections of closed periods are booked like the cost consumer's charges.
        totalShards: config.totalShards,
        lateChargePolicy: config.lateChargePolicy,
        // The providers whose stream charges an export switched in never supersedes.
        ...(config.additiveSources.length > 0
          ? { additiveSources: config.additiveSources.join(',') }
          : {}),
        // Stream-versus-export drift above this is notified (kind provisional-drift).
        provisionalDriftPercent: config.provisionalDriftThreshold.percent,
        provisionalDriftFloor: config.provisionalDriftThreshold.floor,
      },
    },
  });
  // Set after the chunk queue exists (its policy needs the planner's role, created first).
  for (const [name, value] of Object.entries(
    consumerEnvironment({ chunkQueueUrl: chunks.queue.queueUrl }),
  ))
    deliveries.consumer.fn.addEnvironment(name, value);

  grantPlanner(deliveries.consumer.role, props, bucket, chunks);
  grantChunkWorker(chunks.consumer.role, props, bucket);
  return { bucket, deliveriesTopic, deliveries, chunks };
}

/** One notification rule per configured prefix; none configured → one rule for the whole bucket. */
export function notificationPrefixes(config: BillingDedupConfig): (string | undefined)[] {
  // With no source every manifest must still reach the planner, which dead-letters it with a
  // reason naming `exportSources` (instead of deliveries vanishing without a trace).
  return config.exportSources.length === 0
    ? [undefined]
    : config.exportSources.map((source) => source.prefix);
}

/** Visibility of a queue whose consumer runs up to `timeout`: six timeouts (Lambda's advice) and the batching window. */
export const visibilityFor = (timeout: Duration, batchingWindow: Duration): Duration =>
  Duration.seconds(6 * timeout.toSeconds() + batchingWindow.toSeconds());

/**
 * A topic as a bucket notification destination, without the statement CDK's SnsDestination adds
 * (`s3.amazonaws.com` scoped by the bucket ARN only): the SecureTopic already allows S3 for this
 * bucket *and* this account, since a bucket name can change owners.
 */
class ScopedTopicDestination implements s3.IBucketNotificationDestination {
  constructor(private readonly topic: sns.Topic) {}

  bind(): s3.BucketNotificationDestinationConfig {
    const policy = this.topic.node.tryFindChild('Policy') as IDependable | undefined;
    return {
      arn: this.topic.topicArn,
      type: s3.BucketNotificationDestinationType.TOPIC,
      // S3 checks it may publish when the configuration is written: the policy must exist first.
      dependencies: [this.topic, ...(policy ? [policy] : [])],
    };
  }
}

/** Grants of the export planner (lambda/handlers/export-planner.ts). */
function grantPlanner(
  role: iam.IRole,
  props: ExportPipelinesProps,
  bucket: s3.IBucket,
  chunks: QueueConsumer,
): void {
  // Plans (EXEC items) live in the EXPORT# partitions only.
  allowLedger(
    role,
    'ExportPlans',
    props.ledgerTable,
    ['EXPORT#*'],
    ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  );
  allowDeadLetterMarkers(role, props.dedupTable, EXPORT_STREAMS.exportDeliveries.name, []);
  allowTableKey(role, props.dataKeyArn);
  allowExportObjects(role, props, bucket);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'SendChunkTasks',
      actions: ['sqs:SendMessage'],
      resources: [chunks.queue.queueArn],
    }),
  );
  // kms:GenerateDataKey on the messaging key (the chunk queue is encrypted with it) is granted by
  // QueueConsumer for forwarding poison messages to the DLQ.
}

/** Grants of the export chunk worker (lambda/handlers/export-chunk.ts). */
function grantChunkWorker(role: iam.IRole, props: ExportPipelinesProps, bucket: s3.IBucket): void {
  allowLedger(
    role,
    'ExportExecutions',
    props.ledgerTable,
    ['EXPORT#*'],
    // BatchGetItem: the CURRENT pointers a closed account-period's statement ranks its snapshots by
    // (the correction pass reads what the period counted of a superseded provider's stream).
    [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
    ],
  );
  // The switch writes each account's SNAPSHOT item into the account's ledger partition
  // (BatchWriteItem); the correction pass of closed periods reads PERIOD items and charges and books
  // correction charges into total shards (TransactWriteItems: Put/Update per item). Query: the
  // account-period's total shards (a superseded provider's stream part: the drift pass and the
  // correction pass); PutItem also writes each account's DRIFT record.
  allowLedger(
    role,
    'AccountSnapshots',
    props.ledgerTable,
    ['TENANT#*'],
    [
      'dynamodb:BatchWriteItem',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Query',
    ],
  );
  // Powertools Idempotency claims of the diff notifications (`export-chunks#…`) and DLQ markers.
  allowDeadLetterMarkers(role, props.dedupTable, EXPORT_STREAMS.exportChunks.name, [
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
  ]);
  allowTableKey(role, props.dataKeyArn);
  allowExportObjects(role, props, bucket);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'PublishDiffNotifications',
      actions: ['sns:Publish'],
      resources: [props.notificationsTopic.topicArn],
    }),
  );
}

function allowLedger(
  role: iam.IRole,
  sid: string,
  table: dynamodb.ITable,
  leadingKeys: string[],
  actions: string[],
): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid,
      actions,
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
    }),
  );
}

/** The stream's own items of the dedup table (`<stream>#…`): DLQ markers, plus `extra` actions. */
function allowDeadLetterMarkers(
  role: iam.IRole,
  table: dynamodb.ITable,
  stream: string,
  extra: string[],
): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DedupTableAccess',
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', ...extra],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${stream}#*`] } },
    }),
  );
}

/** Up to this many configured prefixes are granted one by one; beyond, by their common path prefix. */
export const EXACT_PREFIX_GRANT_MAX = 10;

/**
 * The key prefixes the export functions may read: the configured ones while they are few, else the
 * longest path prefix they all share (`""`: the whole bucket). Never more than EXACT_PREFIX_GRANT_MAX
 * entries, so the role's policy does not grow with tenants. The functions themselves bind every key
 * to its configured tenant prefix (docs/exports.md), so a wider read grant books nothing wrongly.
 */
export function exportReadPrefixes(prefixes: readonly string[]): string[] {
  if (prefixes.length <= EXACT_PREFIX_GRANT_MAX) return [...prefixes];
  const segments = prefixes.map((prefix) => prefix.split('/').slice(0, -1));
  const common: string[] = [];
  for (let i = 0; segments.every((s) => i < s.length && s[i] === segments[0][i]); i++)
    common.push(segments[0][i]);
  return [common.map((segment) => `${segment}/`).join('')];
}

/**
 * Read the objects under the configured prefixes (manifests, data files; HEAD and ranged GETs) and
 * decrypt them through S3. `s3:ListBucket`, limited to the same prefixes by `s3:prefix`, makes S3 answer
 * 404 rather than 403 for a missing data file, which the functions report as "unreadable data file";
 * it reveals key names, never content. No source configured: nothing is read (every manifest is
 * rejected before any read).
 */
function allowExportObjects(
  role: iam.IRole,
  props: ExportPipelinesProps,
  bucket: s3.IBucket,
): void {
  const prefixes = exportReadPrefixes(props.config.exportSources.map((source) => source.prefix));
  if (prefixes.length === 0) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadExportObjects',
      // GetObjectVersion: plans pin each data file's version and every read names it.
      actions: ['s3:GetObject', 's3:GetObjectVersion'],
      resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ListExportBucket',
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
    }),
  );
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Export files are named by the provider at delivery time; reads are limited to the configured ' +
          'tenant prefixes (exportSources) of the export bucket, or to their common prefix when there are many.',
        appliesTo: prefixes.map((prefix) => ({
          regex: `/^Resource::arn:<AWS::Partition>:s3:::[^/]+\\/${escapeRegex(prefix)}\\*$/`,
        })),
      },
    ],
    true,
  );
  if (props.bucketKeyArn) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DecryptExportObjectsThroughS3',
        actions: ['kms:Decrypt'],
        resources: [props.bucketKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * CDK's bucket-notifications handler (a singleton Lambda of this stack behind
 * Custom::S3BucketNotifications) is not ours to shape; its findings are suppressed with the reason.
 */
function suppressNotificationsHandlerFindings(stack: Stack): void {
  const handler = stack.node.children.find((child) =>
    child.node.id.startsWith('BucketNotificationsHandler'),
  );
  if (!(handler instanceof Construct)) return;
  NagSuppressions.addResourceSuppressions(
    handler,
    [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'CDK’s BucketNotificationsHandler (Custom::S3BucketNotifications) uses AWSLambdaBasicExecutionRole for its logs; it runs only during deployments.',
        appliesTo: [
          'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
        ],
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'CDK’s BucketNotificationsHandler needs s3:PutBucketNotification on the bucket it configures; CDK grants it on `*` and does not expose the policy.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
}
