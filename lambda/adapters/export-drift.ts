/**
 * Stream-versus-export drift records in the ledger table (core/exports/provisional-drift-pass.ts): the
 * provider's stream part of an account-period, read from its total shards, and one DRIFT item per
 * switch and account, written once.
 */
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { addDecimals } from '../core/decimal';
import type { CurrencyFigures, CurrencyDrift } from '../core/exports/provisional-drift';
import type { DriftRecord } from '../core/exports/provisional-drift-message';
import { BOOL, N, S, countOf, decimalOf, type Item } from './dynamo-kit/attributes';
import { writeIfCondition } from './dynamo-kit/errors';
import { getItem, queryAll, type ExportTable } from './export-table';
import { streamTotalsOf } from './ledger-reader';
import { queryBySortKeyPrefix } from './paged-query';
import {
  DRIFT_PREFIX,
  LEDGER_PK,
  TOTAL_PREFIX,
  driftSortKey,
  ledgerKey,
  ledgerPartitionKeyOf,
} from './table-layout';

/** The period's own charges of `provider` in one account-period, summed over its total shards. */
export const readProviderStream = async (
  store: ExportTable,
  tenant: string,
  accountId: string,
  period: string,
  provider: string,
): Promise<CurrencyFigures> => {
  const figures: CurrencyFigures = {};
  const items = await queryAll(
    store,
    ledgerPartitionKeyOf(tenant, accountId, period),
    TOTAL_PREFIX,
  );
  for (const row of items.flatMap(streamTotalsOf)) {
    for (const part of row.sources ?? []) {
      if (part.source !== provider) continue;
      const found = figures[row.currency] ?? { total: '0', charges: 0 };
      figures[row.currency] = {
        total: addDecimals(found.total, part.total),
        charges: found.charges + part.charges,
      };
    }
  }
  return figures;
};

const currencyValue = (drift: CurrencyDrift) => ({
  M: {
    stream: N(drift.stream),
    streamCharges: N(drift.streamCharges),
    export: N(drift.export),
    exportCharges: N(drift.exportCharges),
    difference: N(drift.difference),
    ...(drift.ratio === undefined ? {} : { ratio: N(drift.ratio) }),
    above: BOOL(drift.above),
  },
});

const driftKeyOf = (record: DriftRecord): { pk: string; sk: string } => ({
  pk: ledgerPartitionKeyOf(record.tenant, record.accountId, record.period),
  sk: driftSortKey(record.switchedAt, record.source, record.executionId),
});

export const driftItem = (record: DriftRecord): Item => ({
  ...ledgerKey(driftKeyOf(record).pk, driftKeyOf(record).sk),
  tenant: S(record.tenant),
  accountId: S(record.accountId),
  period: S(record.period),
  source: S(record.source),
  executionId: S(record.executionId),
  switchedAt: S(record.switchedAt),
  provider: S(record.provider),
  above: BOOL(record.above),
  thresholdRatio: N(record.threshold.ratio),
  thresholdFloor: N(record.threshold.floor),
  currencies: {
    M: Object.fromEntries(record.currencies.map((d) => [d.currency, currencyValue(d)])),
  },
});

export const driftRecordOf = (item: Item): DriftRecord => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  source: item.source?.S ?? '',
  executionId: item.executionId?.S ?? '',
  switchedAt: item.switchedAt?.S ?? '',
  provider: item.provider?.S ?? '',
  above: item.above?.BOOL === true,
  threshold: { ratio: decimalOf(item.thresholdRatio), floor: decimalOf(item.thresholdFloor) },
  currencies: Object.entries(item.currencies?.M ?? {})
    .map(([currency, value]): CurrencyDrift => {
      const m = value.M ?? {};
      return {
        currency,
        stream: decimalOf(m.stream),
        streamCharges: countOf(m.streamCharges),
        export: decimalOf(m.export),
        exportCharges: countOf(m.exportCharges),
        difference: decimalOf(m.difference),
        ...(m.ratio?.N === undefined ? {} : { ratio: decimalOf(m.ratio) }),
        above: m.above?.BOOL === true,
      };
    })
    .sort((a, b) => a.currency.localeCompare(b.currency)),
});

/** The first record of a (switch, account) stays: a redelivered switch gets it back, unchanged. */
export const recordDriftOnce = async (
  store: ExportTable,
  record: DriftRecord,
): Promise<DriftRecord> => {
  const written = await writeIfCondition(
    () =>
      store.client.send(
        new PutItemCommand({
          TableName: store.table,
          Item: driftItem(record),
          ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
        }),
      ),
    `the ledger refused the drift record of ${record.accountId} ${record.period}`,
  );
  if (written) return record;
  const { pk, sk } = driftKeyOf(record);
  const stored = await getItem(store, pk, sk);
  if (!stored) throw new Error(`the drift record of ${record.accountId} ${record.period} vanished`);
  return driftRecordOf(stored);
};

/** Every drift record of one account-period, oldest switch first (statements). */
export const readDrifts = async (
  client: DynamoDBClient,
  table: string,
  tenant: string,
  accountId: string,
  period: string,
): Promise<DriftRecord[]> =>
  (
    await queryBySortKeyPrefix(
      client,
      table,
      ledgerPartitionKeyOf(tenant, accountId, period),
      DRIFT_PREFIX,
    )
  ).map(driftRecordOf);
