/**
 * The export rows behind one account's snapshot: every task of the execution read again from the file
 * version its plan pinned, each row normalized by the chunk worker's own `normalizeExportRow` and summed
 * by its own `ChunkAggregator`, so the evidence is what was booked, row by row. Pure: the caller opens
 * the rows (adapters/export-objects.ts `rowsOf`, which reads the pinned version).
 */
import Big from 'big.js';
import { ChunkAggregator } from './aggregate';
import type { ExportTask } from './plan';
import { normalizeExportRow, type ExportRow, type RowContext } from './rows';

/** One booked row of the account: where it is (file, pinned version, row) and what it booked. */
export interface RowEvidence {
  objectKey: string;
  /** The S3 version the plan pinned (absent in a bucket without versions). */
  versionId?: string;
  /** The pinned ETag (with its quotes); absent for a task planned without a pin. */
  eTag?: string;
  /** 1-based data row number in the file (the header is not counted). */
  row: number;
  amount: string;
  currency: string;
}

export interface CurrencyRows {
  currency: string;
  /** Exact sum of every booked row of the account in this currency. */
  total: string;
  rows: number;
}

export interface AccountRowEvidence {
  /** The first `keep` booked rows of the account, in task and row order. */
  rows: RowEvidence[];
  /** Booked rows of the account, kept or not. */
  booked: number;
  /** Per currency, over every booked row of the account (not only the kept ones). */
  totals: CurrencyRows[];
  /** Rows read from the files, every account's and the rejected ones. */
  read: number;
}

export interface RowEvidenceInput {
  /** The execution's tasks as planned (each with its file's pin). */
  tasks: readonly ExportTask[];
  accountId: string;
  /** What the chunk worker gives the normalizer: the binding's tenant, the export's period, the provider. */
  context: Omit<RowContext, 'objectKey'>;
  /** A task's rows from its first row, read from the pinned version. */
  openRows: (task: ExportTask) => AsyncIterable<ExportRow>;
  /** Rows kept for display (default: all); the totals are always over all of them. */
  keep?: number;
}

export const collectRowEvidence = async (input: RowEvidenceInput): Promise<AccountRowEvidence> => {
  const aggregator = new ChunkAggregator(0);
  const keep = input.keep ?? Number.POSITIVE_INFINITY;
  const rows: RowEvidence[] = [];
  let booked = 0;
  let read = 0;
  for (const task of [...input.tasks].sort((a, b) => a.index - b.index)) {
    const context = { ...input.context, objectKey: task.objectKey };
    for await (const row of input.openRows(task)) {
      read += 1;
      const result = normalizeExportRow(row, context);
      if (!result.ok || result.charge.accountId !== input.accountId) continue;
      aggregator.add(result.charge);
      booked += 1;
      if (rows.length < keep)
        rows.push({
          objectKey: task.objectKey,
          ...(task.pin?.versionId ? { versionId: task.pin.versionId } : {}),
          ...(task.pin ? { eTag: task.pin.eTag } : {}),
          row: row.rowIndex + 1,
          amount: result.charge.amount,
          currency: result.charge.currency,
        });
    }
  }
  const totals = aggregator
    .summary()
    .totals.map(({ currency, total, rows: count }) => ({ currency, total, rows: count }));
  return { rows, booked, totals, read };
};

/** One currency of the rows against the snapshot item the execution switched in. */
export interface RowCheck {
  currency: string;
  rowsTotal: string;
  rows: number;
  snapshotTotal: string;
  snapshotCharges: number;
  equal: boolean;
}

/**
 * Per currency of either side, whether the rows sum exactly to the SNAPSHOT item's total with as many
 * rows as it has charges (a currency only one side has counts 0 on the other).
 */
export const checkRowEvidence = (
  totals: readonly CurrencyRows[],
  snapshot: Readonly<Record<string, { total: string; charges: number }>>,
): RowCheck[] =>
  [...new Set([...totals.map((t) => t.currency), ...Object.keys(snapshot)])]
    .sort()
    .map((currency) => {
      const rows = totals.find((t) => t.currency === currency) ?? { total: '0', rows: 0 };
      const item = snapshot[currency] ?? { total: '0', charges: 0 };
      return {
        currency,
        rowsTotal: rows.total,
        rows: rows.rows,
        snapshotTotal: item.total,
        snapshotCharges: item.charges,
        equal: new Big(rows.total).eq(item.total) && rows.rows === item.charges,
      };
    });
