/**
 * The DIFF of a switch: a fixed-size header item (written by the switch transaction) that names the
 * pages of the diff's accounts (written before it), and the diff read back from them.
 */
import type { AccountDelta, SnapshotDiff } from '../core/exports/snapshot';
import { N, S, countOf, type Item } from './dynamo-kit/attributes';
import { PAGE_BYTES, pageItems, type StoredDiff } from './export-items';
import { putItems, readPagedText, type ExportTable } from './export-table';
import { diffPagesSortKeyPrefix, diffSortKey, ledgerKey, ledgerKeyOf } from './table-layout';
import { jsonArrayPieces, pagesDigest, textPages } from './text-pages';

/** Names the pages of a diff: the diff of an execution against the one it replaced. */
const replacedDigest = (diff: SnapshotDiff): string =>
  pagesDigest([diff.executionId, diff.previousExecutionId ?? '']);

/** The DIFF item the switch transaction writes: it names the diff's pages and counts them. */
export const diffHeader = (pk: string, diff: SnapshotDiff, switchedAt: string, pages: number) => ({
  ...ledgerKey(pk, diffSortKey(switchedAt, diff.executionId)),
  executionId: S(diff.executionId),
  ...(diff.previousExecutionId ? { previousExecutionId: S(diff.previousExecutionId) } : {}),
  switchedAt: S(switchedAt),
  accountCurrencies: N(diff.accounts.length),
  pages: N(pages),
  pagesKey: S(replacedDigest(diff)),
});

/** Writes the pages of a diff (before the switch transaction names them); returns their number. */
export const putDiffPages = async (
  store: ExportTable,
  pk: string,
  diff: SnapshotDiff,
): Promise<number> => {
  let pages = 0;
  await putItems(
    store,
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
};

/** A DIFF item's diff: its pages read back (a DIFF of earlier versions holds it inline). */
export const diffOf = async (store: ExportTable, item: Item): Promise<StoredDiff> => {
  const executionId = item.executionId?.S ?? '';
  const accounts =
    item.accounts?.S ??
    (await readPagedText(
      store,
      ledgerKeyOf(item).pk,
      diffPagesSortKeyPrefix(executionId, item.pagesKey?.S ?? ''),
      'accounts',
      countOf(item.pages),
    ));
  return {
    executionId,
    ...(item.previousExecutionId?.S ? { previousExecutionId: item.previousExecutionId.S } : {}),
    switchedAt: item.switchedAt?.S ?? '',
    accounts: (accounts === '' ? [] : JSON.parse(accounts)) as AccountDelta[],
  };
};
