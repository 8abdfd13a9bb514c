import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { BillingDedupConfig } from '../config';
import type { QueueConsumerProps } from '../constructs/queue-consumer';

/** What every queue + consumer of the stateless stack takes from the configuration. */
export type QueueDefaults = Pick<
  QueueConsumerProps,
  | 'redriveOperatorArns'
  | 'masterKey'
  | 'retention'
  | 'dlqRetention'
  | 'visibilityTimeout'
  | 'maxReceiveCount'
  | 'dedupTtl'
  | 'batchSize'
  | 'maxBatchingWindow'
  | 'maxConcurrency'
  | 'inBatchConcurrency'
>;

/** What every function of the stateless stack takes from the configuration. */
export type FunctionDefaults = Pick<
  QueueConsumerProps['consumer'],
  'timeout' | 'memorySize' | 'logRetention' | 'logRemovalPolicy' | 'logLevel'
>;

export interface PipelineDefaults {
  readonly queue: QueueDefaults;
  readonly consumer: FunctionDefaults;
}

/**
 * The settings the message streams, the export queues and the auto-close function share: one place,
 * so a configuration key changes every pipeline alike.
 */
export function pipelineDefaults(
  config: BillingDedupConfig,
  messagingKey: kms.IKey,
  redriveOperatorArns: readonly string[],
): PipelineDefaults {
  return {
    queue: {
      redriveOperatorArns,
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
    },
    consumer: {
      timeout: Duration.seconds(config.functionTimeoutSeconds),
      memorySize: config.functionMemoryMb,
      logRetention: config.logRetentionDays,
      logRemovalPolicy: config.stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      logLevel: config.logLevel,
    },
  };
}
