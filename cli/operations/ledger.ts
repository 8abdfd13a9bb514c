/**
 * Ledger statements from the ledger table (through lambda/adapters/ledger-reader.ts): totals per currency
 * and the charges behind them, exact decimal strings; a cross-check that the charges add up to the totals.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import {
  readAllTotals,
  readPartitionCharges,
  readPartitionTotals,
  type LedgerCharge,
  type LedgerTotal,
} from '../../lambda/adapters/ledger-reader';
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
  total: string;
  chargesSum: string;
  charges: number;
  consistent: boolean;
}

export interface Statement extends StatementQuery {
  partitionKey: string;
  totals: LedgerTotal[];
  charges: LedgerCharge[];
  checks: CurrencyCheck[];
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
  const [totals, charges] = await Promise.all([
    readPartitionTotals(dynamo, table, partitionKey),
    readPartitionCharges(dynamo, table, partitionKey),
  ]);
  totals.sort((a, b) => a.currency.localeCompare(b.currency));
  charges.sort(
    (a, b) =>
      a.chargePeriodStart.localeCompare(b.chargePeriodStart) ||
      a.currency.localeCompare(b.currency) ||
      a.sk.localeCompare(b.sk),
  );
  const currencies = [
    ...new Set([...totals.map((t) => t.currency), ...charges.map((c) => c.currency)]),
  ].sort();
  const checks = currencies.map((currency): CurrencyCheck => {
    const mine = charges.filter((charge) => charge.currency === currency);
    const sum = mine.reduce((acc, charge) => acc.plus(charge.amount), new Big(0));
    const total = totals.find((t) => t.currency === currency);
    const totalValue = total?.total ?? '0';
    return {
      currency,
      total: totalValue,
      chargesSum: sum.toFixed(),
      charges: mine.length,
      consistent: sum.eq(totalValue) && (total?.charges ?? 0) === mine.length,
    };
  });
  return { ...normalized, partitionKey, totals, charges, checks };
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
