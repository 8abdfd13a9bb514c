import { Annotations, ArnFormat, Duration, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type ConsumerEnvironment, consumerEnvironment } from '../../contract/environment';
import type { ARCHIVE_SPOOL, ExportStreamDefinition, StreamName } from '../../contract/streams';
import { METRIC_NAMESPACE } from '../../contract/telemetry';
import {
  checkDedupTtl,
  checkDlqKind,
  checkMaxReceiveCount,
  checkTopicFeedsQueue,
  checkVisibilityTimeout,
} from '../invariants';
import { ConsumerFunction, ConsumerFunctionProps } from './consumer-function';

/** A message stream's or an export queue's name (STREAM_NAME). */
export type PipelineName =
  StreamName | ExportStreamDefinition['name'] | (typeof ARCHIVE_SPOOL)['name'];

export interface QueueConsumerProps {
  /** Stream name (STREAM_NAME). */
  readonly streamName: PipelineName;
  /** Topic feeding the queue (raw message delivery); omitted for a queue fed by `producerRoleArns`. */
  readonly topic?: sns.ITopic;
  /**
   * With tenant topics (docs/threat-model.md; they live in the tenant stacks, lib/tenant-stack.ts): an ARN
   * pattern (ArnLike) matching every tenant topic and nothing else of this or another stage. The queue
   * policies admit the topics by it, so they do not grow with tenants; and every subscription of the
   * queue (`topic`'s too) delivers the SNS envelope instead of the raw message, so that each record names
   * the topic it came from (DELIVERY_MODE=envelope).
   */
  readonly tenantTopicArnLike?: string;
  /** Roles of this app that send into the source queue themselves (e.g. the export planner). */
  readonly producerRoleArns?: readonly string[];
  /** Queue kind; must match the DLQ, and a FIFO queue needs a FIFO topic. */
  readonly fifo: boolean;
  /** Fixed physical name of the source queue (its ARN is needed before the queue exists). */
  readonly queueName: string;
  /**
   * Physical name of the DLQ; omitted → CloudFormation generates one. The DLQ is retained when it
   * is replaced or the stack is deleted, and a retained queue with a fixed name would block the
   * next deployment, so leave it unset.
   */
  readonly dlqName?: string;
  /**
   * IAM role ARNs (patterns with `*` allowed) that may send into the source queue besides SNS:
   * the operators who redrive the DLQ (StartMessageMoveTask sends with the caller's permissions).
   */
  readonly redriveOperatorArns?: readonly string[];
  /** Customer managed key for queue + DLQ (its policy must let sns.amazonaws.com use it). */
  readonly masterKey: kms.IKey;
  readonly retention: Duration;
  readonly dlqRetention: Duration;
  readonly visibilityTimeout: Duration;
  readonly maxReceiveCount: number;
  /** Dedup claim lifetime (DEDUP_TTL_SECONDS); must outlive queue + DLQ retention + 1 day. */
  readonly dedupTtl: Duration;
  readonly batchSize: number;
  /** Ignored for FIFO queues (Lambda does not support a batching window on them). */
  readonly maxBatchingWindow: Duration;
  /** Event source mapping maximum concurrency (2-1000). */
  readonly maxConcurrency: number;
  /** In-batch concurrency (MAX_CONCURRENCY). */
  readonly inBatchConcurrency: number;
  readonly consumer: Omit<ConsumerFunctionProps, 'environment' | 'timeout'> & {
    readonly timeout: Duration;
    /** POWERTOOLS_SERVICE_NAME; also the `service` dimension of the EMF metrics. */
    readonly serviceName: string;
    readonly logLevel: string;
    /** Stream-specific settings (table names, topic ARNs…). */
    readonly environment: ConsumerEnvironment;
  };
  /** MaximumMessageSize of the queue and its DLQ; omitted: SQS's default. */
  readonly maxMessageSizeBytes?: number;
  /** Bring-your-own DLQ (must have the queue's kind); created when omitted. */
  readonly deadLetterQueue?: sqs.IQueue;
}

/**
 * "Queue + DLQ + consumer" for standard and FIFO streams. Enforces the lib/invariants.ts rules
 * at synth time, then builds: encrypted TLS-only DLQ (retained, generated name, accepting only
 * this source queue) and source queue with a redrive policy, the SNS → SQS subscriptions (raw
 * delivery, or envelopes when tenant topics feed the queue; undeliverable messages to the same DLQ), the consumer function with partial batch
 * responses, the consumer's permission to forward poison messages to its own DLQ, and queue
 * policies that deny every other sender (see denyDirectSends).
 */
export class QueueConsumer extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly consumer: ConsumerFunction;
  readonly fifo: boolean;
  readonly serviceName: string;
  readonly streamName: PipelineName;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    this.fifo = props.fifo;
    this.serviceName = props.consumer.serviceName;
    this.streamName = props.streamName;

    // ---- invariants (throw before anything is built) ----
    const batchingWindowSeconds = props.fifo ? 0 : props.maxBatchingWindow.toSeconds();
    if (props.topic) checkTopicFeedsQueue({ topicFifo: props.topic.fifo, queueFifo: props.fifo });
    if (props.deadLetterQueue)
      checkDlqKind({ queueFifo: props.fifo, dlqFifo: props.deadLetterQueue.fifo });
    checkDedupTtl({
      ttlSeconds: props.dedupTtl.toSeconds(),
      queueRetentionSeconds: props.retention.toSeconds(),
      dlqRetentionSeconds: props.dlqRetention.toSeconds(),
    });
    checkVisibilityTimeout({
      visibilityTimeoutSeconds: props.visibilityTimeout.toSeconds(),
      functionTimeoutSeconds: props.consumer.timeout.toSeconds(),
      batchingWindowSeconds,
    });
    const receiveWarning = checkMaxReceiveCount(props.maxReceiveCount);
    if (receiveWarning)
      Annotations.of(this).addWarningV2('billing-dedup:maxReceiveCount', receiveWarning);
    if (!props.fifo && props.dlqRetention.toSeconds() < props.retention.toSeconds()) {
      Annotations.of(this).addWarningV2(
        'billing-dedup:dlqRetention',
        `${props.streamName}: DLQ retention is shorter than the queue retention; a standard DLQ keeps the original ` +
          'enqueue time, so dead letters may expire before anyone looks at them. Set dlqRetentionDays ≥ queueRetentionDays.',
      );
    }

    // ---- queues ----
    const fifoProps: Partial<sqs.QueueProps> = props.fifo
      ? {
          fifo: true,
          contentBasedDeduplication: true,
          deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
          fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        }
      : {};

    // The DLQ must name the source queue in its RedriveAllowPolicy while the source queue names
    // the DLQ in its RedrivePolicy: the source ARN is built from its fixed name to avoid a cycle.
    const queueArn = Stack.of(this).formatArn({
      service: 'sqs',
      resource: props.queueName,
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
    this.deadLetterQueue =
      props.deadLetterQueue ??
      new sqs.Queue(this, 'DeadLetterQueue', {
        queueName: props.dlqName,
        ...(props.fifo ? { fifo: true, contentBasedDeduplication: true } : {}),
        retentionPeriod: props.dlqRetention,
        ...(props.maxMessageSizeBytes ? { maxMessageSizeBytes: props.maxMessageSizeBytes } : {}),
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: props.masterKey,
        enforceSSL: true,
        // Dead letters wait for an operator: they survive a replacement or deletion of this stack.
        removalPolicy: RemovalPolicy.RETAIN,
        redriveAllowPolicy: {
          sourceQueues: [sqs.Queue.fromQueueArn(this, 'SourceQueueByName', queueArn)],
        },
      });

    this.queue = new sqs.Queue(this, 'Queue', {
      queueName: props.queueName,
      ...fifoProps,
      retentionPeriod: props.retention,
      ...(props.maxMessageSizeBytes ? { maxMessageSizeBytes: props.maxMessageSizeBytes } : {}),
      visibilityTimeout: props.visibilityTimeout,
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.masterKey,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });

    // ---- SNS → SQS (raw delivery unless tenant-bound; messages SNS cannot deliver land in the DLQ) ----
    const tenantTopicArnLike = props.tenantTopicArnLike;
    const rawMessageDelivery = tenantTopicArnLike === undefined;
    props.topic?.addSubscription(
      new subs.SqsSubscription(this.queue, {
        rawMessageDelivery,
        deadLetterQueue: this.deadLetterQueue,
      }),
    );
    if (tenantTopicArnLike) this.admitTenantTopics(tenantTopicArnLike);

    // ---- consumer ----
    const { serviceName, logLevel, environment, ...fnProps } = props.consumer;
    this.consumer = new ConsumerFunction(this, 'Consumer', {
      ...fnProps,
      environment: consumerEnvironment({
        ...environment,
        dlqUrl: this.deadLetterQueue.queueUrl,
        queueKind: props.fifo ? 'fifo' : 'standard',
        deliveryMode: rawMessageDelivery ? 'raw' : 'envelope',
        dedupTtlSeconds: props.dedupTtl.toSeconds(),
        streamName: props.streamName,
        maxConcurrency: props.inBatchConcurrency,
        serviceName,
        metricsNamespace: METRIC_NAMESPACE,
        logLevel,
      }),
    });

    this.consumer.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize,
        maxBatchingWindow: props.fifo ? undefined : props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    // Poison messages are forwarded, byte for byte, to this stream's DLQ by the function itself.
    this.consumer.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ForwardPoisonMessagesToDlq',
        actions: ['sqs:SendMessage'],
        resources: [this.deadLetterQueue.queueArn],
      }),
    );
    grantKeyUse(this.consumer.role, props.masterKey, 'EncryptForDlq', [
      'kms:GenerateDataKey',
      'kms:Decrypt',
    ]);

    const topicArns = props.topic ? [props.topic.topicArn] : [];
    const topicArnLike = tenantTopicArnLike ? [tenantTopicArnLike] : [];
    denyDirectSends({
      queue: this.queue,
      exceptSourceArns: [...topicArns, this.deadLetterQueue.queueArn],
      exceptSourceArnLike: topicArnLike,
      exceptPrincipalArns: [
        ...(props.producerRoleArns ?? []),
        ...(props.redriveOperatorArns ?? []),
      ],
    });
    denyDirectSends({
      queue: this.deadLetterQueue,
      exceptSourceArns: [...topicArns, queueArn],
      exceptSourceArnLike: topicArnLike,
      exceptPrincipalArns: [this.consumer.role.roleArn],
    });

    // Operators (and the CLI) can see who consumes what, and find a retained DLQ by its tags.
    Tags.of(this.queue).add('billing-dedup:stream', props.streamName);
    Tags.of(this.queue).add('billing-dedup:consumer', props.consumer.functionName);
    Tags.of(this.deadLetterQueue).add('billing-dedup:stream', props.streamName);
    Tags.of(this.deadLetterQueue).add('billing-dedup:dead-letter-queue-of', props.queueName);
  }

  /**
   * Admission of the tenant topics' envelope deliveries. A queue policy holds at most 20 statements and
   * 8 KB, so instead of one statement per subscription (what SqsSubscription adds) one statement on the
   * queue and one on the DLQ let SNS deliver from the tenant topics' name pattern: the size stays the
   * same whatever the number of tenants. The subscriptions themselves live in the tenant stacks. A topic
   * of that name that is no configured tenant's is refused by the consumer (its tenant bindings), never booked.
   */
  private admitTenantTopics(topicArnLike: string): void {
    const fromTopics = (queue: sqs.IQueue, sid: string) =>
      queue.addToResourcePolicy(
        new iam.PolicyStatement({
          sid,
          principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
          conditions: { ArnLike: { 'aws:SourceArn': topicArnLike } },
        }),
      );
    fromTopics(this.queue, 'AllowTenantTopicDeliveries');
    fromTopics(this.deadLetterQueue, 'AllowTenantTopicUndeliverable');
  }
}

/**
 * Explicit Deny of sqs:SendMessage (which also authorizes SendMessageBatch) on a queue for every
 * principal, unless the request comes from one of `exceptSourceArns` (an AWS service acting for
 * that resource: the SNS topic delivering, SQS moving between the queue and its DLQ), from a resource
 * matching `exceptSourceArnLike` (the tenant topics' name pattern) or from one of `exceptPrincipalArns`. An explicit Deny beats any Allow in a same-account IAM policy, so
 * `sqs:SendMessage` on `*` no longer lets anyone inject messages. Nothing else is denied: reads,
 * queue management and CloudFormation's policy updates are untouched.
 */
export function denyDirectSends(p: {
  queue: sqs.IQueue;
  exceptSourceArns: readonly string[];
  exceptSourceArnLike?: readonly string[];
  exceptPrincipalArns: readonly string[];
}): void {
  const sourceArnLike = p.exceptSourceArnLike ?? [];
  p.queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'DenySendExceptPipeline',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [p.queue.queueArn],
      conditions: {
        ArnNotEquals: { 'aws:SourceArn': [...p.exceptSourceArns] },
        ...(p.exceptPrincipalArns.length > 0 || sourceArnLike.length > 0
          ? {
              ArnNotLike: {
                ...(sourceArnLike.length > 0 ? { 'aws:SourceArn': [...sourceArnLike] } : {}),
                ...(p.exceptPrincipalArns.length > 0
                  ? { 'aws:PrincipalArn': [...p.exceptPrincipalArns] }
                  : {}),
              },
            }
          : {}),
      },
    }),
  );
}

/** Exact KMS actions on one key, added to a role's inline policy. */
export function grantKeyUse(role: iam.IRole, key: kms.IKey, sid: string, actions: string[]): void {
  role.addToPrincipalPolicy(new iam.PolicyStatement({ sid, actions, resources: [key.keyArn] }));
}
