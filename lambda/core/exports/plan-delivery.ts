/**
 * The planner: one delivered manifest → its plan recorded once and every task on the chunk queue.
 *
 * Record first, enqueue second, then mark the plan `enqueued`. A crash between the two leaves a plan
 * that is not marked: the redelivered manifest finds it and sends every task again (tasks are
 * idempotent: chunk commits are conditional, cursors resume). A plan already marked is a duplicate and
 * sends nothing.
 */
import { fail, PermanentError, TransientError, ValidationError } from '../errors';
import { mapWithConcurrency } from '../concurrency';
import type { DataFile, ExportManifest } from './manifest';
import { parseDeliveredManifest } from './delivered-manifest';
import {
  planExecution,
  sourceIdOf,
  type ExecutionPlan,
  type ExportTask,
  type FileFacts,
} from './plan';
import type { ExecutionRef } from './run-task';
import type { ObjectCreated } from './s3-event';
import { sourceOfKey, type ExportSource } from './source';
import type { ExportTaskMessage } from './task-message';

/** Reads the export bucket. */
export interface ManifestObjectsPort {
  /**
   * The manifest's text — of `versionId` when given (the version the notification reported created:
   * a legacy CUR's period-folder manifest is overwritten by each later assembly); a `ValidationError`
   * when it is gone or not text.
   */
  readText(bucket: string, key: string, versionId?: string): Promise<string>;
  /**
   * The `status` cell of a legacy CUR's Athena data-status object (`READY`, `UPDATING`); undefined
   * when the object does not exist. Needed only where Athena deliveries arrive: without it such a
   * delivery is never planned.
   */
  dataStatus?(bucket: string, key: string): Promise<string | undefined>;
  /** Size (and Parquet row groups) of a data file; undefined when the object does not exist. */
  factsOf(file: DataFile): Promise<FileFacts | undefined>;
}

export interface RecordedPlan {
  tasks: ExportTask[];
  enqueued: boolean;
  /** Absent on a plan recorded before fingerprints were: any delivery then counts as the same. */
  fingerprint?: string;
}

export interface PlanRecordsPort {
  recordPlan(plan: ExecutionPlan): Promise<'planned' | 'duplicate'>;
  readPlan(ref: ExecutionRef): Promise<RecordedPlan | undefined>;
  markEnqueued(ref: ExecutionRef): Promise<void>;
}

/** Sends the tasks to the chunk queue: every message is accepted, or it throws. */
export interface TaskQueuePort {
  send(messages: readonly ExportTaskMessage[]): Promise<void>;
}

export interface PlanDeliveryOptions {
  sources: readonly ExportSource[];
  targetRowsPerTask: number;
  objects: ManifestObjectsPort;
  plans: PlanRecordsPort;
  queue: TaskQueuePort;
  /** Data files examined at once (HEAD, Parquet footers). */
  concurrency?: number;
}

export type DeliveryOutcome = 'planned' | 're-enqueued' | 'duplicate';

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  ref: ExecutionRef;
  tasks: number;
}

const DEFAULT_CONCURRENCY = 8;

/** The source owning the manifest, or a rejection naming the config key to change. */
export const sourceOfManifest = (
  sources: readonly ExportSource[],
  created: Pick<ObjectCreated, 'bucket' | 'key'>,
): ExportSource =>
  sourceOfKey(sources, created.bucket, created.key) ??
  fail(
    'invalid-field',
    'exportSources',
    sources.length === 0
      ? `no export source is configured, so s3://${created.bucket}/${created.key} belongs to no tenant: add { tenant, prefix } to the exportSources config`
      : `no configured export source owns s3://${created.bucket}/${created.key}: add its prefix to the exportSources config`,
  );

const messagesOf = (bucket: string, ref: ExecutionRef, tasks: readonly ExportTask[]) =>
  tasks.map((task): ExportTaskMessage => ({ version: 1, bucket, ref, task }));

const enqueue = async (
  options: PlanDeliveryOptions,
  bucket: string,
  ref: ExecutionRef,
  tasks: readonly ExportTask[],
): Promise<void> => {
  await options.queue.send(messagesOf(bucket, ref, tasks));
  await options.plans.markEnqueued(ref);
};

const factsOf = async (options: PlanDeliveryOptions, files: readonly DataFile[]) => {
  const facts = await mapWithConcurrency(
    files,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (file) => {
      try {
        return await options.objects.factsOf(file);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        // The file is unreadable: name it, the whole execution is refused.
        return fail(error.code, file.key, error.reason);
      }
    },
  );
  return facts.filter((fact): fact is FileFacts => fact !== undefined);
};

/**
 * A delivery of an executionId that already has a plan: the same content is a duplicate (or, when the
 * first planner stopped before enqueueing, its tasks are sent again); other content is refused.
 */
const followRecorded = async (
  options: PlanDeliveryOptions,
  bucket: string,
  plan: ExecutionPlan,
  ref: ExecutionRef,
  recorded: RecordedPlan,
): Promise<DeliveryResult> => {
  if (recorded.fingerprint !== undefined && recorded.fingerprint !== plan.fingerprint) {
    throw new PermanentError(
      'execution-reused',
      'executionId',
      `execution ${ref.executionId} of ${plan.manifestKey} is already planned with other content ` +
        `(data files, their sizes or versions, or columns differ: fingerprint ${plan.fingerprint.slice(0, 12)}, ` +
        `planned ${recorded.fingerprint.slice(0, 12)}); its rows are not read. Deliver it under a new executionId`,
    );
  }
  if (recorded.enqueued) return { outcome: 'duplicate', ref, tasks: recorded.tasks.length };
  await enqueue(options, bucket, ref, recorded.tasks);
  return { outcome: 're-enqueued', ref, tasks: recorded.tasks.length };
};

/**
 * A legacy CUR's Athena delivery is complete only when the report's data-status object reads READY:
 * AWS sets it to UPDATING before it rewrites the Parquet files and to READY after. Anything else is
 * retried (a `TransientError`: the message comes back after the queue's visibility timeout), so the
 * files are never pinned half rewritten.
 */
const requireCompleteDelivery = async (
  options: PlanDeliveryOptions,
  manifest: ExportManifest,
): Promise<void> => {
  if (manifest.dataStatusKey === undefined) return;
  const status = await options.objects.dataStatus?.(manifest.bucket, manifest.dataStatusKey);
  if (status !== 'READY') {
    throw new TransientError(
      `s3://${manifest.bucket}/${manifest.dataStatusKey} reads ${status ?? '(no such object)'}, not READY: ` +
        `AWS is still writing the report; its files are planned once it is done`,
    );
  }
};

/** Plans one manifest delivery; a `RecordError` rejects it (the message goes to the DLQ). */
export const planDelivery = async (
  created: ObjectCreated,
  options: PlanDeliveryOptions,
): Promise<DeliveryResult> => {
  const source = sourceOfManifest(options.sources, created);
  const text = await options.objects.readText(created.bucket, created.key, created.versionId);
  const manifest = parseDeliveredManifest(text, `s3://${created.bucket}/${created.key}`);
  await requireCompleteDelivery(options, manifest);
  const ref: ExecutionRef = {
    tenant: source.tenant,
    source: sourceIdOf(manifest.bucket, manifest.exportRoot),
    period: manifest.billingPeriod,
    executionId: manifest.executionId,
  };
  // Planned before the recorded plan is consulted: a redelivery is a duplicate only with the same fingerprint.
  const plan = planExecution({
    manifest,
    binding: { tenant: ref.tenant, source: ref.source },
    event: { eventTime: created.eventTime, sequencer: created.sequencer },
    files: await factsOf(options, manifest.dataFiles),
    targetRowsPerTask: options.targetRowsPerTask,
  });
  const existing = await options.plans.readPlan(ref);
  if (existing) return followRecorded(options, created.bucket, plan, ref, existing);
  if ((await options.plans.recordPlan(plan)) === 'duplicate') {
    // Another delivery recorded it first: follow what that plan says.
    const recorded = await options.plans.readPlan(ref);
    if (!recorded) throw new Error(`the plan of ${ref.executionId} was recorded but is not there`);
    return followRecorded(options, created.bucket, plan, ref, recorded);
  }
  await enqueue(options, created.bucket, ref, plan.tasks);
  return { outcome: 'planned', ref, tasks: plan.tasks.length };
};
