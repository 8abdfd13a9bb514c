/**
 * What the late-correction pass reads and records in the ledger table: the pins of closed periods
 * (PERIOD items), the pass's record on the execution (refused corrections past a budget in pages) and
 * the pointer's corrected sequence.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { ClosedPins } from '../core/exports/late-correction-pass';
import type { LateCorrectionRecord, RejectedCorrection } from '../core/exports/late-corrections';
import type { ExecutionRef } from '../core/exports/run-task';
import { N, S, countOf, type Item } from './dynamo-kit/attributes';
import { BATCH_GET_LIMIT, batchGetKeys } from './dynamo-kit/batch';
import { rethrowMapped, writeIfCondition } from './dynamo-kit/errors';
import {
  INLINE_REJECTED_BYTES,
  PAGE_BYTES,
  pageItems,
  pkOf,
  type ExecutionRecord,
} from './export-items';
import { putItems, readPagedText, type ExportTable } from './export-table';
import {
  CURRENT_SK,
  PERIOD_SK,
  executionSortKey,
  latePagesSortKeyPrefix,
  ledgerKey,
  ledgerPartitionKeyOf,
} from './table-layout';
import { pagesDigest, textPages } from './text-pages';

/** BatchGetItem requests of `readPins` in flight at once. */
const PIN_READS_IN_FLIGHT = 4;

/** An execution record with the refused corrections its record keeps in pages read back. */
export const withRejectedPages = async (
  store: ExportTable,
  execution: ExecutionRecord,
  item: Item,
): Promise<ExecutionRecord> => {
  const record = item.lateCorrections?.M;
  const pages = countOf(record?.rejectedPages);
  if (!execution.lateCorrections || !record || pages === 0) return execution;
  const text = await readPagedText(
    store,
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
};

const pinsOf = (item: Item): ClosedPins => ({
  pinned: Object.fromEntries(
    Object.entries(item.pinned?.M ?? {}).map(([source, id]) => [source, id.S ?? '']),
  ),
  ...(item.authoritative?.S ? { authoritative: item.authoritative.S } : {}),
});

/**
 * What each account's period pinned when it was closed: source → execution, no entry for a source it
 * had no snapshot of, and the pinned source that close found authoritative (accounts whose period was
 * never closed are left out). One BatchGetItem of PERIOD items per 100 accounts.
 */
export const readPins = async (
  store: ExportTable,
  tenant: string,
  period: string,
  accounts: readonly string[],
): Promise<Map<string, ClosedPins>> => {
  const pins = new Map<string, ClosedPins>();
  const readBatch = (first: number) =>
    batchGetKeys(
      store.client,
      store.table,
      accounts
        .slice(first, first + BATCH_GET_LIMIT)
        .map((accountId) => ledgerKey(ledgerPartitionKeyOf(tenant, accountId, period), PERIOD_SK)),
      'accountId, pinned, closeCount, authoritative',
      (items) => {
        for (const item of items) {
          const accountId = item.accountId?.S;
          if (accountId && countOf(item.closeCount) > 0) pins.set(accountId, pinsOf(item));
        }
      },
      store.backoff,
    );
  let next = 0;
  const reader = async () => {
    for (let first = next; first < accounts.length; first = next) {
      next += BATCH_GET_LIMIT;
      await readBatch(first);
    }
  };
  await Promise.all(Array.from({ length: PIN_READS_IN_FLIGHT }, reader));
  return pins;
};

/**
 * Records what the correction pass of switch `sequence` did on the execution (when it had anything
 * to correct), then marks the pointer corrected up to that switch — unless another switch came
 * first: its own pass follows.
 */
export const recordLateCorrections = async (
  store: ExportTable,
  ref: ExecutionRef,
  record: LateCorrectionRecord | undefined,
  sequence: number,
): Promise<void> => {
  if (record) {
    const rejected = JSON.stringify(record.rejected);
    const inline = Buffer.byteLength(rejected) <= INLINE_REJECTED_BYTES;
    const pages = inline ? [] : [...textPages([rejected], PAGE_BYTES)];
    const digest = pagesDigest(pages);
    if (!inline) {
      await putItems(
        store,
        pageItems(pkOf(ref), latePagesSortKeyPrefix(ref.executionId, digest), 'rejected', pages),
      );
    }
    await store.client
      .send(
        new UpdateItemCommand({
          TableName: store.table,
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
      )
      .catch((error: unknown) =>
        rethrowMapped(error, `the ledger refused the correction record of ${ref.executionId}`),
      );
  }
  await writeIfCondition(
    () =>
      store.client.send(
        new UpdateItemCommand({
          TableName: store.table,
          Key: ledgerKey(pkOf(ref), CURRENT_SK),
          UpdateExpression: 'SET correctedSeq = :sequence',
          ConditionExpression: 'switchSeq = :sequence',
          ExpressionAttributeValues: { ':sequence': N(sequence) },
        }),
      ),
    `the ledger refused the corrected sequence of ${ref.executionId}`,
  );
};
