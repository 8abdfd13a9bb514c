/**
 * The columnar booking of a Parquet task: slices of decoded columns (`readParquetSlices`) → a chunk's
 * summary, equal to what the row path (`normalizeExportRow` + `ChunkAggregator`) makes of the same
 * rows — the same totals, rejection counts and samples (test/unit/exports/columnar.test.ts).
 *
 * Per slice, each column's decoded page is its distinct values and one code per row; each distinct
 * value is checked once (`column-checks.ts`) and its outcome kept beside the values (a dictionary is
 * shared by the column chunk's pages, so its values are checked once per row group). A row whose
 * outcomes the format's `decide` accepts adds its exact amount to the group of its dimension codes
 * (`GroupTotals`); any other row — a value the mapping refuses, a row of another period, … — is
 * handed to the row mapping itself, in row order, which books it or rejects it with its own reason.
 */
import { fail } from '../../errors';
import { resolveTenant } from '../../formats/scope';
import { ChunkAggregator, type ChunkSummary } from '../aggregate';
import type { ParquetFile, ParquetRowSource, ParquetSlice, SliceColumn } from '../readers/parquet';
import { NULL_CODE } from '../readers/parquet-pages';
import { normalizeExportRow, type RowContext } from '../rows';
import type { Booking, ColumnarMapping } from './column-checks';
import { curColumnar } from './cur-columns';
import { exactAmountOf } from './exact-sum';
import { focusColumnar } from './focus-columns';
import { GroupTotals } from './group-totals';

/** An outcome not computed yet. */
const UNSET: unique symbol = Symbol('unset');

/** The outcomes of one column's distinct values, by the values array they belong to. */
class ColumnOutcomes {
  private readonly byValues = new WeakMap<readonly unknown[], unknown[]>();
  private lastValues: readonly unknown[] | undefined;
  private last: unknown[] = [];

  of(values: readonly unknown[]): unknown[] {
    if (values === this.lastValues) return this.last;
    let outcomes = this.byValues.get(values);
    if (!outcomes) {
      outcomes = new Array<unknown>(values.length).fill(UNSET);
      this.byValues.set(values, outcomes);
    }
    this.lastValues = values;
    this.last = outcomes;
    return outcomes;
  }
}

export interface ColumnarBooked {
  summary: ChunkSummary;
  rows: number;
}

const mappingFor = (
  parquet: ParquetFile,
  totals: GroupTotals,
  context: RowContext,
  attributes: Record<string, string>,
): ColumnarMapping | undefined => {
  switch (parquet.format) {
    case 'cur':
      return curColumnar(totals.dimensions, context);
    case 'focus':
      return focusColumnar(totals.dimensions, context, attributes);
    default:
      return undefined;
  }
};

class ColumnarBooking {
  private readonly aggregator: ChunkAggregator;
  private readonly totals = new GroupTotals();
  private readonly attributes: Record<string, string>;
  private readonly tenant: string | undefined;
  /** Set once the footer names the format; without one every row takes the row path. */
  private mapping: ColumnarMapping | undefined;
  private outcomes: ColumnOutcomes[] = [];
  private blankOutcomes: unknown[] = [];
  private readonly booking: Booking = { codes: [0, 0, 0], amount: 0n };
  rows = 0;

  constructor(
    private readonly context: RowContext,
    maxSamples: number,
  ) {
    this.aggregator = new ChunkAggregator(maxSamples);
    this.attributes = { tenant: context.tenant };
    if (context.source !== undefined) this.attributes.source = context.source;
    try {
      this.tenant = resolveTenant(this.attributes);
    } catch {
      this.tenant = undefined; // every row is refused: the row path says why
    }
  }

  /** The file's mapping, and the columns to decode: the mapping's that the file has. */
  columnsOf(parquet: ParquetFile): readonly string[] | undefined {
    if (this.tenant === undefined) return undefined;
    this.mapping = mappingFor(parquet, this.totals, this.context, this.attributes);
    if (!this.mapping) return undefined;
    this.outcomes = this.mapping.columns.map(() => new ColumnOutcomes());
    this.blankOutcomes = this.mapping.checks.map((check) => check(undefined));
    return this.mapping.columns.filter((name) => parquet.columns.includes(name));
  }

  book(slice: ParquetSlice): void {
    const { mapping } = this;
    this.rows += slice.rowEnd - slice.rowStart;
    if (!mapping) {
      for (let row = slice.rowStart; row < slice.rowEnd; row += 1) this.byRow(slice, row);
      return;
    }
    const byName = new Map(slice.columns.map((column) => [column.name, column]));
    const present: number[] = [];
    const columns: SliceColumn[] = [];
    const rowOutcomes = [...this.blankOutcomes];
    for (const [index, name] of mapping.columns.entries()) {
      const column = byName.get(name);
      if (column) {
        present.push(index);
        columns.push(column);
      }
    }
    const codes: Int32Array[] = [];
    const starts: number[] = [];
    const values: (readonly unknown[])[] = [];
    const known: unknown[][] = [];
    for (let row = slice.rowStart; row < slice.rowEnd;) {
      let end = slice.rowEnd;
      for (let each = 0; each < columns.length; each += 1) {
        const segment = columns[each].segment(row);
        codes[each] = segment.codes;
        starts[each] = segment.rowStart;
        values[each] = segment.values;
        known[each] = this.outcomes[present[each]].of(segment.values);
        if (segment.rowEnd < end) end = segment.rowEnd;
      }
      for (; row < end; row += 1) {
        for (let each = 0; each < columns.length; each += 1) {
          const index = present[each];
          const code = codes[each][row - starts[each]];
          if (code === NULL_CODE) {
            rowOutcomes[index] = this.blankOutcomes[index];
            continue;
          }
          let outcome = known[each][code];
          if (outcome === UNSET) {
            outcome = mapping.checks[index](values[each][code]);
            known[each][code] = outcome;
          }
          rowOutcomes[index] = outcome;
        }
        if (mapping.decide(rowOutcomes, this.booking)) {
          this.totals.add(this.booking.codes, this.booking.amount);
        } else {
          this.byRow(slice, row);
        }
      }
    }
  }

  /** One row through the row mapping, as the row path reads it (its cells from the decoded columns). */
  private byRow(slice: ParquetSlice, row: number): void {
    const cells = Object.fromEntries(slice.columns.map((column) => [column.name, column.at(row)]));
    const result = normalizeExportRow(
      slice.format ? { rowIndex: row, cells, format: slice.format } : { rowIndex: row, cells },
      this.context,
    );
    if (!result.ok) {
      this.aggregator.reject(result.rejection);
      return;
    }
    const { charge } = result;
    if (charge.tenant !== this.tenant || charge.period !== this.context.billingPeriod) {
      fail(
        'invalid-field',
        this.context.objectKey,
        `a row was booked to ${charge.tenant} ${charge.period}, not to the export's ${this.context.tenant} ${this.context.billingPeriod}`,
      );
    }
    const [accounts, currencies, services] = this.totals.dimensions;
    this.totals.add(
      [
        accounts.codeOf(charge.accountId),
        currencies.codeOf(charge.currency),
        services.codeOf(charge.service ?? null),
      ],
      exactAmountOf(charge.amount),
    );
  }

  summary(): ChunkSummary {
    for (const { values, total, rows } of this.totals.totals()) {
      const [accountId, currency, service] = values as [string, string, string | null];
      this.aggregator.addTotal(
        { tenant: this.tenant as string, accountId, period: this.context.billingPeriod, currency },
        service,
        total,
        rows,
      );
    }
    return this.aggregator.summary();
  }
}

/** Books every row of a Parquet task column by column (see the top of this file). */
export const bookColumns = async (
  source: ParquetRowSource,
  context: RowContext,
  maxSamples: number,
): Promise<ColumnarBooked> => {
  const booking = new ColumnarBooking(context, maxSamples);
  for await (const slice of source.slices((parquet) => booking.columnsOf(parquet))) {
    booking.book(slice);
  }
  return { summary: booking.summary(), rows: booking.rows };
};
