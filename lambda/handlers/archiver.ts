import type { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { S3Archive } from '../adapters/s3-archive';
import { signedS3PutFor, signedS3PutLike, type ObjectStore } from '../adapters/s3-signed-put';
import { archiverSettings } from '../adapters/settings';
import { SqsDeadLetters } from '../adapters/sqs-dead-letters';
import { createTelemetry, reportBatch } from '../adapters/telemetry';
import { archiveSpoolBatch } from '../core/archiver';
import type { BatchObserver } from '../core/batch';
import { onFirstInvocation } from './consumer';

export interface ArchiverClients {
  sqs: SQSClient;
  /** Where the objects are put, with which credentials (local runs; default: the environment's S3). */
  s3?: S3Client;
  /** The put itself (tests wrap it to inject faults); wins over `s3`. */
  archiveStore?: ObjectStore;
}

/**
 * The archiver: each batch of spool messages written as one object per partition (`core/archiver.ts`),
 * poison spool messages to the spool's DLQ with the reason, a message acknowledged only once its
 * objects are stored (partial batch response).
 */
export const createArchiverHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: ArchiverClients = { sqs: new SQSClient({}) },
  observe?: BatchObserver,
): ((event: SQSEvent) => Promise<SQSBatchResponse>) => {
  const settings = archiverSettings(env);
  const store =
    clients.archiveStore ?? (clients.s3 ? signedS3PutLike(clients.s3) : signedS3PutFor(env));
  const archive = new S3Archive(store, settings.bucket);
  const deadLetters = new SqsDeadLetters({
    client: clients.sqs,
    queueUrl: settings.dlqUrl,
    fifo: false,
    stream: settings.stream,
  });
  const telemetry = createTelemetry(env);
  return async (event) => {
    const outcome = await archiveSpoolBatch(event.Records, {
      put: (object) => archive.put([object]),
      deadLetter: (message, reason) =>
        deadLetters.send(message, { code: 'malformed-body', field: 'body', reason }),
    });
    reportBatch(telemetry, settings.stream, outcome);
    telemetry.logger.info('archived', { objects: outcome.objects, records: outcome.records });
    observe?.(outcome);
    return { batchItemFailures: outcome.batchItemFailures };
  };
};

export const handler = onFirstInvocation(() => createArchiverHandler());
