/**
 * The ledger table as the period modules use it (period-close, period-void, period-status): the PERIOD
 * item and audit records of an account-period's partition, read and written through the DynamoDB kit.
 */
import {
  GetItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import type { CurrencyTotal, PeriodKey, PeriodState, PeriodStatus } from '../core/ports';
import { N, S, stringAttribute, type Item } from './dynamo-kit/attributes';
import type { Backoff } from './dynamo-kit/backoff';
import { transactWrite } from './dynamo-kit/transact';
import { LEDGER_PK, PERIOD_SK, ledgerKey, ledgerPartitionKeyOf } from './table-layout';

export interface PeriodTable {
  client: DynamoDBClient;
  table: string;
  now: () => number;
  totalShards: number;
  /** Close/reopen/void transactions tried before giving up as busy. */
  maxAttempts: number;
  pause: Backoff;
}

export const partitionOf = (key: PeriodKey): string =>
  ledgerPartitionKeyOf(key.tenant, key.accountId, key.period);

/** What a read of the PERIOD item needs of the table. */
export type PeriodReader = Pick<PeriodTable, 'client' | 'table'>;

export const periodItem = async (t: PeriodReader, key: PeriodKey): Promise<Item | undefined> => {
  const response = await t.client.send(
    new GetItemCommand({
      TableName: t.table,
      Key: ledgerKey(partitionOf(key), PERIOD_SK),
      ConsistentRead: true,
    }),
  );
  return response.Item;
};

export const stateOf = async (t: PeriodReader, key: PeriodKey): Promise<PeriodState> =>
  (await periodItem(t, key))?.state?.S === 'closed' ? 'closed' : 'open';

/** Undefined when committed; the cancellation codes when a condition or a concurrent writer stopped it. */
export const transact = async (
  t: PeriodTable,
  items: TransactWriteItem[],
): Promise<string[] | undefined> => {
  const written = await transactWrite(t.client, items, 'the ledger refused the period change');
  return written.outcome === 'committed' ? undefined : written.codes;
};

export const auditPut = (
  table: string,
  pk: string,
  sk: string,
  attributes: Item,
): TransactWriteItem => ({
  Put: {
    TableName: table,
    Item: { ...ledgerKey(pk, sk), ...attributes },
    ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
  },
});

export const totalsMap = (totals: readonly CurrencyTotal[]): AttributeValue => ({
  M: Object.fromEntries(
    totals.map(({ currency, total, charges }) => [
      currency,
      { M: { total: S(total), charges: N(charges) } },
    ]),
  ),
});

const totalsOfMap = (value: AttributeValue | undefined): CurrencyTotal[] =>
  Object.entries(value?.M ?? {})
    .map(([currency, entry]) => ({
      currency,
      total: entry.M?.total?.S ?? '0',
      charges: Number(entry.M?.charges?.N ?? '0'),
    }))
    .sort((a, b) => a.currency.localeCompare(b.currency));

/** A period's status from its PERIOD item (absent: never closed) and the corrections booked later. */
export const statusOf = (
  key: PeriodKey,
  item: Item | undefined,
  correctionsBookedLater: PeriodStatus['correctionsBookedLater'],
): PeriodStatus => ({
  tenant: key.tenant,
  accountId: key.accountId,
  period: key.period,
  state: item?.state?.S === 'closed' ? 'closed' : 'open',
  ...stringAttribute(item, 'closedAt'),
  ...stringAttribute(item, 'closedBy'),
  ...stringAttribute(item, 'closeReason'),
  closeCount: Number(item?.closeCount?.N ?? '0'),
  ...stringAttribute(item, 'reopenedAt'),
  ...stringAttribute(item, 'reopenedBy'),
  ...stringAttribute(item, 'reopenReason'),
  totalsAtClose: totalsOfMap(item?.totalsAtClose),
  correctionsBookedLater,
});
