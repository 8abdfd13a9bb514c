import { Duration, type Stack } from 'aws-cdk-lib';
import { ARCHIVE_SPOOL } from '../../contract/streams';
import type { BillingDedupConfig } from '../config';
import { makeArchiveWriter, type ArchiveTarget } from '../constructs/archive-writer';
import { QueueConsumer } from '../constructs/queue-consumer';
import { messagingName, resourceName, serviceName } from '../naming';
import { visibilityFor } from './export-pipelines';
import type { PipelineDefaults } from './pipeline-defaults';

/** Spool messages per archiver invocation: Lambda's largest SQS batch (it also stops at 6 MB of payload). */
export const ARCHIVER_BATCH_SIZE = 1000;
/** How long the event source mapping gathers a batch: the longest wait between a send and the object. */
export const ARCHIVER_BATCHING_WINDOW = Duration.seconds(60);
/** SQS's classic message size, which the consumers' spool encoder keeps to (lambda/core/archive-spool.ts). */
export const SPOOL_QUEUE_MAX_MESSAGE_BYTES = 262_144;
const ARCHIVER_TIMEOUT = Duration.seconds(120);
/** A 6 MB batch inflates to a few tens of MB of records, gzipped again per partition. */
const ARCHIVER_MEMORY_MB = 1024;

export interface ArchiveSpoolProps {
  readonly config: BillingDedupConfig;
  readonly defaults: PipelineDefaults;
  readonly archive: ArchiveTarget;
  /** The consumers that archive their batches: they send into the spool (in spool mode) and may put `oversize-` objects. */
  readonly writers: readonly QueueConsumer[];
}

/**
 * The archive spool (docs/architecture.md "Evidence archive"): a standard queue + DLQ fed by the
 * consumers, and the archiver writing many consumer invocations as one object per partition. Built in
 * both `archiveDelivery` modes, so that a switch to `direct` leaves the archiver to drain what is spooled.
 * Tells each consumer how to archive: through the spool (`spool`) or with its own puts (`direct`).
 */
export function addArchiveSpool(stack: Stack, props: ArchiveSpoolProps): QueueConsumer {
  const { config, defaults } = props;
  const stage = config.stage;
  const spooled = config.archiveDelivery === 'spool';
  const { logLevel, timeout: _consumerTimeout, ...functionDefaults } = defaults.consumer;
  const spool = new QueueConsumer(stack, `${ARCHIVE_SPOOL.outputPrefix}Pipeline`, {
    ...defaults.queue,
    streamName: ARCHIVE_SPOOL.name,
    fifo: false,
    queueName: messagingName(stage, ARCHIVE_SPOOL.name, false),
    producerRoleArns: spooled ? props.writers.map((writer) => writer.consumer.role.roleArn) : [],
    batchSize: ARCHIVER_BATCH_SIZE,
    maxBatchingWindow: ARCHIVER_BATCHING_WINDOW,
    inBatchConcurrency: 1,
    visibilityTimeout: visibilityFor(ARCHIVER_TIMEOUT, ARCHIVER_BATCHING_WINDOW),
    maxMessageSizeBytes: SPOOL_QUEUE_MAX_MESSAGE_BYTES,
    consumer: {
      ...functionDefaults,
      logLevel,
      memorySize: ARCHIVER_MEMORY_MB,
      timeout: ARCHIVER_TIMEOUT,
      functionName: resourceName(stage, ARCHIVE_SPOOL.consumer),
      description: `billing-dedup ${stage}: archive spool → one evidence object per partition`,
      entry: ARCHIVE_SPOOL.handlerEntry,
      serviceName: serviceName(stage, ARCHIVE_SPOOL.consumer),
      environment: {},
    },
  });
  makeArchiveWriter(spool.consumer, props.archive, stage);
  for (const writer of props.writers)
    makeArchiveWriter(
      writer.consumer,
      props.archive,
      stage,
      spooled ? { keys: 'oversize', spool: spool.queue } : { keys: 'all' },
    );
  return spool;
}
