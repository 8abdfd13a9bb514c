import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { S3Archive } from '../adapters/s3-archive';
import { SpoolArchive } from '../adapters/sqs-archive-spool';
import { signedS3PutFor, signedS3PutLike, type ObjectStore } from '../adapters/s3-signed-put';
import {
  archiveBucketName,
  archiveSpoolUrl,
  consumerSettings,
  type ConsumerSettings,
} from '../adapters/settings';
import { deadLettersFor } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch, type Telemetry } from '../adapters/telemetry';
import { archiveBeforeAcknowledging, type ArchivePort } from '../core/archive';
import type { BatchObserver, BatchOutcome } from '../core/batch';
import type { DeadLetterPort } from '../core/ports';

/**
 * What every consumer is wired with: its settings, its DLQ (forwarding each message once), telemetry,
 * and the evidence archive (absent without ARCHIVE_BUCKET_NAME: tests and tools that archive nothing).
 * With ARCHIVE_SPOOL_URL the archive is the spool (one SendMessage per invocation; records too large
 * for a message are put directly); without, one put per partition. Puts are one signed request each
 * (`SignedS3Put`), not the S3 client: that client alone was most of a consumer's module init.
 */
export interface ConsumerWiring {
  settings: ConsumerSettings;
  deadLetters: DeadLetterPort;
  telemetry: Telemetry;
  archive?: ArchivePort;
}

export interface ConsumerClients {
  dynamo: DynamoDBClient;
  /** The DLQ's client (local runs, tests); absent: the DLQ creates the environment's on its first send. */
  sqs?: SQSClient;
  /** Where the archive puts its objects, and with which credentials (local runs; default: the environment's S3). */
  s3?: S3Client;
  /** The archive's put itself (tests wrap `signedS3PutLike` to inject faults); wins over `s3`. */
  archiveStore?: ObjectStore;
}

const archiveStoreOf = (env: NodeJS.ProcessEnv, clients: ConsumerClients): ObjectStore =>
  clients.archiveStore ?? (clients.s3 ? signedS3PutLike(clients.s3) : signedS3PutFor(env));

const archiveOf = (
  env: NodeJS.ProcessEnv,
  clients: ConsumerClients & { sqs?: SQSClient },
  bucket: string,
) => {
  const direct = new S3Archive(archiveStoreOf(env, clients), bucket);
  const spoolUrl = archiveSpoolUrl(env);
  return spoolUrl === undefined || clients.sqs === undefined
    ? direct
    : new SpoolArchive(clients.sqs, spoolUrl, direct);
};

/**
 * With the archive spool every invocation sends to SQS, so its client is made with the others (and the
 * DLQ shares it); without, the DLQ loads one on its first dead letter.
 */
const withSpoolClient = (env: NodeJS.ProcessEnv, clients: ConsumerClients): ConsumerClients =>
  clients.sqs === undefined &&
  archiveBucketName(env) !== undefined &&
  archiveSpoolUrl(env) !== undefined
    ? { ...clients, sqs: new SQSClient({}) }
    : clients;

export const wireConsumer = (env: NodeJS.ProcessEnv, given: ConsumerClients): ConsumerWiring => {
  const settings = consumerSettings(env);
  const archiveBucket = archiveBucketName(env);
  const clients = withSpoolClient(env, given);
  return {
    settings,
    deadLetters: deadLettersFor(settings, clients),
    telemetry: createTelemetry(env),
    ...(archiveBucket === undefined ? {} : { archive: archiveOf(env, clients, archiveBucket) }),
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
