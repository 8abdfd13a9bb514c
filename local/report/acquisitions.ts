/**
 * The report's `acquisitions`: one row per acquisition pass of the local run (a provider's source,
 * its billing period), with what the pass read, what the ledger holds for the tenant and period after
 * the pipeline ran, and the stand-in's own total; and the verdict's check of them.
 */
import Big from 'big.js';
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { formatDecimal } from '../../lambda/core/decimal';
import type { Check } from './run-report';

export interface AcquisitionReport {
  provider: 'gcp' | 'azure';
  /** 1: the first acquisition; 2: after the correction (it supersedes the first snapshot). */
  pass: number;
  tenant: string;
  sourceId: string;
  period: string;
  currency: string;
  /** Data rows the pass wrote (GCP: rows read from BigQuery; Azure: rows of the copied run). */
  rows: number;
  /** GCP: result pages read; Azure: blobs copied. */
  pages: number;
  /** Requests repeated after a dropped connection or a 5xx (GCP; Azure: none counted). */
  retries: number;
  /** Throttled answers waited out (GCP) and the time waited. */
  throttleWaits: number;
  throttleWaitMs: number;
  /** The ledger's statement total of the tenant and period (all its accounts) after the pipeline. */
  ledger: string;
  /** The stand-in's own total of the period, computed from the rows it holds. */
  truth: string;
  status: 'ok' | 'mismatch' | 'failed';
  error?: string;
}

/** The ledger's total of a tenant-period in one currency, exactly (every account's row summed). */
export const ledgerTotalOf = (
  ledger: readonly LedgerTotal[],
  tenant: string,
  period: string,
  currency: string,
): string =>
  formatDecimal(
    ledger
      .filter((t) => t.tenant === tenant && t.period === period && t.currency === currency)
      .reduce((sum, t) => sum.plus(t.total), new Big(0)),
  );

export const acquisitionStatus = (
  row: Pick<AcquisitionReport, 'ledger' | 'truth' | 'error'>,
): AcquisitionReport['status'] =>
  row.error !== undefined ? 'failed' : new Big(row.ledger).eq(row.truth) ? 'ok' : 'mismatch';

const rowText = (row: AcquisitionReport) =>
  `${row.provider} ${row.tenant} ${row.period} pass ${row.pass}`;

/** Every pass error-free and every ledger total equal to its stand-in's truth. */
export const acquisitionsCheck = (rows: readonly AcquisitionReport[]): Check => {
  const problems = rows.flatMap((row) =>
    row.status === 'ok'
      ? []
      : [
          row.status === 'failed'
            ? `${rowText(row)} failed: ${row.error}`
            : `${rowText(row)}: ledger ${row.ledger}, truth ${row.truth}`,
        ],
  );
  if (rows.length === 0) problems.push('no acquisition pass ran');
  // The correction must change the truth, else the second pass would not prove it superseded the first.
  for (const row of rows.filter((r) => r.pass > 1)) {
    const earlier = rows.find(
      (r) =>
        r.pass === row.pass - 1 &&
        r.provider === row.provider &&
        r.tenant === row.tenant &&
        r.period === row.period &&
        r.currency === row.currency,
    );
    if (earlier && new Big(earlier.truth).eq(row.truth))
      problems.push(`${rowText(row)}: the correction did not change the truth (${row.truth})`);
  }
  return {
    name: 'acquisitions',
    ok: problems.length === 0,
    detail:
      problems.length === 0
        ? `${rows.length} acquisition pass(es): every ledger total equals its stand-in's truth`
        : `${problems.length} problem(s): ${problems.slice(0, 5).join('; ')}`,
  };
};

/** The summary's table of the passes (header first). */
export const acquisitionTable = (rows: readonly AcquisitionReport[]): string[][] => [
  [
    '  provider',
    'pass',
    'tenant',
    'period',
    'rows',
    'pages',
    'retries',
    'throttle waits',
    'currency',
    'ledger',
    'truth',
    'status',
  ],
  ...rows.map((row) => [
    `  ${row.provider}`,
    String(row.pass),
    row.tenant,
    row.period,
    String(row.rows),
    String(row.pages),
    String(row.retries),
    `${row.throttleWaits} (${row.throttleWaitMs} ms)`,
    row.currency,
    row.ledger,
    row.truth,
    row.status,
  ]),
];
