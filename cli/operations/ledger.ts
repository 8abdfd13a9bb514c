/**
 * Ledger statements from the ledger table (through lambda/adapters/ledger-reader.ts): totals per currency
 * with the period's status and the corrections they hold, the charges behind them, exact decimal
 * strings; a cross-check that the charges add up to the totals.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readDrifts } from '../../lambda/adapters/export-drift';
import type { DriftRecord } from '../../lambda/core/exports/provisional-drift-message';
import {
  periodInfoOf,
  readAllTotals,
  readCurrentPointers,
  readPartitionCharges,
  readStatementItems,
  snapshotPartOf,
  streamTotalsOf,
  type LedgerCharge,
  type LedgerTotal,
} from '../../lambda/adapters/ledger-reader';
import { statementRows } from '../../lambda/core/ledger-total';
import type { PeriodStatus } from '../../lambda/core/ports';
import { ValidationError } from '../../lambda/core/errors';
import { normalizeTenant } from '../../lambda/core/formats/scope';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { UsageError } from '../errors';

export interface StatementQuery {
  tenant: string;
  accountId: string;
  /** yyyy-mm */
  period: string;
}

export interface CurrencyCheck {
  currency: string;
  /** The stream total (export snapshots have no charges behind them and are left out). */
  total: string;
  chargesSum: string;
  charges: number;
  /** Part of `total` booked here as corrections of earlier, closed periods. */
  correctionsIn: string;
  /** Corrections of this period booked in later periods (its closed total does not hold them). */
  correctionsLater: string;
  consistent: boolean;
}

export interface Statement extends StatementQuery {
  partitionKey: string;
  /** open or closed, with who closed it, when and why, and what was booked after it. */
  status: PeriodStatus;
  /** Per currency, with `status` and the `corrections` of earlier periods the total includes. */
  totals: LedgerTotal[];
  charges: LedgerCharge[];
  checks: CurrencyCheck[];
  /** Stream-versus-export drift recorded at each export switch that superseded stream charges. */
  drifts: DriftRecord[];
}

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

export const validatePeriod = (period: string): string => {
  if (!PERIOD.test(period)) throw new UsageError(`--period must be yyyy-mm (got "${period}")`);
  return period;
};

/** `--tenant` as the consumer books it (`' ACME '` → `acme`); what it can never book is a usage error. */
export const validateTenant = (tenant: string): string => {
  try {
    return normalizeTenant(tenant, '--tenant');
  } catch (error) {
    if (error instanceof ValidationError)
      throw new UsageError(
        error.code === 'missing-field'
          ? '--tenant must not be blank'
          : `--tenant: ${error.reason}: the consumer books no tenant under that name`,
      );
    throw error;
  }
};

/** The consumer's own key function. */
export const statementPartitionKey = (query: StatementQuery): string =>
  ledgerPartitionKeyOf(query.tenant, query.accountId, query.period);

const sumOf = (values: readonly { total: string }[]): Big =>
  values.reduce((acc, value) => acc.plus(value.total), new Big(0));
const countOf = (values: readonly { charges: number }[]): number =>
  values.reduce((acc, value) => acc + value.charges, 0);

/**
 * Per currency, whether the charges explain the stream total. A voided charge counts for nothing; a
 * correction booked here (of an earlier period) has its charge in that period's partition; a charge of
 * this period booked later (it was closed) is here but not in this total:
 *   Σ charges = total − corrections booked here + corrections of this period booked later.
 */
export const statementChecks = (
  streamRows: readonly LedgerTotal[],
  charges: readonly LedgerCharge[],
  later: PeriodStatus['correctionsBookedLater'],
): CurrencyCheck[] => {
  const currencies = [
    ...new Set([
      ...streamRows.map((t) => t.currency),
      ...charges.map((c) => c.currency),
      ...later.map((c) => c.currency),
    ]),
  ].sort();
  return currencies.map((currency): CurrencyCheck => {
    const mine = charges.filter((charge) => charge.currency === currency && !charge.voidedAt);
    const sum = mine.reduce((acc, charge) => acc.plus(charge.amount), new Big(0));
    const row = streamRows.find((t) => t.currency === currency);
    const total = row?.total ?? '0';
    const correctionsIn = row?.corrections ?? [];
    const laterHere = later.filter((c) => c.currency === currency);
    const expectedSum = new Big(total).minus(sumOf(correctionsIn)).plus(sumOf(laterHere));
    const expectedCount = (row?.charges ?? 0) - countOf(correctionsIn) + countOf(laterHere);
    return {
      currency,
      total,
      chargesSum: sum.toFixed(),
      charges: mine.length,
      correctionsIn: sumOf(correctionsIn).toFixed(),
      correctionsLater: sumOf(laterHere).toFixed(),
      consistent: sum.eq(expectedSum) && mine.length === expectedCount,
    };
  });
};

export const readStatement = async (
  dynamo: DynamoDBClient,
  table: string,
  query: StatementQuery,
): Promise<Statement> => {
  const normalized = {
    ...query,
    tenant: validateTenant(query.tenant),
    period: validatePeriod(query.period),
  };
  const partitionKey = statementPartitionKey(normalized);
  const [items, charges, status, drifts] = await Promise.all([
    readStatementItems(dynamo, table, partitionKey),
    readPartitionCharges(dynamo, table, partitionKey),
    new DynamoPeriods({ client: dynamo, ledgerTable: table }).status(normalized),
    readDrifts(dynamo, table, normalized.tenant, normalized.accountId, normalized.period),
  ]);
  const periods = items.period ? [periodInfoOf(items.period)] : [];
  const stream = items.totals.flatMap(streamTotalsOf);
  const parts = items.snapshots.map(snapshotPartOf);
  const totals = statementRows(
    stream,
    parts,
    await readCurrentPointers(dynamo, table, parts),
    periods,
  );
  charges.sort(
    (a, b) =>
      a.chargePeriodStart.localeCompare(b.chargePeriodStart) ||
      a.currency.localeCompare(b.currency) ||
      a.sk.localeCompare(b.sk),
  );
  const checks = statementChecks(
    statementRows(stream, [], [], periods),
    charges,
    status.correctionsBookedLater,
  );
  return { ...normalized, partitionKey, status, totals, charges, checks, drifts };
};

/** Totals of many partitions (a table scan), filtered by whatever of tenant/account/period is given. */
export const readTotals = async (
  dynamo: DynamoDBClient,
  table: string,
  filter: Partial<StatementQuery>,
): Promise<LedgerTotal[]> => {
  if (filter.period) validatePeriod(filter.period);
  const tenant = filter.tenant === undefined ? undefined : validateTenant(filter.tenant);
  return (await readAllTotals(dynamo, table)).filter(
    (total) =>
      (!tenant || total.tenant === tenant) &&
      (!filter.accountId || total.accountId === filter.accountId) &&
      (!filter.period || total.period === filter.period),
  );
};
