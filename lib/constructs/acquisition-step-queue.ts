import { ArnFormat, Duration, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { checkVisibilityTimeout } from '../invariants';
import { dlqNotEmptyAlarm } from './dlq-alarm';
import type { ConsumerFunction } from './consumer-function';
import { denyDirectSends, grantKeyUse } from './queue-consumer';

export interface AcquisitionStepQueueProps {
  /** `billing-dedup-<stage>-export-azure`: the queue is `<name>-steps`, the alarm `<name>-steps-dlq-not-empty`. */
  readonly functionName: string;
  readonly functionTimeout: Duration;
  readonly masterKey: kms.IKey;
  readonly retention: Duration;
  readonly dlqRetention: Duration;
  readonly maxReceiveCount: number;
  /** Who may send into the queue besides the function: the operators who redrive its DLQ. */
  readonly redriveOperatorArns: readonly string[];
  readonly opsTopic: sns.ITopic;
}

/**
 * A scheduled acquisition's step queue (docs/azure-acquisition.md "Continuing through SQS"): its
 * function's continuations, delayed for a throttle, taken back by the same function one at a time
 * with partial batch responses. Encrypted with the messaging key and TLS-only like every queue of the
 * app; a DLQ (retained, generated name) after `maxReceiveCount` receives — the function itself sends
 * a step there on its last receive with the provider's error attached — and an alarm when the DLQ
 * holds anything. Only the function (and the redrive operators) may send into the queue.
 */
export class AcquisitionStepQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly dlqAlarm: cloudwatch.Alarm;
  private readonly props: AcquisitionStepQueueProps;

  constructor(scope: Construct, id: string, props: AcquisitionStepQueueProps) {
    super(scope, id);
    this.props = props;
    const visibilityTimeout = Duration.seconds(6 * props.functionTimeout.toSeconds());
    checkVisibilityTimeout({
      visibilityTimeoutSeconds: visibilityTimeout.toSeconds(),
      functionTimeoutSeconds: props.functionTimeout.toSeconds(),
      batchingWindowSeconds: 0,
    });
    const queueName = `${props.functionName}-steps`;
    // The DLQ names the queue in its RedriveAllowPolicy while the queue names the DLQ: by fixed name.
    const queueArn = Stack.of(this).formatArn({
      service: 'sqs',
      resource: queueName,
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: props.dlqRetention,
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.masterKey,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      redriveAllowPolicy: {
        sourceQueues: [sqs.Queue.fromQueueArn(this, 'StepQueueByName', queueArn)],
      },
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      queueName,
      retentionPeriod: props.retention,
      visibilityTimeout,
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.masterKey,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
    Tags.of(this.queue).add('billing-dedup:consumer', props.functionName);
    Tags.of(this.deadLetterQueue).add('billing-dedup:dead-letter-queue-of', queueName);

    this.dlqAlarm = dlqNotEmptyAlarm(this, 'DlqNotEmpty', {
      queue: this.deadLetterQueue,
      alarmName: `${queueName}-dlq-not-empty`,
      alarmDescription:
        `${props.functionName}: an acquisition step failed on every receive (${props.maxReceiveCount}) and waits in ` +
        'the step DLQ; its rejection-reason attribute carries the provider’s error. Peek it (billing-dedup dlq peek ' +
        '--dlq-url), fix the cause, then redrive: a step resumes from its cursor, so a repeat writes nothing twice.',
      opsTopic: props.opsTopic,
    });
  }

  /**
   * The function takes its steps from the queue (one per invocation, partial batch responses), may
   * send only into this queue and its DLQ, and is, with the redrive operators, the only sender.
   */
  consumeWith(fn: ConsumerFunction): void {
    fn.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true }),
    );
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SendOwnAcquisitionSteps',
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn, this.deadLetterQueue.queueArn],
      }),
    );
    grantKeyUse(fn.role, this.props.masterKey, 'EncryptAcquisitionSteps', [
      'kms:GenerateDataKey',
      'kms:Decrypt',
    ]);
    denyDirectSends({
      queue: this.queue,
      exceptSourceArns: [this.deadLetterQueue.queueArn],
      exceptPrincipalArns: [fn.role.roleArn, ...this.props.redriveOperatorArns],
    });
    denyDirectSends({
      queue: this.deadLetterQueue,
      exceptSourceArns: [this.queue.queueArn],
      exceptPrincipalArns: [fn.role.roleArn],
    });
  }
}
