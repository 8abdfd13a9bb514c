/**
 * Export executions in the ledger table: plans, chunk commits, CSV cursors, the CURRENT snapshot
 * pointer of each (tenant, source, billing period), the per-account SNAPSHOT items and the diffs.
 * Item layout and protocol: docs/exports.md. This class is the port the export core talks to; each
 * idea lives in its own module (export-items, export-chunk-commits, export-switch, export-diffs,
 * export-corrections) over one `ExportTable`.
 */
import { PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { fail } from '../core/errors';
import { countedStreamOf, statementRows } from '../core/ledger-total';
import type { ChargeTotals } from '../core/exports/charge-totals';
import type { CurrencyFigures } from '../core/exports/provisional-drift';
import type { DriftRecord } from '../core/exports/provisional-drift-message';
import type { DriftStorePort } from '../core/exports/provisional-drift-pass';
import type { ChunkResult } from '../core/exports/chunk';
import type { ClosedPins } from '../core/exports/late-correction-pass';
import type { LateCorrectionRecord } from '../core/exports/late-corrections';
import type { ExecutionPlan, ExportTask } from '../core/exports/plan';
import type {
  CommitOutcome,
  CurrentPointer,
  ExecutionRef,
  ExportStorePort,
  SwitchOutcome,
  TaskCursor,
} from '../core/exports/run-task';
import { S } from './dynamo-kit/attributes';
import { jitteredBackoff } from './dynamo-kit/backoff';
import { writeIfCondition } from './dynamo-kit/errors';
import {
  commitChunk,
  readCursor,
  readRejections,
  readSnapshotTotals,
} from './export-chunk-commits';
import { readPins, recordLateCorrections, withRejectedPages } from './export-corrections';
import { readProviderStream, recordDriftOnce } from './export-drift';
import { diffOf } from './export-diffs';
import {
  PLAN_BYTES,
  executionOf,
  pkOf,
  planItem,
  pointerOf,
  type ExecutionRecord,
  type ExecutionRejections,
  type StoredDiff,
} from './export-items';
import { switchIfNewer } from './export-switch';
import { getItem, queryAll, type ExportTable } from './export-table';
import { itemBytes } from './item-size';
import {
  periodInfoOf,
  readCurrentPointers,
  readStatementItems,
  snapshotPartOf,
  streamTotalsOf,
} from './ledger-reader';
import {
  CURRENT_SK,
  DIFF_PREFIX,
  EXECUTION_PREFIX,
  LEDGER_PK,
  executionSortKey,
  ledgerPartitionKeyOf,
  exportPartitionKey,
  ledgerKey,
  snapshotSortKey,
} from './table-layout';

export { chunkTotalsLayout } from './export-chunk-commits';
export { snapshotTotalsOf } from './export-items';
export type {
  ExecutionRecord,
  ExecutionRejections,
  ExecutionStatus,
  StoredDiff,
} from './export-items';

/** The key patterns live in table-layout.ts; re-exported for the modules that import them from here. */
export { CURRENT_SK, exportPartitionKey, snapshotSortKey };
export type { CurrentPointer };

export interface ExportStoreOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
  /** The invocation's remaining time, when known: back-offs never pause past it. */
  remainingMs?: () => number;
}

/** Back-off of the export store's retries: up to 20 ms · 2^attempt, jittered. */
const BACKOFF = { baseMs: 20, capMs: 2_560 };

export class ExportStore implements ExportStorePort, DriftStorePort {
  private readonly store: ExportTable;

  constructor(options: ExportStoreOptions) {
    this.store = {
      client: options.client,
      table: options.ledgerTable,
      now: options.now ?? Date.now,
      backoff: jitteredBackoff({
        ...BACKOFF,
        ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
      }),
    };
  }

  /**
   * Records the plan once, with its fingerprint and each file's pinned version. A redelivered manifest
   * finds it: `duplicate`, nothing planned again.
   */
  async recordPlan(plan: ExecutionPlan): Promise<'planned' | 'duplicate'> {
    const item = planItem(plan, new Date(this.store.now()).toISOString());
    if (itemBytes(item) > PLAN_BYTES) {
      fail(
        'too-large',
        'dataFiles',
        `the plan of ${plan.files.length} files and ${plan.tasks.length} tasks does not fit one item: raise the Parquet rows per task`,
      );
    }
    const planned = await writeIfCondition(
      () =>
        this.store.client.send(
          new PutItemCommand({
            TableName: this.store.table,
            Item: item,
            ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
          }),
        ),
      `the ledger refused the plan of ${plan.executionId}`,
    );
    return planned ? 'planned' : 'duplicate';
  }

  readCursor(ref: ExecutionRef, task: Pick<ExportTask, 'index'>): Promise<TaskCursor> {
    return readCursor(this.store, ref, task);
  }

  async readExecution(ref: ExecutionRef): Promise<ExecutionRecord | undefined> {
    const item = await getItem(this.store, pkOf(ref), executionSortKey(ref.executionId));
    return item ? withRejectedPages(this.store, executionOf(item), item) : undefined;
  }

  /** Rejected rows of an execution, per reason, with the first samples (file and row). */
  readRejections(ref: ExecutionRef): Promise<ExecutionRejections> {
    return readRejections(this.store, ref);
  }

  async listExecutions(tenant: string, source: string, period: string): Promise<ExecutionRecord[]> {
    const items = await queryAll(
      this.store,
      exportPartitionKey(tenant, source, period),
      EXECUTION_PREFIX,
    );
    const executions = await Promise.all(
      items
        .filter((item) => item.tasksTotal !== undefined)
        .map((item) => withRejectedPages(this.store, executionOf(item), item)),
    );
    return executions.sort((a, b) => a.order.localeCompare(b.order));
  }

  /** Every diff of a (tenant, source, period), oldest switch first, each read back from its pages. */
  async readDiffs(tenant: string, source: string, period: string): Promise<StoredDiff[]> {
    const diffs: StoredDiff[] = [];
    for (const item of await queryAll(
      this.store,
      exportPartitionKey(tenant, source, period),
      DIFF_PREFIX,
    ))
      diffs.push(await diffOf(this.store, item));
    return diffs;
  }

  /** The CURRENT pointer of a (tenant, source, period), if any execution is current. */
  async readCurrent(
    tenant: string,
    source: string,
    period: string,
  ): Promise<CurrentPointer | undefined> {
    const item = await getItem(this.store, exportPartitionKey(tenant, source, period), CURRENT_SK);
    return item?.executionId?.S ? pointerOf(item) : undefined;
  }

  readPins(
    tenant: string,
    period: string,
    accounts: readonly string[],
  ): Promise<Map<string, ClosedPins>> {
    return readPins(this.store, tenant, period, accounts);
  }

  /** What the statement of a (closed) account-period counts of `source`'s stream charges. */
  async readCountedStream(
    tenant: string,
    accountId: string,
    period: string,
    source: string,
  ): Promise<Record<string, string>> {
    const { client, table } = this.store;
    const items = await readStatementItems(
      client,
      table,
      ledgerPartitionKeyOf(tenant, accountId, period),
    );
    const stream = items.totals.flatMap(streamTotalsOf);
    const parts = items.snapshots.map(snapshotPartOf);
    const rows = statementRows(
      stream,
      parts,
      await readCurrentPointers(client, table, parts),
      items.period ? [periodInfoOf(items.period)] : [],
    );
    return countedStreamOf(stream, rows, source);
  }

  /** The period's own stream charges of `provider` in an account-period (the drift pass). */
  readProviderStream(
    tenant: string,
    accountId: string,
    period: string,
    provider: string,
  ): Promise<CurrencyFigures> {
    return readProviderStream(this.store, tenant, accountId, period, provider);
  }

  /** Writes a switch's drift record of an account once; returns the stored one. */
  recordDriftOnce(record: DriftRecord): Promise<DriftRecord> {
    return recordDriftOnce(this.store, record);
  }

  recordLateCorrections(
    ref: ExecutionRef,
    record: LateCorrectionRecord | undefined,
    sequence: number,
  ): Promise<void> {
    return recordLateCorrections(this.store, ref, record, sequence);
  }

  async commitChunk(ref: ExecutionRef, result: ChunkResult): Promise<CommitOutcome> {
    const outcome = await commitChunk(this.store, ref, result);
    const execution = await this.readExecution(ref);
    return {
      outcome,
      complete: execution !== undefined && execution.tasksDone >= execution.tasksTotal,
    };
  }

  /** The exact sum of an execution's committed chunk totals. */
  readSnapshotTotals(ref: ExecutionRef): Promise<ChargeTotals> {
    return readSnapshotTotals(this.store, ref);
  }

  /** An execution that cannot be read (a broken file) never becomes current; the previous one stays. */
  async markFailed(ref: ExecutionRef, failure: string): Promise<void> {
    await writeIfCondition(
      () =>
        this.store.client.send(
          new UpdateItemCommand({
            TableName: this.store.table,
            Key: ledgerKey(pkOf(ref), executionSortKey(ref.executionId)),
            UpdateExpression: 'SET #status = :failed, failure = :failure',
            ConditionExpression: '#status = :planned',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':failed': S('failed'),
              ':planned': S('planned'),
              ':failure': S(failure.slice(0, 1000)),
            },
          }),
        ),
      `the ledger refused to mark ${ref.executionId} failed`,
    );
  }

  /** Makes a complete execution current if it is newer than the current one (export-switch.ts). */
  switchIfNewer(
    ref: ExecutionRef,
    precedence?: number,
    supersedes?: string,
  ): Promise<SwitchOutcome> {
    return switchIfNewer(this.store, this, ref, precedence, supersedes);
  }
}
