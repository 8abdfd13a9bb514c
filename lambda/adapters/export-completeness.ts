/**
 * Export completeness in the ledger (core/reconciliation/completeness.ts decides it): the committed
 * chunks' row facts read back at the switch, and the `completeness` attribute each SNAPSHOT item of the
 * execution carries, written there and read back by the nightly reconciliation.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChunkRows, Completeness, FileRows } from '../core/reconciliation/completeness';
import type { ExecutionRef } from '../core/exports/run-task';
import { BOOL, N, S, countOf } from './dynamo-kit/attributes';
import { pkOf } from './export-items';
import type { ExportTable } from './export-table';
import { queryAll, sortKeyPrefixQuery } from './paged-query';
import { CHUNK_PART_MARKER, LEDGER_SK, chunkSortKeyPrefix, ledgerKeyOf } from './table-layout';

/** The SNAPSHOT item attribute. */
export const COMPLETENESS_ATTRIBUTE = 'completeness';

/** Row facts of every committed chunk of the execution (one Query of its CHUNK items, pages skipped). */
export const readChunkRows = async (store: ExportTable, ref: ExecutionRef): Promise<ChunkRows[]> =>
  (
    await queryAll(store.client, {
      ...sortKeyPrefixQuery(
        store.table,
        pkOf(ref),
        chunkSortKeyPrefix(ref.executionId),
        `${LEDGER_SK}, taskIndex, fromRow, toRow, #rows`,
      ),
      ExpressionAttributeNames: { '#rows': 'rows' },
    })
  )
    .filter((item) => !ledgerKeyOf(item).sk.includes(CHUNK_PART_MARKER))
    .map((item) => ({
      taskIndex: countOf(item.taskIndex),
      fromRow: countOf(item.fromRow),
      toRow: countOf(item.toRow),
      rows: countOf(item.rows),
    }));

const fileValue = (file: FileRows): AttributeValue => ({
  M: {
    key: S(file.key),
    expected: N(file.expected),
    read: N(file.read),
    complete: BOOL(file.complete),
    ...(file.problem ? { problem: S(file.problem) } : {}),
  },
});

export const completenessValue = (completeness: Completeness): AttributeValue => ({
  M: {
    status: S(completeness.status),
    filesPlanned: N(completeness.filesPlanned),
    filesRead: N(completeness.filesRead),
    rowsExpected: N(completeness.rowsExpected),
    rowsRead: N(completeness.rowsRead),
    filesWrong: N(completeness.filesWrong),
    files: { L: completeness.files.map(fileValue) },
  },
});

export const completenessOf = (value: AttributeValue | undefined): Completeness | undefined => {
  const m = value?.M;
  if (!m) return undefined;
  return {
    status: m.status?.S === 'complete' ? 'complete' : 'incomplete',
    filesPlanned: countOf(m.filesPlanned),
    filesRead: countOf(m.filesRead),
    rowsExpected: countOf(m.rowsExpected),
    rowsRead: countOf(m.rowsRead),
    filesWrong: countOf(m.filesWrong),
    files: (m.files?.L ?? []).map((file) => ({
      key: file.M?.key?.S ?? '',
      expected: countOf(file.M?.expected),
      read: countOf(file.M?.read),
      complete: file.M?.complete?.BOOL === true,
      ...(file.M?.problem?.S ? { problem: file.M.problem.S } : {}),
    })),
  };
};
