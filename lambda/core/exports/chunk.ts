/**
 * One task's rows → the results it commits: every `subChunkRows` rows for a CSV file (each result
 * moves the file's durable cursor), one result for a Parquet row-group range — booked column by
 * column (`columnar/`) when the rows are a `ParquetRowSource`, with the row path's result. A result holds the
 * chunk's exact totals, its rejected rows counted per reason and the first few of them as samples.
 *
 * The tenant is the binding's: the normalizer books every row to it, and totals are kept per account
 * of that tenant only — nothing in a row can move money to another tenant.
 */
import { fail } from '../errors';
import { ChunkAggregator, rejectionReasonKey, type ChunkSummary } from './aggregate';
import { bookColumns } from './columnar/book-columns';
import { isParquetRowSource } from './readers/parquet';
import { addCharge, emptyTotals, type ChargeTotals } from './charge-totals';
import type { ExportTask } from './plan';
import { normalizeExportRow, type ExportRow, type RowContext, type RowResult } from './rows';

/** Rejected rows kept as examples per chunk (and per execution). */
export const MAX_REJECTION_SAMPLES = 20;

export interface RejectionSample {
  objectKey: string;
  /** 1-based data row number (the header is not counted). */
  row: number;
  reason: string;
}

export interface ChunkResult {
  taskIndex: number;
  /** Unique within the execution: the task, and for CSV the first row (`00003.000000050000`). */
  chunkId: string;
  /** Data rows [fromRow, toRow) of the file. */
  fromRow: number;
  toRow: number;
  /** The task's last result: committing it completes the task. */
  last: boolean;
  rows: number;
  rejectedRows: number;
  /** `<code>:<column>` → rows. */
  rejectedByReason: Record<string, number>;
  samples: RejectionSample[];
  totals: ChargeTotals;
}

export interface ChunkInput {
  task: ExportTask;
  /** The task's rows from `fromRow` on (a CSV reader resumed at the cursor; a Parquet range). */
  rows: AsyncIterable<ExportRow>;
  /** CSV: the cursor's committed rows; Parquet: ignored (the range's first row). */
  fromRow: number;
  context: RowContext;
  subChunkRows: number;
  normalize?: (row: ExportRow, context: RowContext) => RowResult;
}

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

export const chunkIdOf = (task: ExportTask, fromRow: number): string =>
  task.kind === 'csv-file' ? `${pad(task.index, 5)}.${pad(fromRow, 12)}` : pad(task.index, 5);

/** The aggregator's chunk summary in the shape a chunk commits: totals per account × currency × service. */
const totalsOf = (summary: ChunkSummary, context: RowContext): ChargeTotals => {
  const totals = emptyTotals();
  for (const total of summary.totals) {
    if (total.tenant !== context.tenant || total.period !== context.billingPeriod) {
      throw new Error(
        `a row of ${context.objectKey} was booked to ${total.tenant} ${total.period}, not to the export's ${context.tenant} ${context.billingPeriod}`,
      );
    }
    for (const service of total.services) {
      addCharge(totals, {
        accountId: total.accountId,
        currency: total.currency,
        amount: service.total,
        service: service.service ?? undefined,
        charges: service.rows,
      });
    }
  }
  return totals;
};

class ChunkBuilder {
  private readonly aggregator = new ChunkAggregator(MAX_REJECTION_SAMPLES);
  private rows = 0;

  constructor(
    private readonly task: ExportTask,
    private readonly fromRow: number,
    private readonly context: RowContext,
  ) {}

  get size(): number {
    return this.rows;
  }

  add(result: RowResult): void {
    this.rows += 1;
    this.aggregator.addResult(result);
  }

  build(last: boolean): ChunkResult {
    return resultOf(
      { task: this.task, fromRow: this.fromRow, rows: this.rows, context: this.context, last },
      this.aggregator.summary(),
    );
  }
}

interface ResultFacts {
  task: ExportTask;
  fromRow: number;
  rows: number;
  context: RowContext;
  last: boolean;
}

const resultOf = (facts: ResultFacts, summary: ChunkSummary): ChunkResult => ({
  taskIndex: facts.task.index,
  chunkId: chunkIdOf(facts.task, facts.fromRow),
  fromRow: facts.fromRow,
  toRow: facts.fromRow + facts.rows,
  last: facts.last,
  rows: facts.rows,
  rejectedRows: summary.rowsRejected,
  rejectedByReason: summary.rejectedByReason,
  samples: summary.rejectionSamples.map((sample) => ({
    objectKey: sample.objectKey,
    row: sample.rowNumber,
    reason: `${rejectionReasonKey(sample)}: ${sample.reason}`,
  })),
  totals: totalsOf(summary, facts.context),
});

const checkRowCount = (task: ExportTask & { kind: 'parquet-range' }, rows: number): void => {
  if (rows !== task.rows) {
    fail(
      'invalid-field',
      task.objectKey,
      `row groups ${task.firstRowGroup}-${task.endRowGroup - 1} gave ${rows} rows, the footer says ${task.rows}`,
    );
  }
};

/** A CSV file's sub-chunks, the last one flagged (an empty rest still yields one, to finish the task). */
async function* csvResults(input: ChunkInput): AsyncGenerator<ChunkResult> {
  const normalize = input.normalize ?? normalizeExportRow;
  const iterator = input.rows[Symbol.asyncIterator]();
  let builder = new ChunkBuilder(input.task, input.fromRow, input.context);
  let next = await iterator.next();
  while (!next.done) {
    builder.add(normalize(next.value, input.context));
    next = await iterator.next();
    if (builder.size === input.subChunkRows && !next.done) {
      const result = builder.build(false);
      yield result;
      builder = new ChunkBuilder(input.task, result.toRow, input.context);
    }
  }
  yield builder.build(true);
}

async function* parquetResult(input: ChunkInput): AsyncGenerator<ChunkResult> {
  const { task } = input;
  if (task.kind !== 'parquet-range') return;
  if (input.normalize === undefined && isParquetRowSource(input.rows)) {
    const booked = await bookColumns(input.rows, input.context, MAX_REJECTION_SAMPLES);
    checkRowCount(task, booked.rows);
    const facts = { task, fromRow: task.firstRow, rows: booked.rows, context: input.context };
    yield resultOf({ ...facts, last: true }, booked.summary);
    return;
  }
  const normalize = input.normalize ?? normalizeExportRow;
  const builder = new ChunkBuilder(task, task.firstRow, input.context);
  for await (const row of input.rows) builder.add(normalize(row, input.context));
  checkRowCount(task, builder.size);
  yield builder.build(true);
}

export const chunkResults = (input: ChunkInput): AsyncGenerator<ChunkResult> => {
  if (!Number.isSafeInteger(input.subChunkRows) || input.subChunkRows < 1) {
    return fail('invalid-field', 'subChunkRows', 'expected a positive whole number of rows');
  }
  return input.task.kind === 'csv-file' ? csvResults(input) : parquetResult(input);
};
