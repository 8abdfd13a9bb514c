/** A period's status and the list of a tenant's periods, read from the ledger table. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { checkPeriodKey, correctionsOf } from '../core/period-actions';
import { statementRows, type StatementRow } from '../core/ledger-total';
import { MAX_ROLL_FORWARD_MONTHS, nextPeriod, periodOfInstant } from '../core/periods';
import type { PeriodKey, PeriodStatus } from '../core/ports';
import { S, type Item } from './dynamo-kit/attributes';
import { streamTotalsOf } from './ledger-reader';
import { queryBySortKeyPrefix } from './paged-query';
import { completeClose } from './period-close';
import { partitionOf, periodItem, statusOf, type PeriodTable } from './period-table';
import { LEDGER_PK, LEDGER_SK, PERIOD_SK, TOTAL_PREFIX, ledgerKeyOf } from './table-layout';

export const status = async (t: PeriodTable, key: PeriodKey): Promise<PeriodStatus> => {
  checkPeriodKey(key);
  let item = await periodItem(t, key);
  if (item?.state?.S === 'closed' && item.totalsAtClose === undefined) {
    await completeClose(t, key);
    item = await periodItem(t, key);
  }
  // Corrections land in later periods, up to the current month (or the next one, at least).
  const rows: StatementRow[] = [];
  const last = periodOfInstant(t.now());
  let period = key.period;
  for (let month = 1; month <= MAX_ROLL_FORWARD_MONTHS; month++) {
    period = nextPeriod(period);
    const items = await queryBySortKeyPrefix(
      t.client,
      t.table,
      partitionOf({ ...key, period }),
      TOTAL_PREFIX,
    );
    rows.push(...items.flatMap(streamTotalsOf));
    if (period >= last) break;
  }
  return statusOf(key, item, correctionsOf(key.period, statementRows(rows, [], [])));
};

export const list = async (
  t: PeriodTable,
  filter: { tenant: string; accountId?: string },
): Promise<PeriodStatus[]> => {
  const prefix =
    filter.accountId === undefined
      ? `TENANT#${filter.tenant}#ACCOUNT#`
      : `TENANT#${filter.tenant}#ACCOUNT#${filter.accountId}#PERIOD#`;
  const periodItems = new Map<string, Item>();
  const totals: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await t.client.send(
      new ScanCommand({
        TableName: t.table,
        FilterExpression: `begins_with(${LEDGER_PK}, :prefix) AND (${LEDGER_SK} = :period OR begins_with(${LEDGER_SK}, :total))`,
        ExpressionAttributeValues: {
          ':prefix': S(prefix),
          ':period': S(PERIOD_SK),
          ':total': S(TOTAL_PREFIX),
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      if (ledgerKeyOf(item).sk === PERIOD_SK) periodItems.set(ledgerKeyOf(item).pk, item);
      else totals.push(item);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  const keys = new Map<string, PeriodKey>();
  for (const item of [...periodItems.values(), ...totals]) {
    const key = {
      tenant: item.tenant?.S ?? '',
      accountId: item.accountId?.S ?? '',
      period: item.period?.S ?? '',
    };
    if (key.period !== '') keys.set(ledgerKeyOf(item).pk, key);
  }
  const rows = statementRows(totals.flatMap(streamTotalsOf), [], []);
  return [...keys.entries()]
    .map(([pk, key]) =>
      statusOf(
        key,
        periodItems.get(pk),
        correctionsOf(
          key.period,
          rows.filter((row) => row.accountId === key.accountId && row.period > key.period),
        ),
      ),
    )
    .sort((a, b) => a.accountId.localeCompare(b.accountId) || a.period.localeCompare(b.period));
};
