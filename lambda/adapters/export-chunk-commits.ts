/**
 * Chunk commits of an export execution: one transaction per sub-chunk writes the CHUNK item (once),
 * moves the task's cursor and adds to the execution's counters; the committed chunks are read back
 * as the execution's exact totals and its rejections.
 */
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { addTotals, emptyTotals, type ChargeTotals } from '../core/exports/charge-totals';
import {
  MAX_REJECTION_SAMPLES,
  type ChunkResult,
  type RejectionSample,
} from '../core/exports/chunk';
import type { ExportTask } from '../core/exports/plan';
import type { CommitOutcome, ExecutionRef, TaskCursor } from '../core/exports/run-task';
import { BOOL, N, S, countOf, type Item } from './dynamo-kit/attributes';
import {
  conditionFailedAt,
  onlyContention,
  someConditionFailed,
  transactWrite,
} from './dynamo-kit/transact';
import {
  INLINE_TOTALS_BYTES,
  PAGE_BYTES,
  countsOf,
  countsValue,
  pageItems,
  pkOf,
  sampleOf,
  sampleValue,
  type ExecutionRejections,
} from './export-items';
import { getItem, putItems, queryAll, type ExportTable } from './export-table';
import { queryPages, sortKeyPrefixQuery } from './paged-query';
import {
  CHUNK_PART_MARKER,
  LEDGER_PK,
  LEDGER_SK,
  chunkPagesSortKeyPrefix,
  chunkPartSortKey,
  chunkSortKey,
  chunkSortKeyPrefix,
  cursorSortKey,
  executionSortKey,
  ledgerKey,
  ledgerKeyOf,
} from './table-layout';
import { pageNumber, pagesDigest, textPages } from './text-pages';

const CONTENDED_ATTEMPTS = 5;

export type ChunkTotalsLayout = { inline: string } | { pages: string[]; digest: string };

/** A chunk's totals JSON: in the CHUNK item when small, else in pages of at most PAGE_BYTES. */
export const chunkTotalsLayout = (totals: ChargeTotals): ChunkTotalsLayout => {
  const json = JSON.stringify(totals);
  if (Buffer.byteLength(json) <= INLINE_TOTALS_BYTES) return { inline: json };
  const pages = [...textPages([json], PAGE_BYTES)];
  return { pages, digest: pagesDigest(pages) };
};

export const readCursor = async (
  store: ExportTable,
  ref: ExecutionRef,
  task: Pick<ExportTask, 'index'>,
): Promise<TaskCursor> => {
  const item = await getItem(store, pkOf(ref), cursorSortKey(ref.executionId, task.index));
  return { committedRows: countOf(item?.committedRows), done: item?.done?.BOOL === true };
};

/**
 * One transaction per sub-chunk: the CHUNK item (written once), the CSV cursor moved from the
 * sub-chunk's first row to its end, and the execution's counters. A replay fails the CHUNK condition
 * and is `already-committed`. Totals too large for the CHUNK item are written first, as pages under
 * keys that name their content: readers only read the pages a committed CHUNK item names.
 * Returns the outcome; the caller reads whether the execution is complete.
 */
export const commitChunk = async (
  store: ExportTable,
  ref: ExecutionRef,
  result: ChunkResult,
): Promise<CommitOutcome['outcome']> => {
  const totals = chunkTotalsLayout(result.totals);
  if ('pages' in totals) {
    const chunkSk = chunkSortKey(ref.executionId, result.chunkId);
    await putItems(
      store,
      pageItems(pkOf(ref), chunkPagesSortKeyPrefix(chunkSk, totals.digest), 'totals', totals.pages),
    );
  }
  const items = chunkTransaction(store.table, ref, result, totals);
  for (let attempt = 0; ; attempt += 1) {
    const written = await transactWrite(
      store.client,
      items,
      `chunk ${result.chunkId} of ${ref.executionId} is invalid`,
    );
    if (written.outcome === 'committed') return 'committed';
    const { codes } = written;
    if (conditionFailedAt(codes, 0)) return 'already-committed';
    if (conditionFailedAt(codes, items.length - 1)) {
      throw new Error(
        `execution ${ref.executionId} of ${pkOf(ref)} has no plan with a task ${result.taskIndex}`,
      );
    }
    if (someConditionFailed(codes)) {
      // A forged or replayed message of a finished task (another kind, another first row) writes nothing.
      if ((await readCursor(store, ref, { index: result.taskIndex })).done) {
        return 'already-committed';
      }
      // The CHUNK item is not there but the cursor has moved: another worker read the file with
      // other sub-chunk bounds. Nothing was written; the redelivered task resumes at the cursor.
      throw new Error(
        `the cursor of task ${result.taskIndex} of ${ref.executionId} is not at row ${result.fromRow}`,
      );
    }
    if (!onlyContention(codes) || attempt + 1 >= CONTENDED_ATTEMPTS) throw written.error;
    await store.backoff(attempt);
  }
};

const chunkTransaction = (
  table: string,
  ref: ExecutionRef,
  result: ChunkResult,
  totals: ChunkTotalsLayout,
): TransactWriteItem[] => {
  const pk = pkOf(ref);
  const chunkSk = chunkSortKey(ref.executionId, result.chunkId);
  const items: TransactWriteItem[] = [
    {
      Put: {
        TableName: table,
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
        TableName: table,
        Key: ledgerKey(pk, cursorSortKey(ref.executionId, result.taskIndex)),
        UpdateExpression: `SET committedRows = :to${result.last ? ', done = :true' : ''}`,
        ConditionExpression:
          result.fromRow === 0
            ? 'attribute_not_exists(committedRows) AND attribute_not_exists(done)'
            : 'committedRows = :from AND attribute_not_exists(done)',
        ExpressionAttributeValues: {
          ':to': N(result.toRow),
          ...(result.fromRow === 0 ? {} : { ':from': N(result.fromRow) }),
          ...(result.last ? { ':true': BOOL(true) } : {}),
        },
      },
    });
  } else if (result.last) {
    // The task's done marker (a CSV task's is its cursor): tasksDone counts each task once.
    items.push({
      Update: {
        TableName: table,
        Key: ledgerKey(pk, cursorSortKey(ref.executionId, result.taskIndex)),
        UpdateExpression: 'SET done = :true',
        ConditionExpression: 'attribute_not_exists(done)',
        ExpressionAttributeValues: { ':true': BOOL(true) },
      },
    });
  }
  items.push({
    Update: {
      TableName: table,
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
};

/** A committed chunk's totals JSON: inline, from the pages it names, or from parts of earlier versions. */
const chunkTotalsText = (item: Item, pages: ReadonlyMap<string, string>): string => {
  const { sk } = ledgerKeyOf(item);
  const parts = countOf(item.parts);
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

/**
 * The exact sum of an execution's committed chunk totals, folded one chunk at a time as the Query
 * returns them: a chunk's pages sort right after its CHUNK item, and pages no committed CHUNK item
 * names (a delivery that lost the commit) are skipped.
 */
export const readSnapshotTotals = async (
  store: ExportTable,
  ref: ExecutionRef,
): Promise<ChargeTotals> => {
  const sum = emptyTotals();
  let chunk: { item: Item; pages: Map<string, string> } | undefined;
  const fold = () => {
    if (chunk) addTotals(sum, JSON.parse(chunkTotalsText(chunk.item, chunk.pages)) as ChargeTotals);
    chunk = undefined;
  };
  const query = sortKeyPrefixQuery(
    store.table,
    pkOf(ref),
    chunkSortKeyPrefix(ref.executionId),
    `${LEDGER_SK}, totals, parts, partsKey`,
  );
  for await (const items of queryPages(store.client, query)) {
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
};

/** Rejected rows of an execution, per reason, with the first samples (file and row). */
export const readRejections = async (
  store: ExportTable,
  ref: ExecutionRef,
): Promise<ExecutionRejections> => {
  const chunks = await queryAll(
    store,
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
};
