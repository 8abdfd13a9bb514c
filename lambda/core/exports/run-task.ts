/**
 * One export task, start to finish, against a store port: read the durable cursor, read the rows from
 * it, commit each sub-chunk, and — when a commit completes the execution — switch the snapshot.
 * A redelivered task resumes after the last committed sub-chunk; a replayed commit is reported by the
 * store as `already-committed` and changes nothing.
 */
import { ValidationError } from '../errors';
import type { ChunkResult } from './chunk';
import { chunkResults } from './chunk';
import {
  correctClosedPeriods,
  settlePendingCorrections,
  type LateCorrectionDeps,
} from './late-correction-pass';
import type { LateCorrectionRecord } from './late-corrections';
import type { ExecutionRef } from './execution';
import type { ExportTask } from './plan';
import type { ExportRow, RowContext, RowResult } from './rows';
import type { SnapshotDiff } from './snapshot';

export type { CurrentPointer, ExecutionRef } from './execution';

export interface TaskCursor {
  committedRows: number;
  /** The task's last sub-chunk is committed. */
  done: boolean;
}

export interface CommitOutcome {
  outcome: 'committed' | 'already-committed';
  /** Every task of the execution is committed. */
  complete: boolean;
}

export type SwitchOutcome =
  | {
      outcome: 'current';
      diff: SnapshotDiff;
      switchedAt: string;
      /** The switch's sequence in its (tenant, source, period); 0 for a switch made before they counted. */
      sequence?: number;
    }
  | { outcome: 'superseded'; currentExecutionId: string }
  | { outcome: 'incomplete' };

export interface ExportStorePort {
  readCursor(ref: ExecutionRef, task: ExportTask): Promise<TaskCursor>;
  commitChunk(ref: ExecutionRef, result: ChunkResult): Promise<CommitOutcome>;
  /**
   * `precedence`: the source's declared position (config `precedence`), recorded on the pointer.
   * `supersedes`: the provider whose stream charges its snapshots make provisional (core/ledger-total.ts),
   * recorded on each SNAPSHOT item; absent when the provider is additive.
   */
  switchIfNewer(
    ref: ExecutionRef,
    precedence?: number,
    supersedes?: string,
  ): Promise<SwitchOutcome>;
  /** The execution can never be complete (a file is unreadable): it never becomes current. */
  markFailed(ref: ExecutionRef, failure: string): Promise<void>;
}

export interface TaskRun {
  ref: ExecutionRef;
  task: ExportTask;
  store: ExportStorePort;
  /** Rows of the task from `fromRow` on (CSV: the reader resumed at the cursor). */
  openRows: (task: ExportTask, fromRow: number) => AsyncIterable<ExportRow>;
  context: Omit<RowContext, 'objectKey'>;
  subChunkRows: number;
  normalize?: (row: ExportRow, context: RowContext) => RowResult;
  /** Corrections of closed periods after a switch (docs/exports.md#closed-periods); none when absent. */
  corrections?: LateCorrectionDeps;
  /** The source's declared precedence among the tenant's exports; undefined when undeclared. */
  precedence?: number;
  /** The provider whose stream charges the snapshots supersede (absent: additive). */
  supersedes?: string;
}

export interface TaskReport {
  committed: number;
  alreadyCommitted: number;
  /** Set when this task's commit completed the execution. */
  switched?: SwitchOutcome;
  /** The correction pass after the switch, when an account of it has a closed (pinned) period. */
  corrections?: LateCorrectionRecord;
  /** The file is unreadable (a `ValidationError` of the file, not of a row): the execution failed. */
  failed?: string;
}

export const runExportTask = async (run: TaskRun): Promise<TaskReport> => {
  const report: TaskReport = { committed: 0, alreadyCommitted: 0 };
  const cursor =
    run.task.kind === 'csv-file'
      ? await run.store.readCursor(run.ref, run.task)
      : { committedRows: 0, done: false };
  let complete = false;
  if (!cursor.done) {
    const results = chunkResults({
      task: run.task,
      rows: run.openRows(run.task, cursor.committedRows),
      fromRow: cursor.committedRows,
      context: { ...run.context, objectKey: run.task.objectKey },
      subChunkRows: run.subChunkRows,
      normalize: run.normalize,
    });
    try {
      for await (const result of results) {
        const commit = await run.store.commitChunk(run.ref, result);
        report[commit.outcome === 'committed' ? 'committed' : 'alreadyCommitted'] += 1;
        complete = commit.complete;
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      report.failed = `${run.task.objectKey}: ${error.message}`;
      await run.store.markFailed(run.ref, report.failed);
      return report;
    }
  }
  if (complete || cursor.done) {
    if (run.corrections) await settlePendingCorrections(run.corrections, run.ref, run.supersedes);
    const switched = await run.store.switchIfNewer(run.ref, run.precedence, run.supersedes);
    if (switched.outcome !== 'incomplete') report.switched = switched;
    // Also on a redelivered task after the switch: the pass is idempotent and applies what was refused.
    if (switched.outcome === 'current' && run.corrections) {
      const corrections = await correctClosedPeriods(
        run.corrections,
        run.ref,
        switched.sequence ?? 0,
        switched.diff.previousExecutionId,
        run.supersedes,
      );
      if (corrections) report.corrections = corrections;
    }
  }
  return report;
};
