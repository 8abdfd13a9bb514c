/**
 * One FOCUS row of an export file → a normalized charge, or a rejection naming the file, the row and
 * the reason. Normalization is the FOCUS format's own (`formats/cost-focus.ts`): FOCUS 1.0–1.3 column
 * sets, `x_*` and unknown columns ignored, `NULL`/`null`/`(null)`/empty cells absent, up to 18 fraction
 * digits kept exactly, `yyyy-mm-dd hh:mm:ss` read as UTC.
 *
 * The tenant is the export source's, injected by the caller. No column can change it: FOCUS has no
 * tenant column, and an `x_*` column that names a tenant is provider metadata like any other `x_*`
 * column — ignored, never a reason to book the row elsewhere or to reject it.
 *
 * A row must belong to the billing period of the export that delivers it (BillingPeriodStart, else
 * ChargePeriodStart): the execution is a snapshot of that one period. Periods are UTC months: a
 * timestamp with an offset is the instant it names (`2026-03-01T00:00:00+02:00` is
 * `2026-02-28T22:00:00Z`, so period 2026-02), as everywhere in the ledger.
 */
import { ValidationError, type RejectionCode } from '../errors';
import type { CostEvent } from '../events';
import { CUR_LEGACY_CSV, CUR_SNAKE_CASE, parseCurRow } from '../formats/cost-cur';
import { focusChargeService, parseFocusRow } from '../formats/cost-focus';
import type { JsonObject } from '../formats/fields';
import { billingPeriodOf } from '../keys';
import type { ExportColumnFormat } from './column-format';

/** A row as a reader yields it: its 0-based position among the file's data rows, and its cells. */
export interface ExportRow {
  rowIndex: number;
  cells: Record<string, unknown>;
  /** Set by a reader when the record itself is broken (wrong number of cells): the row is rejected. */
  problem?: string;
  /** The file's format, recognised by the reader from its columns; FOCUS when absent. */
  format?: ExportColumnFormat;
}

export interface RowContext {
  tenant: string;
  /** Object key of the data file (for rejections an operator can find). */
  objectKey: string;
  /** `YYYY-MM` of the export; a row of another period is rejected. */
  billingPeriod: string;
  /** Source slug for rows without ProviderName/ServiceProviderName. */
  source?: string;
}

export interface ExportCharge {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  amount: string;
  /**
   * The service: CUR's product code; FOCUS's `x_ServiceCode` (AWS's product code), else ServiceName.
   * `event.service` keeps FOCUS's ServiceName. Undefined when the row has none.
   */
  service?: string;
  event: CostEvent;
}

export interface RowRejection {
  code: RejectionCode | 'malformed-row' | 'wrong-period';
  /** The column at fault (`Tags.x` is reported as `Tags`). */
  column: string;
  reason: string;
  objectKey: string;
  rowIndex: number;
  /** 1-based data row number (the header is not counted). */
  rowNumber: number;
}

export type RowResult = { ok: true; charge: ExportCharge } | { ok: false; rejection: RowRejection };

const columnOf = (field: string): string => field.split('.')[0];

type RowParser = (cells: JsonObject, attributes: Record<string, string>) => CostEvent;

const PARSERS: Readonly<Record<ExportColumnFormat, RowParser>> = {
  focus: parseFocusRow,
  cur: (cells, attributes) => parseCurRow(cells, attributes, CUR_SNAKE_CASE),
  'cur-legacy-csv': (cells, attributes) => parseCurRow(cells, attributes, CUR_LEGACY_CSV),
};

/** The column a format's billing period is read from (named in wrong-period rejections). */
const BILLING_PERIOD_COLUMN: Readonly<Record<ExportColumnFormat, string>> = {
  focus: 'BillingPeriodStart',
  cur: CUR_SNAKE_CASE.billingPeriodStart,
  'cur-legacy-csv': CUR_LEGACY_CSV.billingPeriodStart,
};

export const normalizeExportRow = (row: ExportRow, context: RowContext): RowResult => {
  const reject = (code: RowRejection['code'], field: string, reason: string): RowResult => ({
    ok: false,
    rejection: {
      code,
      column: columnOf(field),
      reason,
      objectKey: context.objectKey,
      rowIndex: row.rowIndex,
      rowNumber: row.rowIndex + 1,
    },
  });
  if (row.problem !== undefined) return reject('malformed-row', '$', row.problem);
  const attributes: Record<string, string> = { tenant: context.tenant };
  if (context.source !== undefined) attributes.source = context.source;
  let event: CostEvent;
  let service: string | undefined;
  try {
    event = PARSERS[row.format ?? 'focus'](row.cells, attributes);
    service =
      (row.format ?? 'focus') === 'focus' ? focusChargeService(row.cells, event) : event.service;
  } catch (error) {
    if (error instanceof ValidationError) return reject(error.code, error.field, error.reason);
    throw error;
  }
  const period = billingPeriodOf(event);
  if (period !== context.billingPeriod) {
    const [field, start] =
      event.billingPeriodStart !== undefined
        ? [BILLING_PERIOD_COLUMN[row.format ?? 'focus'], event.billingPeriodStart]
        : ['ChargePeriodStart', event.chargePeriodStart];
    return reject(
      'wrong-period',
      field,
      `the row is in billing period ${period} (its ${field} is ${start} in UTC), the export delivers ${context.billingPeriod}`,
    );
  }
  return {
    ok: true,
    charge: {
      tenant: event.tenant,
      accountId: event.accountId,
      period,
      currency: event.currency,
      amount: event.amount,
      service,
      event,
    },
  };
};
