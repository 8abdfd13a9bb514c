/**
 * Deterministic FOCUS 1.2 cost-and-usage export files of any size (CSV, CSV.gz, Parquet) and their
 * ground truth, computed while generating: per ledger key the exact total (integer arithmetic on
 * 15-fraction-digit amounts, independent of big.js) and row count with the per-service breakdown
 * (services named by `x_ServiceCode`, else `ServiceName`, as the ledger names them), and
 * the rejected rows per reason. The same spec always gives the same rows, in every format. Memory stays
 * bounded: rows are generated one at a time and written as a stream (Parquet: one row group at a time).
 *
 * Used by the export unit tests and by the 1,000,000-row benchmark.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parquetWriteRows, type ColumnSource, type Writer } from 'hyparquet-writer';
import { focusParquetSchema } from '../../local/exports/parquet-schema';
import { mulberry32 } from '../../local/scenarios/random';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Node entry's fileWriter is not in the types this project's module resolution sees
const { fileWriter } = require('hyparquet-writer') as { fileWriter: (path: string) => Writer };

export const AMOUNT_SCALE = 15;

export const FOCUS_EXPORT_COLUMNS = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodStart',
  'BillingPeriodEnd',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ConsumedQuantity',
  'ConsumedUnit',
  'EffectiveCost',
  'ListCost',
  'ProviderName',
  'RegionId',
  'ResourceId',
  'ServiceName',
  'SkuId',
  'SubAccountId',
  'Tags',
  'x_ServiceCode',
] as const;

export type FocusColumn = (typeof FOCUS_EXPORT_COLUMNS)[number];
/** One generated row: cell text, or null for an absent value (`NULL` in CSV, null in Parquet). */
export type FocusRow = Record<FocusColumn, string | null> & { unscaledCost: bigint | null };

export interface FocusExportSpec {
  rows: number;
  seed?: number;
  /** `YYYY-MM`; default 2026-11. */
  billingPeriod?: string;
  /** Tenant the ground truth is booked to (rows never name one). Default `acme`. */
  tenant?: string;
  accounts?: number;
  /** Every n-th row (1-based) is a bad row; 0 = none. Default 0. */
  badRowEvery?: number;
}

export interface ExpectedServiceTotal {
  service: string | null;
  total: string;
  rows: number;
}

export interface ExpectedTotal {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  total: string;
  rows: number;
  services: ExpectedServiceTotal[];
}

export interface ExpectedExport {
  rows: number;
  rowsAccepted: number;
  rowsRejected: number;
  totals: ExpectedTotal[];
  rejectedByReason: Record<string, number>;
}

const SERVICES = [
  ['Amazon Elastic Compute Cloud', 'AmazonEC2', 'Hours'],
  ['Amazon Simple Storage Service', 'AmazonS3', 'GB-Mo'],
  ['Amazon Relational Database Service', 'AmazonRDS', 'Hours'],
  ['AWS Lambda', 'AWSLambda', 'Requests'],
  ['Amazon CloudFront', 'AmazonCloudFront', 'GB'],
] as const;
const CURRENCIES = ['USD', 'USD', 'USD', 'EUR'] as const;
const CATEGORIES = ['Usage', 'Usage', 'Usage', 'Usage', 'Tax', 'Credit', 'Purchase'] as const;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
/** Bad rows, in turn, and the reason each must be rejected with. */
const BAD_ROWS: readonly { reason: string; spoil: (row: FocusRow) => void }[] = [
  {
    reason: 'missing-field:BilledCost',
    spoil: (row) => {
      row.BilledCost = null;
      row.unscaledCost = null;
    },
  },
  { reason: 'invalid-field:BillingCurrency', spoil: (row) => void (row.BillingCurrency = 'US$') },
  {
    reason: 'invalid-field:ChargePeriodStart',
    spoil: (row) => void (row.ChargePeriodStart = 'yesterday'),
  },
];

/** Exact text of unscaled × 10^-scale, without trailing fraction zeros. */
export const scaledText = (unscaled: bigint, scale: number): string => {
  const sign = unscaled < 0n ? '-' : '';
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  const whole = digits.slice(0, -scale);
  return unscaled === 0n ? '0' : `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
};

const pad = (value: number): string => String(value).padStart(2, '0');

const nextPeriod = (period: string): string => {
  const [year, month] = period.split('-').map(Number);
  return month === 12 ? `${year + 1}-01` : `${year}-${pad(month + 1)}`;
};

/** The rows of the export, one at a time. */
export function* focusRows(spec: FocusExportSpec): Generator<FocusRow> {
  const next = mulberry32(spec.seed ?? 42);
  const period = spec.billingPeriod ?? '2026-11';
  const accounts = spec.accounts ?? 8;
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  for (let index = 0; index < spec.rows; index += 1) {
    const [service, serviceCode, unit] = pick(SERVICES);
    const category = pick(CATEGORIES);
    const account = Math.floor(next() * accounts);
    const day = 1 + Math.floor(next() * 28);
    const hour = Math.floor(next() * 24);
    const sqlTimestamps = next() < 0.3;
    const at = (h: number) =>
      sqlTimestamps
        ? `${period}-${pad(day)} ${pad(h)}:00:00`
        : `${period}-${pad(day)}T${pad(h)}:00:00Z`;
    // |amount| < 10,000 with 15 fraction digits; credits are negative.
    const magnitude =
      BigInt(Math.floor(next() * 10_000)) * 10n ** 11n +
      BigInt(Math.floor(next() * 100_000_000_000));
    const unscaled = category === 'Credit' ? -magnitude : magnitude;
    const row: FocusRow = {
      BilledCost: scaledText(unscaled, AMOUNT_SCALE),
      BillingAccountId: '100000000001',
      BillingCurrency: pick(CURRENCIES),
      BillingPeriodStart: `${period}-01T00:00:00Z`,
      BillingPeriodEnd: `${nextPeriod(period)}-01T00:00:00Z`,
      ChargeCategory: category,
      ChargeClass: next() < 0.05 ? 'Correction' : null,
      ChargeDescription: `${service} ${unit}`,
      ChargePeriodStart: at(hour),
      ChargePeriodEnd: hour === 23 ? at(hour) : at(hour + 1),
      ConsumedQuantity: category === 'Usage' ? String(Math.floor(next() * 1000) / 10) : null,
      ConsumedUnit: category === 'Usage' ? unit : null,
      EffectiveCost: scaledText(unscaled, AMOUNT_SCALE),
      ListCost: null,
      ProviderName: 'AWS',
      RegionId: pick(REGIONS),
      ResourceId: `arn:aws:ec2:us-east-1:2000000000${pad(account)}:instance/i-${index.toString(16)}`,
      ServiceName: next() < 0.02 ? null : service,
      SkuId: `SKU-${serviceCode}-${Math.floor(next() * 10)}`,
      SubAccountId: `2000000000${pad(account)}`,
      Tags: next() < 0.5 ? JSON.stringify({ team: pick(['core', 'data', 'web']) }) : null,
      // Every 7th row without AWS's product code: named by ServiceName, as Azure, GCP and OCI rows are.
      x_ServiceCode: index % 7 === 6 ? null : serviceCode,
      unscaledCost: unscaled,
    };
    const badEvery = spec.badRowEvery ?? 0;
    if (badEvery > 0 && (index + 1) % badEvery === 0) {
      BAD_ROWS[Math.floor(index / badEvery) % BAD_ROWS.length].spoil(row);
    }
    yield row;
  }
}

const badReasonOf = (row: FocusRow): string | undefined => {
  if (row.BilledCost === null) return BAD_ROWS[0].reason;
  if (row.BillingCurrency === 'US$') return BAD_ROWS[1].reason;
  if (row.ChargePeriodStart === 'yesterday') return BAD_ROWS[2].reason;
  return undefined;
};

/** Ground truth, accumulated row by row with integer arithmetic. */
export class FocusGroundTruth {
  private readonly keys = new Map<
    string,
    {
      accountId: string;
      currency: string;
      total: bigint;
      rows: number;
      services: Map<string | null, { total: bigint; rows: number }>;
    }
  >();
  private readonly reasons = new Map<string, number>();
  private rows = 0;

  constructor(
    private readonly tenant: string,
    private readonly period: string,
  ) {}

  add(row: FocusRow): void {
    this.rows += 1;
    const reason = badReasonOf(row);
    if (reason !== undefined) {
      this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
      return;
    }
    const accountId = row.SubAccountId ?? String(row.BillingAccountId);
    const currency = String(row.BillingCurrency);
    const id = `${accountId} ${currency}`;
    const entry = this.keys.get(id) ?? {
      accountId,
      currency,
      total: 0n,
      rows: 0,
      services: new Map(),
    };
    const amount = row.unscaledCost ?? 0n;
    entry.total += amount;
    entry.rows += 1;
    const name = row.x_ServiceCode ?? row.ServiceName;
    const service = entry.services.get(name) ?? { total: 0n, rows: 0 };
    service.total += amount;
    service.rows += 1;
    entry.services.set(name, service);
    this.keys.set(id, entry);
  }

  expected(): ExpectedExport {
    const totals = [...this.keys.values()]
      .map((entry): ExpectedTotal => ({
        tenant: this.tenant,
        accountId: entry.accountId,
        period: this.period,
        currency: entry.currency,
        total: scaledText(entry.total, AMOUNT_SCALE),
        rows: entry.rows,
        services: [...entry.services.entries()]
          .map(([service, value]) => ({
            service,
            total: scaledText(value.total, AMOUNT_SCALE),
            rows: value.rows,
          }))
          .sort((a, b) => ((a.service ?? '') < (b.service ?? '') ? -1 : 1)),
      }))
      .sort((a, b) =>
        a.accountId === b.accountId
          ? a.currency < b.currency
            ? -1
            : 1
          : a.accountId < b.accountId
            ? -1
            : 1,
      );
    const rowsRejected = [...this.reasons.values()].reduce((sum, count) => sum + count, 0);
    return {
      rows: this.rows,
      rowsAccepted: this.rows - rowsRejected,
      rowsRejected,
      totals,
      rejectedByReason: Object.fromEntries(
        [...this.reasons.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
      ),
    };
  }
}

const groundTruthFor = (spec: FocusExportSpec): FocusGroundTruth =>
  new FocusGroundTruth(spec.tenant ?? 'acme', spec.billingPeriod ?? '2026-11');

/** The ground truth without writing a file. */
export const expectedFocusExport = (spec: FocusExportSpec): ExpectedExport => {
  const truth = groundTruthFor(spec);
  for (const row of focusRows(spec)) truth.add(row);
  return truth.expected();
};

const csvCell = (value: string | null): string => {
  if (value === null) return 'NULL';
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
};

/** CSV text of the export, header first, as a stream of lines (with the ground truth filled in as it goes). */
export function* focusCsvLines(spec: FocusExportSpec, truth?: FocusGroundTruth): Generator<string> {
  yield `${FOCUS_EXPORT_COLUMNS.join(',')}\n`;
  for (const row of focusRows(spec)) {
    truth?.add(row);
    yield `${FOCUS_EXPORT_COLUMNS.map((column) => csvCell(row[column])).join(',')}\n`;
  }
}

/** Writes the export as CSV (gzip-compressed when `gzip`) and returns its ground truth. */
export const writeFocusCsv = async (
  path: string,
  spec: FocusExportSpec,
  options: { gzip: boolean },
): Promise<ExpectedExport> => {
  const truth = groundTruthFor(spec);
  const lines = Readable.from(focusCsvLines(spec, truth));
  if (options.gzip) await pipeline(lines, createGzip(), createWriteStream(path));
  else await pipeline(lines, createWriteStream(path));
  return truth.expected();
};

/** Every column may hold a null; the types are focusParquetSchema's. */
const parquetColumns = (): Omit<ColumnSource, 'data'>[] =>
  FOCUS_EXPORT_COLUMNS.map((name) => ({ name, nullable: true }));

/** Writes the export as Parquet (`rowGroupSize` rows per row group) and returns its ground truth. */
export const writeFocusParquet = async (
  path: string,
  spec: FocusExportSpec,
  options: { rowGroupSize: number },
): Promise<ExpectedExport> => {
  const truth = groundTruthFor(spec);
  function* rows(): Generator<Record<string, unknown>> {
    for (const row of focusRows(spec)) {
      truth.add(row);
      yield { ...row, BilledCost: row.unscaledCost };
    }
  }
  await parquetWriteRows({
    writer: fileWriter(path),
    rows: rows(),
    columns: parquetColumns(),
    schema: focusParquetSchema(FOCUS_EXPORT_COLUMNS, AMOUNT_SCALE),
    rowGroupSize: options.rowGroupSize,
  });
  return truth.expected();
};
