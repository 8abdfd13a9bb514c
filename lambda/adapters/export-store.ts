/**
 * Export executions in the ledger table: plans, chunk commits, CSV cursors, the CURRENT snapshot
 * pointer of each (tenant, source, billing period), the per-account SNAPSHOT items and the diffs.
 * Item layout and protocol: docs/exports.md. Money is an exact decimal string everywhere: DynamoDB `N`
 * values are written from and read back to strings, never JS numbers.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  ConditionalCheckFailedException,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { fail } from '../core/errors';
import {
  CHUNK_PART_MARKER,
  CURRENT_SK,
  EXECUTION_PREFIX,
  DIFF_PREFIX,
  LEDGER_PK,
  LEDGER_SK,
  PERIOD_SK,
  chunkPartSortKey,
  chunkSortKey,
  chunkSortKeyPrefix,
  cursorSortKey,
  diffSortKey,
  executionSortKey,
  exportPartitionKey,
  ledgerKey,
  ledgerKeyOf,
  ledgerPartitionKeyOf,
  snapshotSortKey,
} from './table-layout';
import { sumTotals, type ChargeTotals } from '../core/exports/charge-totals';
import {
  MAX_REJECTION_SAMPLES,
  type ChunkResult,
  type RejectionSample,
} from '../core/exports/chunk';
import type { ExecutionPlan, ExportTask, PlannedFile } from '../core/exports/plan';
import type {
  CommitOutcome,
  CurrentPointer,
  ExecutionRef,
  ExportStorePort,
  SwitchOutcome,
  TaskCursor,
} from '../core/exports/run-task';
import { diffSnapshots, type AccountDelta, type SnapshotDiff } from '../core/exports/snapshot';
import type { LateCorrectionRecord, RejectedCorrection } from '../core/exports/late-corrections';
import type { ClosedPins } from '../core/exports/late-correction-pass';
import { decimalOf } from './dynamo-ledger';
import { queryBySortKeyPrefix } from './paged-query';

export type ExecutionStatus = 'planned' | 'current' | 'superseded' | 'failed';

export interface ExecutionRecord extends ExecutionRef {
  status: ExecutionStatus;
  order: string;
  manifestKey: string;
  exportArn: string;
  tasksTotal: number;
  tasksDone: number;
  rows: number;
  rejectedRows: number;
  createdAt: string;
  switchedAt?: string;
  failure?: string;
  files: PlannedFile[];
  tasks: ExportTask[];
  /** Corrections of closed periods booked (or refused) after this execution's switch. */
  lateCorrections?: LateCorrectionRecord;
}

export interface ExecutionRejections {
  rejectedByReason: Record<string, number>;
  samples: RejectionSample[];
}

export interface StoredDiff extends SnapshotDiff {
  switchedAt: string;
}

export interface ExportStoreOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
}

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: string | number): AttributeValue => ({ N: String(value) });
const count = (value: AttributeValue | undefined): number => Number(value?.N ?? '0');

/** The key patterns live in table-layout.ts; re-exported for the modules that import them from here. */
export { CURRENT_SK, exportPartitionKey, snapshotSortKey };
export type { CurrentPointer };
const pkOf = (ref: ExecutionRef): string => exportPartitionKey(ref.tenant, ref.source, ref.period);

/** One part of a chunk's totals stays well inside DynamoDB's 400 KB item limit. */
const PART_BYTES = 300_000;
/** A transaction carries at most 4 MB: the parts of one chunk stay under it with room for the rest. */
const MAX_PARTS = 12;
const MAX_SAMPLE_REASON = 300;
const POINTER_SET =
  'SET executionId = :id, #order = :order, switchedAt = :at, tenant = :tenant, #source = :source, #period = :period';
/** Every switch adds 1: the switch sequence of a (tenant, source, period), the version of its corrections. */
const POINTER_ADD = 'ADD switchSeq :one';
/**
 * The first switch of a (tenant, source, period) records when the source became current first (the
 * ledger total's default authority, core/export-authority.ts); later switches never move it, and a
 * pointer first switched before it existed stays without it. The declared precedence is the config's
 * as of the latest switch.
 */
const pointerUpdate = (hasCurrent: boolean, declared: boolean): string => {
  const set = [
    POINTER_SET,
    ...(hasCurrent
      ? ['previousExecutionId = :previous']
      : ['firstSwitchedAt = if_not_exists(firstSwitchedAt, :at)']),
    ...(declared ? ['#precedence = :precedence'] : []),
  ].join(', ');
  const remove = [
    ...(hasCurrent ? [] : ['previousExecutionId']),
    ...(declared ? [] : ['#precedence']),
  ];
  return `${set}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''} ${POINTER_ADD}`;
};
const CONTENDED_ATTEMPTS = 5;
const SWITCH_ATTEMPTS = 8;
const BATCH_WRITE_LIMIT = 25;
const BATCH_GET_LIMIT = 100;

const reasonsOf = (error: unknown): string[] | undefined =>
  error instanceof TransactionCanceledException
    ? (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None')
    : undefined;
const onlyContention = (codes: string[]): boolean =>
  codes.every((code) => code === 'None' || code === 'TransactionConflict');
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));

/** Splits a chunk's totals JSON into parts under the item size limit. */
export const totalsParts = (totals: ChargeTotals, chunkId: string): string[] => {
  const json = JSON.stringify(totals);
  const parts: string[] = [];
  let start = 0;
  while (start < json.length) {
    let end = Math.min(json.length, start + PART_BYTES);
    while (Buffer.byteLength(json.slice(start, end)) > PART_BYTES) end -= 1024;
    // Never cut a surrogate pair: each part is stored as UTF-8 on its own.
    if (end < json.length && /[\uD800-\uDBFF]/.test(json[end - 1])) end -= 1;
    parts.push(json.slice(start, end));
    start = end;
  }
  if (parts.length > MAX_PARTS) {
    return fail(
      'too-large',
      `chunk ${chunkId}`,
      `its totals take ${parts.length} parts of ${PART_BYTES} bytes (at most ${MAX_PARTS} fit a transaction): lower the sub-chunk rows or the Parquet rows per task`,
    );
  }
  return parts.length === 0 ? ['{}'] : parts;
};

const sampleValue = (sample: RejectionSample): AttributeValue => ({
  M: {
    objectKey: S(sample.objectKey),
    row: N(sample.row),
    reason: S(sample.reason.slice(0, MAX_SAMPLE_REASON)),
  },
});
const sampleOf = (value: AttributeValue): RejectionSample => ({
  objectKey: value.M?.objectKey?.S ?? '',
  row: count(value.M?.row),
  reason: value.M?.reason?.S ?? '',
});
const countsValue = (counts: Record<string, number>): AttributeValue => ({
  M: Object.fromEntries(Object.entries(counts).map(([key, value]) => [key, N(value)])),
});
const countsOf = (value: AttributeValue | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(value?.M ?? {}).map(([key, item]) => [key, count(item)]));

const lateCorrectionsOf = (value: Record<string, AttributeValue>): LateCorrectionRecord => ({
  sequence: count(value.sequence),
  booked: count(value.booked),
  unchanged: count(value.unchanged),
  rejected: JSON.parse(value.rejected?.S ?? '[]') as RejectedCorrection[],
  at: value.at?.S ?? '',
});

const pointerOf = (item: Record<string, AttributeValue>): CurrentPointer => ({
  executionId: item.executionId?.S ?? '',
  order: item.order?.S ?? '',
  switchedAt: item.switchedAt?.S ?? '',
  ...(item.previousExecutionId?.S ? { previousExecutionId: item.previousExecutionId.S } : {}),
  sequence: count(item.switchSeq),
  correctedSequence: count(item.correctedSeq),
  ...(item.firstSwitchedAt?.S ? { firstSwitchedAt: item.firstSwitchedAt.S } : {}),
  ...(item.precedence?.N ? { precedence: Number(item.precedence.N) } : {}),
});

const executionOf = (item: Record<string, AttributeValue>): ExecutionRecord => ({
  tenant: item.tenant?.S ?? '',
  source: item.source?.S ?? '',
  period: item.period?.S ?? '',
  executionId: item.executionId?.S ?? '',
  status: (item.status?.S ?? 'planned') as ExecutionStatus,
  order: item.order?.S ?? '',
  manifestKey: item.manifestKey?.S ?? '',
  exportArn: item.exportArn?.S ?? '',
  tasksTotal: count(item.tasksTotal),
  tasksDone: count(item.tasksDone),
  rows: count(item.rows),
  rejectedRows: count(item.rejectedRows),
  createdAt: item.createdAt?.S ?? '',
  ...(item.switchedAt?.S ? { switchedAt: item.switchedAt.S } : {}),
  ...(item.failure?.S ? { failure: item.failure.S } : {}),
  files: (item.files?.L ?? []).map((file) => ({
    key: file.M?.key?.S ?? '',
    format: (file.M?.format?.S ?? 'csv') as PlannedFile['format'],
    size: count(file.M?.size),
  })),
  tasks: JSON.parse(item.tasks?.S ?? '[]') as ExportTask[],
  ...(item.lateCorrections?.M
    ? { lateCorrections: lateCorrectionsOf(item.lateCorrections.M) }
    : {}),
});

/** A snapshot item's per-currency totals and services, `N` values kept exact. */
const snapshotItem = (
  ref: ExecutionRef,
  order: string,
  accountId: string,
  currencies: ChargeTotals[string],
): Record<string, AttributeValue> => ({
  ...ledgerKey(
    ledgerPartitionKeyOf(ref.tenant, accountId, ref.period),
    snapshotSortKey(ref.source, ref.executionId),
  ),
  tenant: S(ref.tenant),
  accountId: S(accountId),
  period: S(ref.period),
  source: S(ref.source),
  executionId: S(ref.executionId),
  order: S(order),
  totals: {
    M: Object.fromEntries(
      Object.entries(currencies).map(([currency, totals]) => [
        currency,
        { M: { total: N(totals.total), charges: N(totals.charges) } },
      ]),
    ),
  },
  services: {
    M: Object.fromEntries(
      Object.entries(currencies).map(([currency, totals]) => [
        currency,
        {
          M: Object.fromEntries(
            Object.entries(totals.services).map(([service, amount]) => [service, N(amount)]),
          ),
        },
      ]),
    ),
  },
});

/** Per currency {total, charges} of a SNAPSHOT item (for the ledger total rule). */
export const snapshotTotalsOf = (
  item: Record<string, AttributeValue>,
): Record<string, { total: string; charges: number }> =>
  Object.fromEntries(
    Object.entries(item.totals?.M ?? {}).map(([currency, value]) => [
      currency,
      { total: decimalOf(value.M?.total), charges: count(value.M?.charges) },
    ]),
  );

const diffItem = (pk: string, diff: SnapshotDiff, switchedAt: string) => {
  const full = JSON.stringify(diff.accounts);
  // A diff of every service of thousands of accounts can outgrow an item: keep the account totals then.
  const accounts =
    Buffer.byteLength(full) <= PART_BYTES
      ? full
      : JSON.stringify(diff.accounts.map((account) => ({ ...account, services: [] })));
  return {
    ...ledgerKey(pk, diffSortKey(switchedAt, diff.executionId)),
    executionId: S(diff.executionId),
    ...(diff.previousExecutionId ? { previousExecutionId: S(diff.previousExecutionId) } : {}),
    switchedAt: S(switchedAt),
    accounts: S(accounts),
    servicesOmitted: { BOOL: accounts !== full },
  };
};

const diffOf = (item: Record<string, AttributeValue>): StoredDiff => ({
  executionId: item.executionId?.S ?? '',
  ...(item.previousExecutionId?.S ? { previousExecutionId: item.previousExecutionId.S } : {}),
  switchedAt: item.switchedAt?.S ?? '',
  accounts: JSON.parse(item.accounts?.S ?? '[]') as AccountDelta[],
});

export class ExportStore implements ExportStorePort {
  private readonly now: () => number;

  constructor(private readonly options: ExportStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  private get table(): string {
    return this.options.ledgerTable;
  }

  private async getItem(pk: string, sk: string) {
    const response = await this.options.client.send(
      new GetItemCommand({
        TableName: this.table,
        Key: ledgerKey(pk, sk),
        ConsistentRead: true,
      }),
    );
    return response.Item;
  }

  private queryAll(
    pk: string,
    prefix: string,
    projection?: string,
  ): Promise<Record<string, AttributeValue>[]> {
    return queryBySortKeyPrefix(this.options.client, this.table, pk, prefix, projection);
  }

  /**
   * Records the plan once, with its fingerprint and each file's pinned version. A redelivered manifest
   * finds it: `duplicate`, nothing planned again.
   */
  async recordPlan(plan: ExecutionPlan): Promise<'planned' | 'duplicate'> {
    const item: Record<string, AttributeValue> = {
      ...ledgerKey(
        exportPartitionKey(plan.tenant, plan.source, plan.period),
        executionSortKey(plan.executionId),
      ),
      tenant: S(plan.tenant),
      source: S(plan.source),
      period: S(plan.period),
      executionId: S(plan.executionId),
      status: S('planned'),
      order: S(plan.order),
      manifestKey: S(plan.manifestKey),
      exportArn: S(plan.exportArn),
      tasksTotal: N(plan.tasks.length),
      tasksDone: N(0),
      rows: N(0),
      rejectedRows: N(0),
      createdAt: S(new Date(this.now()).toISOString()),
      files: {
        L: plan.files.map((file) => ({
          M: {
            key: S(file.key),
            format: S(file.format),
            size: N(file.size),
            ...(file.pin?.versionId ? { versionId: S(file.pin.versionId) } : {}),
            ...(file.pin ? { eTag: S(file.pin.eTag) } : {}),
          },
        })),
      },
      tasks: S(JSON.stringify(plan.tasks)),
      fingerprint: S(plan.fingerprint),
    };
    if (Buffer.byteLength(JSON.stringify(item)) > PART_BYTES) {
      fail(
        'too-large',
        'dataFiles',
        `the plan of ${plan.files.length} files and ${plan.tasks.length} tasks does not fit one item: raise the Parquet rows per task`,
      );
    }
    try {
      await this.options.client.send(
        new PutItemCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
        }),
      );
      return 'planned';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'duplicate';
      throw error;
    }
  }

  async readCursor(ref: ExecutionRef, task: Pick<ExportTask, 'index'>): Promise<TaskCursor> {
    const item = await this.getItem(pkOf(ref), cursorSortKey(ref.executionId, task.index));
    return { committedRows: count(item?.committedRows), done: item?.done?.BOOL === true };
  }

  async readExecution(ref: ExecutionRef): Promise<ExecutionRecord | undefined> {
    const item = await this.getItem(pkOf(ref), executionSortKey(ref.executionId));
    return item ? executionOf(item) : undefined;
  }

  /** Rejected rows of an execution, per reason, with the first samples (file and row). */
  async readRejections(ref: ExecutionRef): Promise<ExecutionRejections> {
    const chunks = await this.queryAll(
      pkOf(ref),
      chunkSortKeyPrefix(ref.executionId),
      `${LEDGER_SK}, rejectedByReason, samples`,
    );
    const rejectedByReason: Record<string, number> = {};
    const samples: RejectionSample[] = [];
    for (const chunk of chunks) {
      for (const [reason, rows] of Object.entries(countsOf(chunk.rejectedByReason))) {
        rejectedByReason[reason] = (rejectedByReason[reason] ?? 0) + rows;
      }
      samples.push(...(chunk.samples?.L ?? []).map(sampleOf));
    }
    return { rejectedByReason, samples: samples.slice(0, MAX_REJECTION_SAMPLES) };
  }

  async listExecutions(tenant: string, source: string, period: string): Promise<ExecutionRecord[]> {
    const items = await this.queryAll(exportPartitionKey(tenant, source, period), EXECUTION_PREFIX);
    return items
      .filter((item) => item.tasksTotal !== undefined)
      .map(executionOf)
      .sort((a, b) => a.order.localeCompare(b.order));
  }

  async readDiffs(tenant: string, source: string, period: string): Promise<StoredDiff[]> {
    return (await this.queryAll(exportPartitionKey(tenant, source, period), DIFF_PREFIX)).map(
      diffOf,
    );
  }

  /** The CURRENT pointer of a (tenant, source, period), if any execution is current. */
  async readCurrent(
    tenant: string,
    source: string,
    period: string,
  ): Promise<CurrentPointer | undefined> {
    const item = await this.getItem(exportPartitionKey(tenant, source, period), CURRENT_SK);
    return item?.executionId?.S ? pointerOf(item) : undefined;
  }

  /**
   * What each account's period pinned when it was closed: source → execution, no entry for a source it
   * had no snapshot of, and the pinned source that close found authoritative (accounts whose period was
   * never closed are left out). One BatchGetItem of PERIOD items per 100 accounts.
   */
  async readPins(
    tenant: string,
    period: string,
    accounts: readonly string[],
  ): Promise<Map<string, ClosedPins>> {
    const pins = new Map<string, ClosedPins>();
    let pending = accounts.map((accountId) =>
      ledgerKey(ledgerPartitionKeyOf(tenant, accountId, period), PERIOD_SK),
    );
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const response = await this.options.client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [this.table]: {
              Keys: pending.slice(0, BATCH_GET_LIMIT),
              ConsistentRead: true,
              ProjectionExpression: 'accountId, pinned, closeCount, authoritative',
            },
          },
        }),
      );
      for (const item of response.Responses?.[this.table] ?? []) {
        const accountId = item.accountId?.S;
        if (accountId && Number(item.closeCount?.N ?? '0') > 0) {
          const pinned = Object.entries(item.pinned?.M ?? {});
          pins.set(accountId, {
            pinned: Object.fromEntries(pinned.map(([source, id]) => [source, id.S ?? ''])),
            ...(item.authoritative?.S ? { authoritative: item.authoritative.S } : {}),
          });
        }
      }
      const unprocessed = (response.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof pending;
      pending = [...pending.slice(BATCH_GET_LIMIT), ...unprocessed];
      if (unprocessed.length > 0) await pause(Math.min(attempt, 6));
    }
    return pins;
  }

  /**
   * Records what the correction pass of switch `sequence` did on the execution (when it had anything
   * to correct), then marks the pointer corrected up to that switch — unless another switch came
   * first: its own pass follows.
   */
  async recordLateCorrections(
    ref: ExecutionRef,
    record: LateCorrectionRecord | undefined,
    sequence: number,
  ): Promise<void> {
    if (record) {
      const rejected = JSON.stringify(record.rejected);
      await this.options.client.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: ledgerKey(pkOf(ref), executionSortKey(ref.executionId)),
          UpdateExpression: 'SET lateCorrections = :record',
          ExpressionAttributeValues: {
            ':record': {
              M: {
                sequence: N(record.sequence),
                booked: N(record.booked),
                unchanged: N(record.unchanged),
                rejected: S(
                  Buffer.byteLength(rejected) <= PART_BYTES
                    ? rejected
                    : JSON.stringify(record.rejected.slice(0, 1000)),
                ),
                at: S(record.at),
              },
            },
          },
        }),
      );
    }
    await this.options.client
      .send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: ledgerKey(pkOf(ref), CURRENT_SK),
          UpdateExpression: 'SET correctedSeq = :sequence',
          ConditionExpression: 'switchSeq = :sequence',
          ExpressionAttributeValues: { ':sequence': N(sequence) },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /**
   * One transaction per sub-chunk: the CHUNK item (written once), the CSV cursor moved from the
   * sub-chunk's first row to its end, and the execution's counters. A replay fails the CHUNK condition
   * and is `already-committed`.
   */
  async commitChunk(ref: ExecutionRef, result: ChunkResult): Promise<CommitOutcome> {
    const items = this.chunkTransaction(ref, result);
    let outcome: CommitOutcome['outcome'] | undefined;
    for (let attempt = 0; outcome === undefined; attempt += 1) {
      try {
        await this.options.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
        outcome = 'committed';
      } catch (error) {
        const codes = reasonsOf(error);
        if (!codes) throw error;
        if (codes[0] === 'ConditionalCheckFailed') outcome = 'already-committed';
        else if (codes.includes('ValidationError')) {
          throw new Error(`chunk ${result.chunkId} of ${ref.executionId} is invalid: ${error}`);
        } else if (codes[items.length - 1] === 'ConditionalCheckFailed') {
          throw new Error(
            `execution ${ref.executionId} of ${pkOf(ref)} has no plan with a task ${result.taskIndex}`,
          );
        } else if (codes.includes('ConditionalCheckFailed')) {
          // A forged or replayed message of a finished task (another kind, another first row) writes nothing.
          if ((await this.readCursor(ref, { index: result.taskIndex })).done) {
            outcome = 'already-committed';
          } else {
            // The CHUNK item is not there but the cursor has moved: another worker read the file with
            // other sub-chunk bounds. Nothing was written; the redelivered task resumes at the cursor.
            throw new Error(
              `the cursor of task ${result.taskIndex} of ${ref.executionId} is not at row ${result.fromRow}`,
            );
          }
        } else if (!onlyContention(codes) || attempt + 1 >= CONTENDED_ATTEMPTS) throw error;
        else await pause(attempt);
      }
    }
    const execution = await this.readExecution(ref);
    return {
      outcome,
      complete: execution !== undefined && execution.tasksDone >= execution.tasksTotal,
    };
  }

  private chunkTransaction(ref: ExecutionRef, result: ChunkResult): TransactWriteItem[] {
    const pk = pkOf(ref);
    const chunkSk = chunkSortKey(ref.executionId, result.chunkId);
    const parts = totalsParts(result.totals, result.chunkId);
    const items: TransactWriteItem[] = [
      {
        Put: {
          TableName: this.table,
          Item: {
            ...ledgerKey(pk, chunkSk),
            taskIndex: N(result.taskIndex),
            fromRow: N(result.fromRow),
            toRow: N(result.toRow),
            rows: N(result.rows),
            rejectedRows: N(result.rejectedRows),
            rejectedByReason: countsValue(result.rejectedByReason),
            samples: { L: result.samples.map(sampleValue) },
            parts: N(parts.length),
            totals: S(parts[0]),
          },
          ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
        },
      },
      ...parts.slice(1).map((part, index): TransactWriteItem => ({
        Put: {
          TableName: this.table,
          Item: {
            ...ledgerKey(pk, chunkPartSortKey(chunkSk, index + 1)),
            totals: S(part),
          },
        },
      })),
    ];
    const task = result.chunkId.includes('.');
    if (task) {
      items.push({
        Update: {
          TableName: this.table,
          Key: ledgerKey(pk, cursorSortKey(ref.executionId, result.taskIndex)),
          UpdateExpression: `SET committedRows = :to${result.last ? ', done = :true' : ''}`,
          ConditionExpression:
            result.fromRow === 0
              ? 'attribute_not_exists(committedRows) AND attribute_not_exists(done)'
              : 'committedRows = :from AND attribute_not_exists(done)',
          ExpressionAttributeValues: {
            ':to': N(result.toRow),
            ...(result.fromRow === 0 ? {} : { ':from': N(result.fromRow) }),
            ...(result.last ? { ':true': { BOOL: true } } : {}),
          },
        },
      });
    } else if (result.last) {
      // The task's done marker (a CSV task's is its cursor): tasksDone counts each task once.
      items.push({
        Update: {
          TableName: this.table,
          Key: ledgerKey(pk, cursorSortKey(ref.executionId, result.taskIndex)),
          UpdateExpression: 'SET done = :true',
          ConditionExpression: 'attribute_not_exists(done)',
          ExpressionAttributeValues: { ':true': { BOOL: true } },
        },
      });
    }
    items.push({
      Update: {
        TableName: this.table,
        Key: ledgerKey(pk, executionSortKey(ref.executionId)),
        UpdateExpression: `ADD #rows :rows, rejectedRows :rejected${result.last ? ', tasksDone :one' : ''}`,
        ConditionExpression: `attribute_exists(${LEDGER_PK}) AND tasksTotal > :index`,
        ExpressionAttributeNames: { '#rows': 'rows' },
        ExpressionAttributeValues: {
          ':rows': N(result.rows),
          ':rejected': N(result.rejectedRows),
          ':index': N(result.taskIndex),
          ...(result.last ? { ':one': N(1) } : {}),
        },
      },
    });
    return items;
  }

  /** The exact sum of an execution's committed chunk totals. */
  async readSnapshotTotals(ref: ExecutionRef): Promise<ChargeTotals> {
    const items = await this.queryAll(
      pkOf(ref),
      chunkSortKeyPrefix(ref.executionId),
      `${LEDGER_SK}, totals`,
    );
    const bySk = new Map(items.map((item) => [ledgerKeyOf(item).sk, item.totals?.S ?? '']));
    const chunks = [...bySk.keys()].filter((sk) => !sk.includes(CHUNK_PART_MARKER)).sort();
    return sumTotals(
      chunks.map((sk) => {
        const parts = [...bySk.keys()]
          .filter((key) => key.startsWith(`${sk}${CHUNK_PART_MARKER}`))
          .sort();
        return JSON.parse(
          [bySk.get(sk), ...parts.map((key) => bySk.get(key))].join(''),
        ) as ChargeTotals;
      }),
    );
  }

  private async putSnapshots(
    ref: ExecutionRef,
    order: string,
    totals: ChargeTotals,
  ): Promise<void> {
    let pending: WriteRequest[] = Object.entries(totals).map(([accountId, currencies]) => ({
      PutRequest: { Item: snapshotItem(ref, order, accountId, currencies) },
    }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const batch = pending.slice(0, BATCH_WRITE_LIMIT);
      pending = pending.slice(BATCH_WRITE_LIMIT);
      const response = await this.options.client.send(
        new BatchWriteItemCommand({ RequestItems: { [this.table]: batch } }),
      );
      const unprocessed = response.UnprocessedItems?.[this.table] ?? [];
      if (unprocessed.length > 0) {
        pending.push(...unprocessed);
        await pause(Math.min(attempt, 6));
      }
    }
  }

  private async markSuperseded(ref: ExecutionRef): Promise<void> {
    await this.options.client
      .send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: ledgerKey(pkOf(ref), executionSortKey(ref.executionId)),
          UpdateExpression: 'SET #status = :superseded',
          ConditionExpression: '#status = :planned',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':superseded': S('superseded'), ':planned': S('planned') },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /** An execution that cannot be read (a broken file) never becomes current; the previous one stays. */
  async markFailed(ref: ExecutionRef, failure: string): Promise<void> {
    await this.options.client
      .send(
        new UpdateItemCommand({
          TableName: this.table,
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
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /**
   * Makes a complete execution current if it is newer than the current one (by `order`), atomically:
   * SNAPSHOT items first (idempotent), then one transaction moves the pointer — conditional on the
   * pointer still being the one read — marks both executions and records the diff. A lost race
   * re-reads and decides again; an older execution is `superseded` and changes nothing.
   */
  async switchIfNewer(ref: ExecutionRef, precedence?: number): Promise<SwitchOutcome> {
    const execution = await this.readExecution(ref);
    if (!execution) throw new Error(`execution ${ref.executionId} of ${pkOf(ref)} has no plan`);
    if (execution.tasksDone < execution.tasksTotal || execution.status === 'failed') {
      return { outcome: 'incomplete' };
    }
    const pk = pkOf(ref);
    let totals: ChargeTotals | undefined;
    for (let attempt = 0; attempt < SWITCH_ATTEMPTS; attempt += 1) {
      const current = await this.readCurrent(ref.tenant, ref.source, ref.period);
      if (current?.executionId === ref.executionId) {
        const stored = await this.getItem(pk, diffSortKey(current.switchedAt, ref.executionId));
        const diff = stored ? diffOf(stored) : { executionId: ref.executionId, accounts: [] };
        return {
          outcome: 'current',
          diff,
          switchedAt: current.switchedAt,
          sequence: current.sequence,
        };
      }
      if (current && current.order >= execution.order) {
        await this.markSuperseded(ref);
        return { outcome: 'superseded', currentExecutionId: current.executionId };
      }
      if (!totals) {
        totals = await this.readSnapshotTotals(ref);
        await this.putSnapshots(ref, execution.order, totals);
      }
      const previous = current
        ? {
            executionId: current.executionId,
            totals: await this.readSnapshotTotals({ ...ref, executionId: current.executionId }),
          }
        : undefined;
      const diff = diffSnapshots({ executionId: ref.executionId, totals }, previous);
      const switchedAt = new Date(this.now()).toISOString();
      try {
        await this.options.client.send(
          new TransactWriteItemsCommand({
            TransactItems: await this.switchTransaction(ref, execution, current, diff, {
              switchedAt,
              precedence,
            }),
          }),
        );
        return { outcome: 'current', diff, switchedAt, sequence: (current?.sequence ?? 0) + 1 };
      } catch (error) {
        const codes = reasonsOf(error);
        if (!codes || codes.includes('ValidationError')) throw error;
        await pause(attempt);
      }
    }
    throw new Error(
      `switching ${ref.executionId} of ${pk}: lost the race ${SWITCH_ATTEMPTS} times`,
    );
  }

  private async switchTransaction(
    ref: ExecutionRef,
    execution: ExecutionRecord,
    current: { executionId: string } | undefined,
    diff: SnapshotDiff,
    { switchedAt, precedence }: { switchedAt: string; precedence: number | undefined },
  ): Promise<TransactWriteItem[]> {
    const pk = pkOf(ref);
    const rejections = await this.readRejections(ref);
    const items: TransactWriteItem[] = [
      {
        Update: {
          TableName: this.table,
          Key: ledgerKey(pk, CURRENT_SK),
          UpdateExpression: pointerUpdate(current !== undefined, precedence !== undefined),
          ConditionExpression: current
            ? 'executionId = :previous'
            : 'attribute_not_exists(executionId)',
          ExpressionAttributeNames: {
            '#order': 'order',
            '#source': 'source',
            '#period': 'period',
            '#precedence': 'precedence',
          },
          ExpressionAttributeValues: {
            ':id': S(ref.executionId),
            ':order': S(execution.order),
            ':tenant': S(ref.tenant),
            ':source': S(ref.source),
            ':period': S(ref.period),
            ':at': S(switchedAt),
            ':one': N(1),
            ...(precedence === undefined ? {} : { ':precedence': N(precedence) }),
            ...(current ? { ':previous': S(current.executionId) } : {}),
          },
        },
      },
      {
        Update: {
          TableName: this.table,
          Key: ledgerKey(pk, executionSortKey(ref.executionId)),
          UpdateExpression:
            'SET #status = :current, switchedAt = :at, rejectedByReason = :reasons, rejectionSamples = :samples',
          ConditionExpression: 'tasksDone = tasksTotal',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':current': S('current'),
            ':at': S(switchedAt),
            ':reasons': countsValue(rejections.rejectedByReason),
            ':samples': { L: rejections.samples.map(sampleValue) },
          },
        },
      },
      { Put: { TableName: this.table, Item: diffItem(pk, diff, switchedAt) } },
    ];
    if (current) {
      items.push({
        Update: {
          TableName: this.table,
          Key: ledgerKey(pk, executionSortKey(current.executionId)),
          UpdateExpression: 'SET #status = :superseded',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':superseded': S('superseded') },
        },
      });
    }
    return items;
  }
}
