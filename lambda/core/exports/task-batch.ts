/**
 * One SQS batch of the export-chunks queue: each record is one task of a plan. A task commits its
 * sub-chunks (run-task.ts); the commit that completes the execution switches the snapshot, and a diff
 * whose |change| reaches the threshold is notified once per account and currency.
 *
 * Time budget: after each sub-chunk a task checks that another one still fits in the invocation's
 * remaining time; if not, it stops with a transient failure (SQS redelivers the task and it resumes at
 * the durable cursor: a committed sub-chunk is never read into the totals again, an uncommitted one
 * is read again from its first row).
 *
 * Failures: a file that cannot be read as planned (a `ValidationError` of the file) fails the execution
 * at once. Any other error of a task is retried by SQS redelivery — S3 throttling, a network error, the
 * time budget — until the receive that is the queue's last (`maxReceiveCount`): there the execution is
 * marked `failed` with the error and the task dead-lettered with it, so that an execution never stays
 * incomplete with its task in the DLQ.
 */
import { supersededSource } from '../ledger-total';
import type { BatchOutcome } from '../batch';
import { fail, PermanentError, RecordError, TransientError, ValidationError } from '../errors';
import { parseRecords, runParsedBatch } from '../parsed-batch';
import type { DeadLetterPort, SqsRecordInput } from '../ports';
import { exportDiffKey, exportDiffMessage, type ExportDiffMessage } from './diff-message';
import type { LateCorrectionDeps } from './late-correction-pass';
import type { LateCorrectionRecord } from './late-corrections';
import type { ExportTask } from './plan';
import type { Tolerance } from '../reconciliation/compare';
import type { DriftSummary } from './provisional-drift';
import { recordProvisionalDrift, type DriftStorePort } from './provisional-drift-pass';
import type { ExportRow } from './rows';
import {
  runExportTask,
  type ExecutionRef,
  type ExportStorePort,
  type SwitchOutcome,
  type TaskReport,
} from './run-task';
import { changeNotifications } from './snapshot';
import { declaredPrecedence, sourceOfKey, type ExportSource } from './source';
import { parseTaskMessage, type ExportTaskMessage } from './task-message';
import {
  shadowingAfterSwitch,
  shadowingNote,
  type PeriodSourcesPort,
  type Shadowing,
} from './shadowing';

export interface DiffNotifierPort {
  notifyOnce(key: string, message: ExportDiffMessage): Promise<'notified' | 'duplicate'>;
}

/** The invocation's remaining time (Lambda's `getRemainingTimeInMillis`). */
export interface TimeBudget {
  remainingMs(): number;
}

export interface TaskBatchOptions {
  concurrency: number;
  bucket: string;
  sources: readonly ExportSource[];
  store: ExportStorePort;
  openRows: (bucket: string, task: ExportTask, fromRow: number) => AsyncIterable<ExportRow>;
  subChunkRows: number;
  /** Exact decimal ≥ 0: |change| that is notified. */
  threshold: string;
  notifier: DiffNotifierPort;
  deadLetters: DeadLetterPort;
  budget?: TimeBudget;
  /** Kept free after the last commit for the switch, notifications and the response. */
  reserveMs?: number;
  defaultProvider: string;
  /** Providers whose stream charges stay additive when their export counts (config `additiveSources`). */
  additiveSources?: readonly string[];
  /** Books corrections of closed periods after each switch (absent: no correction pass). */
  corrections?: LateCorrectionDeps;
  /** Ranks each switched source among the other exports of its period (absent: no check). */
  periodSources?: PeriodSourcesPort;
  /** The chunk queue's maxReceiveCount (absent: no receive is known to be the last). */
  maxReceiveCount?: number;
  /**
   * Records stream-versus-export drift at each switch that supersedes stream charges and notifies it
   * above `threshold` (config `provisionalDriftThreshold`); absent: no drift is recorded.
   */
  provisionalDrift?: { store: DriftStorePort; threshold: Tolerance };
}

/** Account partitions the drift pass of one switch reads at once. */
const DRIFT_CONCURRENCY = 8;

export const DEFAULT_RESERVE_MS = 10_000;

/** Stops a task between two sub-chunks when the next one may not fit in the remaining time. */
export const budgetedStore = (
  store: ExportStorePort,
  budget: TimeBudget,
  reserveMs: number,
): ExportStorePort => {
  let previous = budget.remainingMs();
  return {
    readCursor: (ref, task) => store.readCursor(ref, task),
    switchIfNewer: (ref, precedence, supersedes) =>
      store.switchIfNewer(ref, precedence, supersedes),
    markFailed: (ref, failure) => store.markFailed(ref, failure),
    commitChunk: async (ref, result) => {
      const commit = await store.commitChunk(ref, result);
      const remaining = budget.remainingMs();
      const lastSubChunk = Math.max(0, previous - remaining);
      previous = remaining;
      if (!result.last && remaining < reserveMs + 2 * lastSubChunk) {
        throw new TransientError(
          `time budget: ${remaining} ms left after rows [${result.fromRow}, ${result.toRow}) of task ${result.taskIndex}; the redelivered task resumes at row ${result.toRow}`,
        );
      }
      return commit;
    },
  };
};

/** The tenant of a task is the one the configured sources give its object, never the message's word. */
const checkBinding = (message: ExportTaskMessage, options: TaskBatchOptions): ExportSource => {
  if (message.bucket !== options.bucket) {
    fail('invalid-field', 'bucket', `${message.bucket} is not the export bucket ${options.bucket}`);
  }
  const source = sourceOfKey(options.sources, message.bucket, message.task.objectKey);
  if (!source || source.tenant !== message.ref.tenant) {
    fail(
      'invalid-field',
      'ref.tenant',
      `${message.task.objectKey} does not belong to tenant ${message.ref.tenant} in the exportSources config`,
    );
  }
  return source as ExportSource;
};

const notify = async (
  ref: ExecutionRef,
  switched: SwitchOutcome | undefined,
  options: TaskBatchOptions,
  shadowedBy: string | undefined,
): Promise<number> => {
  if (switched?.outcome !== 'current') return 0;
  const changes = changeNotifications(switched.diff, {
    tenant: ref.tenant,
    period: ref.period,
    threshold: options.threshold,
  });
  let notified = 0;
  for (const change of changes) {
    const message = exportDiffMessage(change, {
      ref,
      previousExecutionId: switched.diff.previousExecutionId,
      switchedAt: switched.switchedAt,
      ...(shadowedBy ? { shadowedBy } : {}),
    });
    if ((await options.notifier.notifyOnce(exportDiffKey(ref, change), message)) === 'notified') {
      notified += 1;
    }
  }
  return notified;
};

/**
 * Corrections the ledger refused (their period is closed and the policy is `reject`) send the task that
 * ran the switch's correction pass to the DLQ: after a reopen, its redrive runs the pass again and books
 * them (the switch itself and its notifications are already done and stay done).
 */
const refuseLateCorrections = (
  ref: ExecutionRef,
  record: LateCorrectionRecord | undefined,
): void => {
  const rejected = record?.rejected ?? [];
  if (rejected.length === 0) return;
  const accounts = [...new Set(rejected.map((correction) => correction.accountId))];
  const named = `accounts ${accounts.slice(0, 5).join(', ')}${accounts.length > 5 ? ` and ${accounts.length - 5} more` : ''}`;
  const closed = rejected.every((correction) => correction.code === 'period-closed');
  throw new PermanentError(
    closed ? 'period-closed' : 'conflict',
    'lateCorrections',
    closed
      ? `${rejected.length} correction(s) of the closed period ${ref.period} by export execution ${ref.executionId} ` +
          `refused by the reject late-charge policy (${named}); reopen the period and redrive this message to book them`
      : `${rejected.length} correction(s) of ${ref.period} by export execution ${ref.executionId} refused (${named}): ` +
          rejected.find((correction) => correction.code !== 'period-closed')?.reason,
  );
};

const receiveCountOf = (record: SqsRecordInput): number =>
  Number(record.attributes?.ApproximateReceiveCount ?? '1');

/**
 * Runs the task; an error that would be retried, on the task's last receive, fails the execution with
 * its reason and dead-letters the task instead (SQS would move it to the DLQ without a word).
 */
const runUntilLastReceive = async (
  run: () => Promise<TaskReport>,
  message: ExportTaskMessage,
  record: SqsRecordInput,
  store: ExportStorePort,
  maxReceiveCount: number | undefined,
): Promise<TaskReport> => {
  try {
    return await run();
  } catch (error) {
    const receives = receiveCountOf(record);
    if (error instanceof RecordError || maxReceiveCount === undefined) throw error;
    if (receives < maxReceiveCount) throw error;
    const failure =
      `${message.task.objectKey}: task ${message.task.index} failed on its last receive (${receives} of ${maxReceiveCount}): ` +
      `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    await store.markFailed(message.ref, failure);
    throw new PermanentError('retries-exhausted', message.task.objectKey, failure);
  }
};

const driftNote = (drift: DriftSummary | undefined): string =>
  drift && drift.accounts > 0
    ? `, provisional drift: ${drift.accounts} account-period(s), ${drift.above} above the threshold, ${drift.notified} notified`
    : '';

/** The drift pass of a switch that made `ref` current and supersedes `provider`'s stream charges. */
const driftAfterSwitch = (
  options: TaskBatchOptions,
  ref: ExecutionRef,
  switched: SwitchOutcome | undefined,
  provider: string | undefined,
  shadowedBy: string | undefined,
): Promise<DriftSummary> | undefined =>
  switched?.outcome === 'current' && provider !== undefined && options.provisionalDrift
    ? recordProvisionalDrift(
        {
          store: options.provisionalDrift.store,
          notifier: options.notifier,
          threshold: options.provisionalDrift.threshold,
          concurrency: DRIFT_CONCURRENCY,
        },
        ref,
        {
          switchedAt: switched.switchedAt,
          provider,
          ...(shadowedBy ? { shadowedBy } : {}),
        },
      )
    : undefined;

const correctionsNote = (record: LateCorrectionRecord | undefined): string =>
  record
    ? `, closed-period corrections: ${record.booked} booked, ${record.rejected.length} rejected`
    : '';

export const processTaskBatch = (
  records: readonly SqsRecordInput[],
  options: TaskBatchOptions,
): Promise<BatchOutcome> => {
  const store = options.budget
    ? budgetedStore(options.store, options.budget, options.reserveMs ?? DEFAULT_RESERVE_MS)
    : options.store;
  return runParsedBatch(
    parseRecords(records, (record) => parseTaskMessage(record.body)),
    {
      fifo: false,
      concurrency: options.concurrency,
      deadLetters: options.deadLetters,
      hashOf: (message) => `${message.ref.executionId}#${message.task.index}`,
      process: async (message, record) => {
        const { messageId } = record;
        const source = checkBinding(message, options);
        const provider = source.source ?? options.defaultProvider;
        const supersedes = supersededSource(provider, options.additiveSources ?? []);
        const run = () =>
          runExportTask({
            ref: message.ref,
            task: message.task,
            store,
            openRows: (task, fromRow) => options.openRows(message.bucket, task, fromRow),
            context: {
              tenant: message.ref.tenant,
              billingPeriod: message.ref.period,
              source: provider,
            },
            subChunkRows: options.subChunkRows,
            corrections: options.corrections,
            precedence: declaredPrecedence(source, message.ref.source),
            ...(supersedes === undefined ? {} : { supersedes }),
          });
        const report = await runUntilLastReceive(
          run,
          message,
          record,
          options.store,
          options.maxReceiveCount,
        );
        if (report.failed)
          throw new ValidationError('invalid-field', message.task.objectKey, report.failed);
        const shadowing: Shadowing | undefined =
          report.switched?.outcome === 'current' && options.periodSources
            ? await shadowingAfterSwitch(options.periodSources, message.ref)
            : undefined;
        const notified = await notify(
          message.ref,
          report.switched,
          options,
          shadowing?.shadowedBy[0],
        );
        const drift = await driftAfterSwitch(
          options,
          message.ref,
          report.switched,
          supersedes,
          shadowing?.shadowedBy[0],
        );
        refuseLateCorrections(message.ref, report.corrections);
        const note = shadowing ? shadowingNote(shadowing) : '';
        const hash = `${message.ref.executionId}#${message.task.index}`;
        return {
          messageId,
          outcome: report.committed > 0 ? 'applied' : 'duplicate',
          hash,
          evidence: { tenant: message.ref.tenant, period: message.ref.period },
          reason: `${report.committed} committed, ${report.alreadyCommitted} already committed${
            report.switched ? `, ${report.switched.outcome}` : ''
          }${notified > 0 ? `, ${notified} notified` : ''}${driftNote(drift)}${correctionsNote(report.corrections)}${
            note === '' ? '' : `, ${note}`
          }`,
          ...(shadowing?.shadowedBy[0] ? { shadowedBy: shadowing.shadowedBy[0] } : {}),
          ...(drift && drift.accounts > 0 ? { provisionalDrift: drift } : {}),
        };
      },
    },
  );
};
