import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { S3Archive } from '../adapters/s3-archive';
import { s3ClientFor } from '../adapters/s3-client';
import { archiveBucketName, consumerSettings, type ConsumerSettings } from '../adapters/settings';
import { deadLettersFor } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch, type Telemetry } from '../adapters/telemetry';
import { archiveBeforeAcknowledging, type ArchivePort } from '../core/archive';
import type { BatchObserver, BatchOutcome } from '../core/batch';
import type { DeadLetterPort } from '../core/ports';

/**
 * What every consumer is wired with: its settings, its DLQ (forwarding each message once), telemetry,
 * and the evidence archive (absent without ARCHIVE_BUCKET_NAME: tests and tools that archive nothing).
 */
export interface ConsumerWiring {
  settings: ConsumerSettings;
  deadLetters: DeadLetterPort;
  telemetry: Telemetry;
  archive?: ArchivePort;
}

export const wireConsumer = (
  env: NodeJS.ProcessEnv,
  clients: { dynamo: DynamoDBClient; sqs: SQSClient; s3?: S3Client },
): ConsumerWiring => {
  const settings = consumerSettings(env);
  const archiveBucket = archiveBucketName(env);
  return {
    settings,
    deadLetters: deadLettersFor(settings, clients),
    telemetry: createTelemetry(env),
    ...(archiveBucket === undefined
      ? {}
      : { archive: new S3Archive(clients.s3 ?? s3ClientFor(env), archiveBucket) }),
  };
};

/**
 * Runs one SQS event through `process`, archives every record with its outcome (before anything is
 * acknowledged), logs and counts the outcomes, answers with the partial batch response.
 */
export const batchHandler =
  (
    wiring: ConsumerWiring,
    process: (records: SQSRecord[], context?: Context) => Promise<BatchOutcome>,
    observe?: BatchObserver,
  ) =>
  async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const receivedAt = new Date();
    const processed = await process(event.Records, context);
    const outcome = wiring.archive
      ? await archiveBeforeAcknowledging(
          wiring.archive,
          wiring.settings.stream,
          event.Records,
          processed,
          receivedAt,
        )
      : processed;
    reportBatch(wiring.telemetry, wiring.settings.stream, outcome);
    observe?.(outcome);
    return { batchItemFailures: outcome.batchItemFailures };
  };

/** The Lambda entry point: wires the handler on the first invocation, once per container. */
export const onFirstInvocation = <A extends unknown[], R>(
  create: () => (...args: A) => R,
): ((...args: A) => R) => {
  let instance: ((...args: A) => R) | undefined;
  return (...args) => (instance ??= create())(...args);
};
