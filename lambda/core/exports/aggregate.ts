/**
 * In-memory totals of one chunk of export rows, to be committed once: per ledger key (tenant, account,
 * billing period, currency) the exact sum of BilledCost and the row count, broken down by ServiceName.
 * Rejected rows are counted per reason (code and column) and the first `maxSamples` are kept with their
 * file and row so an operator can find them. Memory grows with the number of keys, services and reasons,
 * never with the number of rows.
 */
import { fromScaledInteger, toScaledInteger } from '../decimal';
import {
  normalizeExportRow,
  type ExportCharge,
  type ExportRow,
  type RowContext,
  type RowRejection,
  type RowResult,
} from './rows';

export const DEFAULT_REJECTION_SAMPLES = 20;

export interface LedgerKey {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
}

export interface ServiceTotal {
  /** ServiceName; null for rows without one. */
  service: string | null;
  total: string;
  rows: number;
}

export interface ChunkTotal extends LedgerKey {
  total: string;
  rows: number;
  services: ServiceTotal[];
}

export type RejectionSample = Pick<
  RowRejection,
  'objectKey' | 'rowIndex' | 'rowNumber' | 'code' | 'column' | 'reason'
>;

export interface ChunkSummary {
  rowsAccepted: number;
  rowsRejected: number;
  totals: ChunkTotal[];
  /** `code:column` → rows, e.g. `missing-field:BilledCost`. */
  rejectedByReason: Record<string, number>;
  rejectionSamples: RejectionSample[];
}

/** Sums are integers of 10^-18 (every accepted amount has at most 18 fraction digits): exact and cheap. */
interface Running {
  key: LedgerKey;
  total: bigint;
  rows: number;
  services: Map<string | null, { total: bigint; rows: number }>;
}

export const rejectionReasonKey = (rejection: Pick<RowRejection, 'code' | 'column'>): string =>
  `${rejection.code}:${rejection.column}`;

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const compareKeys = (a: LedgerKey, b: LedgerKey): number =>
  byText(a.tenant, b.tenant) ||
  byText(a.accountId, b.accountId) ||
  byText(a.period, b.period) ||
  byText(a.currency, b.currency);

export class ChunkAggregator {
  private readonly running = new Map<string, Running>();
  private readonly reasons = new Map<string, number>();
  private readonly samples: RejectionSample[] = [];
  private accepted = 0;
  private rejected = 0;

  constructor(private readonly maxSamples = DEFAULT_REJECTION_SAMPLES) {}

  add(charge: ExportCharge): void {
    this.addTotal(charge, charge.service ?? null, toScaledInteger(charge.amount), 1);
  }

  /** `rows` accepted rows of one key and service that come to `total` (10^-18 units) together. */
  addTotal(key: LedgerKey, service: string | null, total: bigint, rows: number): void {
    const id = JSON.stringify([key.tenant, key.accountId, key.period, key.currency]);
    let entry = this.running.get(id);
    if (!entry) {
      const { tenant, accountId, period, currency } = key;
      entry = {
        key: { tenant, accountId, period, currency },
        total: 0n,
        rows: 0,
        services: new Map(),
      };
      this.running.set(id, entry);
    }
    entry.total += total;
    entry.rows += rows;
    let byService = entry.services.get(service);
    if (!byService) {
      byService = { total: 0n, rows: 0 };
      entry.services.set(service, byService);
    }
    byService.total += total;
    byService.rows += rows;
    this.accepted += rows;
  }

  reject(rejection: RowRejection): void {
    const reason = rejectionReasonKey(rejection);
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    if (this.samples.length < this.maxSamples) {
      const { objectKey, rowIndex, rowNumber, code, column } = rejection;
      this.samples.push({ objectKey, rowIndex, rowNumber, code, column, reason: rejection.reason });
    }
    this.rejected += 1;
  }

  addResult(result: RowResult): void {
    if (result.ok) this.add(result.charge);
    else this.reject(result.rejection);
  }

  summary(): ChunkSummary {
    const totals = [...this.running.values()]
      .map((entry): ChunkTotal => ({
        ...entry.key,
        total: fromScaledInteger(entry.total),
        rows: entry.rows,
        services: [...entry.services.entries()]
          .map(([service, value]) => ({
            service,
            total: fromScaledInteger(value.total),
            rows: value.rows,
          }))
          .sort(
            (a, b) => byText(a.service ?? '', b.service ?? '') || (a.service === null ? -1 : 1),
          ),
      }))
      .sort(compareKeys);
    return {
      rowsAccepted: this.accepted,
      rowsRejected: this.rejected,
      totals,
      rejectedByReason: Object.fromEntries(
        [...this.reasons.entries()].sort(([a], [b]) => byText(a, b)),
      ),
      rejectionSamples: [...this.samples],
    };
  }
}

export interface AggregatedRows {
  summary: ChunkSummary;
  /** Rows read (accepted + rejected). */
  rowsRead: number;
  /** rowIndex of the last row read, -1 when none: the cursor to commit with the totals. */
  lastRowIndex: number;
}

/** Normalizes and aggregates every row of `rows` (one chunk). */
export const aggregateRows = async (
  rows: AsyncIterable<ExportRow>,
  context: RowContext,
  maxSamples = DEFAULT_REJECTION_SAMPLES,
): Promise<AggregatedRows> => {
  const aggregator = new ChunkAggregator(maxSamples);
  let rowsRead = 0;
  let lastRowIndex = -1;
  for await (const row of rows) {
    aggregator.addResult(normalizeExportRow(row, context));
    rowsRead += 1;
    lastRowIndex = row.rowIndex;
  }
  return { summary: aggregator.summary(), rowsRead, lastRowIndex };
};
