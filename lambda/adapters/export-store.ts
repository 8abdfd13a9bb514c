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
  chunkPagesSortKeyPrefix,
  chunkPartSortKey,
  chunkSortKey,
  chunkSortKeyPrefix,
  cursorSortKey,
  diffPagesSortKeyPrefix,
  diffSortKey,
  executionSortKey,
  exportPartitionKey,
  ledgerKey,
  ledgerKeyOf,
  latePagesSortKeyPrefix,
  ledgerPartitionKeyOf,
  snapshotSortKey,
} from './table-layout';
import { addTotals, emptyTotals, type ChargeTotals } from '../core/exports/charge-totals';
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
import { itemBytes } from './item-size';
import { queryBySortKeyPrefix, queryPages, sortKeyPrefixQuery } from './paged-query';
import { jsonArrayPieces, pageNumber, pagesDigest, textPages } from './text-pages';

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

/**
 * Byte budgets that keep every item well inside DynamoDB's 400 KB (docs/exports.md#item-sizes). Text
 * that can grow with the export (chunk totals, diffs, refused corrections) goes to pages of its own.
 */
const PAGE_BYTES = 300_000;
/** Chunk totals up to this stay in the CHUNK item, beside its (bounded) rejection samples. */
const INLINE_TOTALS_BYTES = 200_000;
/** The plan's item; the switch later adds the rejection summary and a pass its correction record. */
const PLAN_BYTES = 200_000;
/** Refused corrections kept in the EXEC item; more go to pages. */
const INLINE_REJECTED_BYTES = 50_000;
/** A SNAPSHOT item whose per-service totals would pass this keeps its totals only. */
const SNAPSHOT_BYTES = 300_000;
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
/** BatchGetItem requests of `readPins` in flight at once. */
const PIN_READS_IN_FLIGHT = 4;

const reasonsOf = (error: unknown): string[] | undefined =>
  error instanceof TransactionCanceledException
    ? (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None')
    : undefined;
const onlyContention = (codes: string[]): boolean =>
  codes.every((code) => code === 'None' || code === 'TransactionConflict');
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));

/** A chunk's totals JSON: in the CHUNK item when small, else in pages of at most PAGE_BYTES. */
export const chunkTotalsLayout = (
  totals: ChargeTotals,
): { inline: string } | { pages: string[]; digest: string } => {
  const json = JSON.stringify(totals);
  if (Buffer.byteLength(json) <= INLINE_TOTALS_BYTES) return { inline: json };
  const pages = [...textPages([json], PAGE_BYTES)];
  return { pages, digest: pagesDigest(pages) };
};

/** The page items of a text: `<prefix><nnnnn>` → `attribute` = page. */
const pageItems = function* (
  pk: string,
  prefix: string,
  attribute: string,
  pages: Iterable<string>,
): Generator<Record<string, AttributeValue>> {
  let index = 0;
  for (const page of pages) {
    yield { ...ledgerKey(pk, `${prefix}${pageNumber(index)}`), [attribute]: S(page) };
    index += 1;
  }
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

/** The stored record; refused corrections kept in pages are read by `withRejectedPages`. */
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

/**
 * A snapshot item's per-currency totals and services, `N` values kept exact. An account with so many
 * (or such long) service names that they would pass SNAPSHOT_BYTES keeps its totals only
 * (`servicesOmitted`); statements read the totals, and the per-service figures stay in the diff.
 */
const snapshotItem = (
  ref: ExecutionRef,
  order: string,
  accountId: string,
  currencies: ChargeTotals[string],
): Record<string, AttributeValue> => {
  const item = fullSnapshotItem(ref, order, accountId, currencies);
  if (itemBytes(item) <= SNAPSHOT_BYTES) return item;
  return { ...item, services: { M: {} }, servicesOmitted: { BOOL: true } };
};

const fullSnapshotItem = (
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

/** Names the pages of a diff: the diff of an execution against the one it replaced. */
const replacedDigest = (diff: SnapshotDiff): string =>
  pagesDigest([diff.executionId, diff.previousExecutionId ?? '']);

/**
 * The DIFF item the switch transaction writes: fixed-size, it names the diff's pages (written before
 * the transaction) and counts them.
 */
const diffHeader = (pk: string, diff: SnapshotDiff, switchedAt: string, pages: number) => ({
  ...ledgerKey(pk, diffSortKey(switchedAt, diff.executionId)),
  executionId: S(diff.executionId),
  ...(diff.previousExecutionId ? { previousExecutionId: S(diff.previousExecutionId) } : {}),
  switchedAt: S(switchedAt),
  accountCurrencies: N(diff.accounts.length),
  pages: N(pages),
  pagesKey: S(replacedDigest(diff)),
});

/** A committed chunk's totals JSON: inline, from the pages it names, or from parts of earlier versions. */
const chunkTotalsText = (
  item: Record<string, AttributeValue>,
  pages: ReadonlyMap<string, string>,
): string => {
  const { sk } = ledgerKeyOf(item);
  const parts = count(item.parts);
  const keys = item.partsKey?.S
    ? Array.from(
        { length: parts },
        (_, index) => `${chunkPagesSortKeyPrefix(sk, item.partsKey?.S ?? '')}${pageNumber(index)}`,
      )
    : Array.from({ length: Math.max(0, parts - 1) }, (_, index) => chunkPartSortKey(sk, index + 1));
  const missing = keys.find((key) => !pages.has(key));
  if (missing) throw new Error(`${missing} of the committed chunk ${sk} is missing`);
  return `${item.totals?.S ?? ''}${keys.map((key) => pages.get(key)).join('')}`;
};

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

  /** Writes items with BatchWriteItem, 25 at a time as they come, retrying the unprocessed ones. */
  private async putItems(items: Iterable<Record<string, AttributeValue>>): Promise<void> {
    let pending: WriteRequest[] = [];
    const flush = async (all: boolean) => {
      for (let attempt = 0; pending.length >= (all ? 1 : BATCH_WRITE_LIMIT); attempt += 1) {
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
    };
    for (const item of items) {
      pending.push({ PutRequest: { Item: item } });
      if (pending.length >= BATCH_WRITE_LIMIT) await flush(false);
    }
    await flush(true);
  }

  /** The text of `count` pages `<prefix><nnnnn>` (attribute `attribute`), joined in order. */
  private async readPagedText(
    pk: string,
    prefix: string,
    attribute: string,
    count: number,
  ): Promise<string> {
    const pages: string[] = new Array<string>(count);
    const query = sortKeyPrefixQuery(this.table, pk, prefix, `${LEDGER_SK}, ${attribute}`);
    for await (const items of queryPages(this.options.client, query)) {
      for (const item of items) {
        const index = Number(ledgerKeyOf(item).sk.slice(prefix.length));
        if (Number.isInteger(index) && index < count) pages[index] = item[attribute]?.S ?? '';
      }
    }
    for (let index = 0; index < count; index += 1) {
      if (pages[index] === undefined) {
        throw new Error(`page ${index} of ${count} of ${pk} ${prefix} is missing`);
      }
    }
    return pages.join('');
  }

  /** An execution record with the refused corrections its record keeps in pages read back. */
  private async withRejectedPages(
    execution: ExecutionRecord,
    item: Record<string, AttributeValue>,
  ): Promise<ExecutionRecord> {
    const record = item.lateCorrections?.M;
    const pages = count(record?.rejectedPages);
    if (!execution.lateCorrections || !record || pages === 0) return execution;
    const text = await this.readPagedText(
      pkOf(execution),
      latePagesSortKeyPrefix(execution.executionId, record.rejectedKey?.S ?? ''),
      'rejected',
      pages,
    );
    return {
      ...execution,
      lateCorrections: {
        ...execution.lateCorrections,
        rejected: JSON.parse(text) as RejectedCorrection[],
      },
    };
  }

  /** A DIFF item's diff: its pages read back (a DIFF of earlier versions holds it inline). */
  private async diffOf(item: Record<string, AttributeValue>): Promise<StoredDiff> {
    const executionId = item.executionId?.S ?? '';
    const accounts =
      item.accounts?.S ??
      (await this.readPagedText(
        ledgerKeyOf(item).pk,
        diffPagesSortKeyPrefix(executionId, item.pagesKey?.S ?? ''),
        'accounts',
        count(item.pages),
      ));
    return {
      executionId,
      ...(item.previousExecutionId?.S ? { previousExecutionId: item.previousExecutionId.S } : {}),
      switchedAt: item.switchedAt?.S ?? '',
      accounts: (accounts === '' ? [] : JSON.parse(accounts)) as AccountDelta[],
    };
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
    if (itemBytes(item) > PLAN_BYTES) {
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
    return item ? this.withRejectedPages(executionOf(item), item) : undefined;
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
    const executions = await Promise.all(
      items
        .filter((item) => item.tasksTotal !== undefined)
        .map((item) => this.withRejectedPages(executionOf(item), item)),
    );
    return executions.sort((a, b) => a.order.localeCompare(b.order));
  }

  /** Every diff of a (tenant, source, period), oldest switch first, each read back from its pages. */
  async readDiffs(tenant: string, source: string, period: string): Promise<StoredDiff[]> {
    const diffs: StoredDiff[] = [];
    for (const item of await this.queryAll(exportPartitionKey(tenant, source, period), DIFF_PREFIX))
      diffs.push(await this.diffOf(item));
    return diffs;
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
    const readBatch = async (first: number) => {
      let pending = accounts
        .slice(first, first + BATCH_GET_LIMIT)
        .map((accountId) => ledgerKey(ledgerPartitionKeyOf(tenant, accountId, period), PERIOD_SK));
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        const response = await this.options.client.send(
          new BatchGetItemCommand({
            RequestItems: {
              [this.table]: {
                Keys: pending,
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
        pending = (response.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof pending;
        if (pending.length > 0) await pause(Math.min(attempt, 6));
      }
    };
    let next = 0;
    const reader = async () => {
      for (let first = next; first < accounts.length; first = next) {
        next += BATCH_GET_LIMIT;
        await readBatch(first);
      }
    };
    await Promise.all(Array.from({ length: PIN_READS_IN_FLIGHT }, reader));
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
      const inline = Buffer.byteLength(rejected) <= INLINE_REJECTED_BYTES;
      const pages = inline ? [] : [...textPages([rejected], PAGE_BYTES)];
      const digest = pagesDigest(pages);
      if (!inline) {
        await this.putItems(
          pageItems(pkOf(ref), latePagesSortKeyPrefix(ref.executionId, digest), 'rejected', pages),
        );
      }
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
                rejected: S(inline ? rejected : '[]'),
                ...(inline
                  ? {}
                  : {
                      rejectedCount: N(record.rejected.length),
                      rejectedPages: N(pages.length),
                      rejectedKey: S(digest),
                    }),
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
   * and is `already-committed`. Totals too large for the CHUNK item are written first, as pages under
   * keys that name their content: readers only read the pages a committed CHUNK item names.
   */
  async commitChunk(ref: ExecutionRef, result: ChunkResult): Promise<CommitOutcome> {
    const totals = chunkTotalsLayout(result.totals);
    if ('pages' in totals) {
      const chunkSk = chunkSortKey(ref.executionId, result.chunkId);
      await this.putItems(
        pageItems(
          pkOf(ref),
          chunkPagesSortKeyPrefix(chunkSk, totals.digest),
          'totals',
          totals.pages,
        ),
      );
    }
    const items = this.chunkTransaction(ref, result, totals);
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

  private chunkTransaction(
    ref: ExecutionRef,
    result: ChunkResult,
    totals: ReturnType<typeof chunkTotalsLayout>,
  ): TransactWriteItem[] {
    const pk = pkOf(ref);
    const chunkSk = chunkSortKey(ref.executionId, result.chunkId);
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
            ...('pages' in totals
              ? { parts: N(totals.pages.length), partsKey: S(totals.digest) }
              : { parts: N(1), totals: S(totals.inline) }),
          },
          ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
        },
      },
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

  /**
   * The exact sum of an execution's committed chunk totals, folded one chunk at a time as the Query
   * returns them: a chunk's pages sort right after its CHUNK item, and pages no committed CHUNK item
   * names (a delivery that lost the commit) are skipped.
   */
  async readSnapshotTotals(ref: ExecutionRef): Promise<ChargeTotals> {
    const sum = emptyTotals();
    let chunk: { item: Record<string, AttributeValue>; pages: Map<string, string> } | undefined;
    const fold = () => {
      if (chunk)
        addTotals(sum, JSON.parse(chunkTotalsText(chunk.item, chunk.pages)) as ChargeTotals);
      chunk = undefined;
    };
    const query = sortKeyPrefixQuery(
      this.table,
      pkOf(ref),
      chunkSortKeyPrefix(ref.executionId),
      `${LEDGER_SK}, totals, parts, partsKey`,
    );
    for await (const items of queryPages(this.options.client, query)) {
      for (const item of items) {
        const { sk } = ledgerKeyOf(item);
        if (!sk.includes(CHUNK_PART_MARKER)) {
          fold();
          chunk = { item, pages: new Map() };
        } else if (chunk && sk.startsWith(`${ledgerKeyOf(chunk.item).sk}${CHUNK_PART_MARKER}`)) {
          chunk.pages.set(sk, item.totals?.S ?? '');
        }
      }
    }
    fold();
    return sum;
  }

  private async putSnapshots(
    ref: ExecutionRef,
    order: string,
    totals: ChargeTotals,
  ): Promise<void> {
    await this.putItems(
      (function* () {
        for (const [accountId, currencies] of Object.entries(totals))
          yield snapshotItem(ref, order, accountId, currencies);
      })(),
    );
  }

  /** Writes the pages of a diff (before the switch transaction names them); returns their number. */
  private async putDiffPages(pk: string, diff: SnapshotDiff): Promise<number> {
    let pages = 0;
    await this.putItems(
      (function* () {
        for (const item of pageItems(
          pk,
          diffPagesSortKeyPrefix(diff.executionId, replacedDigest(diff)),
          'accounts',
          textPages(jsonArrayPieces(diff.accounts), PAGE_BYTES),
        )) {
          pages += 1;
          yield item;
        }
      })(),
    );
    return pages;
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
        const diff = stored
          ? await this.diffOf(stored)
          : { executionId: ref.executionId, accounts: [] };
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
      const pages = await this.putDiffPages(pk, diff);
      const switchedAt = new Date(this.now()).toISOString();
      try {
        await this.options.client.send(
          new TransactWriteItemsCommand({
            TransactItems: await this.switchTransaction(ref, execution, current, {
              diff,
              pages,
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
    {
      diff,
      pages,
      switchedAt,
      precedence,
    }: { diff: SnapshotDiff; pages: number; switchedAt: string; precedence: number | undefined },
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
      { Put: { TableName: this.table, Item: diffHeader(pk, diff, switchedAt, pages) } },
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
