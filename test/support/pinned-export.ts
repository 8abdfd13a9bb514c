/**
 * An export delivered the way the stage delivers it, into a versioned fake bucket: the manifest and its
 * CSV files put (each put is a new S3 version), the real planner pinning each file's version, then the
 * real chunk worker running every task (and, with `corrections`, its closed-period correction pass).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { ExportPlans } from '../../lambda/adapters/export-plans';
import { ExportStore } from '../../lambda/adapters/export-store';
import { S3Objects } from '../../lambda/adapters/s3-objects';
import type { LateCorrectionDeps } from '../../lambda/core/exports/late-correction-pass';
import { manifestFor } from '../../lambda/core/exports/manifest';
import { planDelivery } from '../../lambda/core/exports/plan-delivery';
import type { ExecutionRef } from '../../lambda/core/exports/run-task';
import { processTaskBatch } from '../../lambda/core/exports/task-batch';
import { taskMessageBody, type ExportTaskMessage } from '../../lambda/core/exports/task-message';
import { CSV_HEADER } from './export-pipeline';
import type { fakeBucket } from './fake-s3-bucket';

export const EXPORT_BUCKET = 'exports';

export interface PinnedExportTarget {
  bucket: ReturnType<typeof fakeBucket>;
  dynamo: DynamoDBClient;
  ledgerTable: string;
  /** Books corrections of closed periods after each switch, as the chunk worker does. */
  corrections?: (store: ExportStore) => LateCorrectionDeps;
}

export interface PinnedDelivery {
  tenant: string;
  executionId: string;
  period?: string;
  /** File name → CSV text (with `CSV_HEADER`). */
  files: Record<string, string>;
  eventTime: string;
  sequencer: string;
}

/** Delivers one execution end to end; returns its ref and its data files' keys. */
export const deliverPinnedExport = async (
  target: PinnedExportTarget,
  delivery: PinnedDelivery,
): Promise<{ ref: ExecutionRef; keys: string[] }> => {
  const names = Object.keys(delivery.files);
  const built = manifestFor({
    bucket: EXPORT_BUCKET,
    prefix: delivery.tenant,
    exportName: 'focus',
    billingPeriod: delivery.period ?? '2026-11',
    executionId: delivery.executionId,
    columns: CSV_HEADER.split(','),
    dataFileNames: names,
  });
  target.bucket.put(built.manifestKey, built.json);
  built.dataFileKeys.forEach((key, index) => target.bucket.put(key, delivery.files[names[index]]));
  const store = new ExportStore({ client: target.dynamo, ledgerTable: target.ledgerTable });
  const objects = new ExportObjects(new S3Objects(target.bucket.client));
  const sources = [{ tenant: delivery.tenant, bucket: EXPORT_BUCKET, prefix: delivery.tenant }];
  const sent: ExportTaskMessage[] = [];
  const planned = await planDelivery(
    {
      bucket: EXPORT_BUCKET,
      key: built.manifestKey,
      eventTime: delivery.eventTime,
      sequencer: delivery.sequencer,
    },
    {
      sources,
      targetRowsPerTask: 100,
      objects,
      plans: new ExportPlans({ client: target.dynamo, ledgerTable: target.ledgerTable, store }),
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
    },
  );
  const outcome = await processTaskBatch(
    sent.map((message, index) => ({ messageId: `task-${index}`, body: taskMessageBody(message) })),
    {
      concurrency: 1,
      bucket: EXPORT_BUCKET,
      sources,
      store,
      openRows: (name, task, fromRow) => objects.rowsOf(name, task, fromRow),
      subChunkRows: 100,
      threshold: '1000000',
      notifier: { notifyOnce: () => Promise.resolve('notified') },
      deadLetters: {
        send: (_record, rejection) =>
          Promise.reject(new Error(`task dead-lettered: ${rejection.reason}`)),
      },
      defaultProvider: 'aws',
      ...(target.corrections ? { corrections: target.corrections(store) } : {}),
    },
  );
  if (outcome.batchItemFailures.length > 0)
    throw new Error(`tasks failed: ${JSON.stringify(outcome.results)}`);
  return { ref: planned.ref, keys: built.dataFileKeys };
};
