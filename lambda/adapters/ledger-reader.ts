import {
  BatchGetItemCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { decimalOf } from './dynamo-ledger';
import { queryAll, queryBySortKeyPrefix } from './paged-query';
import { snapshotTotalsOf } from './export-store';
import {
  statementRows,
  type CurrentSnapshot,
  type SnapshotPart,
  type StatementRow,
} from '../core/ledger-total';
import {
  CHARGE_PREFIX,
  CURRENT_SK,
  EXPORT_PREFIX,
  LEDGER_PK,
  LEDGER_SK,
  SNAPSHOT_PREFIX,
  TOTAL_PREFIX,
  exportPartitionKey,
  ledgerKey,
  ledgerKeyOf,
} from './table-layout';

/** Read side of the ledger table for statements and reports: exact decimal strings, never floats. */

/** A statement row: a stream total, or one with the current export snapshots added. */
export type LedgerTotal = StatementRow;

export interface LedgerCharge {
  sk: string;
  identityKind: string;
  identityId: string;
  version: number;
  amount: string;
  currency: string;
  chargePeriodStart: string;
  chargeCategory: string;
  chargeClass?: string;
  service?: string;
  skuId?: string;
  description?: string;
}

const totalOf = (item: Record<string, AttributeValue>): LedgerTotal => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  currency: item.currency?.S ?? '',
  total: decimalOf(item.total),
  charges: Number(item.charges?.N ?? '0'),
});

const chargeOf = (item: Record<string, AttributeValue>): LedgerCharge => ({
  sk: ledgerKeyOf(item).sk,
  identityKind: item.identityKind?.S ?? '',
  identityId: item.identityId?.S ?? '',
  version: Number(item.version?.N ?? '0'),
  amount: decimalOf(item.amount),
  currency: item.currency?.S ?? '',
  chargePeriodStart: item.chargePeriodStart?.S ?? '',
  chargeCategory: item.chargeCategory?.S ?? '',
  ...(item.chargeClass?.S ? { chargeClass: item.chargeClass.S } : {}),
  ...(item.service?.S ? { service: item.service.S } : {}),
  ...(item.skuId?.S ? { skuId: item.skuId.S } : {}),
  ...(item.description?.S ? { description: item.description.S } : {}),
});

const snapshotPartOf = (item: Record<string, AttributeValue>): SnapshotPart => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  source: item.source?.S ?? '',
  executionId: item.executionId?.S ?? '',
  totals: snapshotTotalsOf(item),
});

const currentOf = (item: Record<string, AttributeValue>): CurrentSnapshot => ({
  tenant: item.tenant?.S ?? '',
  source: item.source?.S ?? '',
  period: item.period?.S ?? '',
  executionId: item.executionId?.S ?? '',
});

/** The CURRENT pointers of the export sources the snapshot items name (one BatchGetItem per 100). */
const readCurrentPointers = async (
  client: DynamoDBClient,
  table: string,
  parts: SnapshotPart[],
): Promise<CurrentSnapshot[]> => {
  const pks = [
    ...new Set(parts.map((part) => exportPartitionKey(part.tenant, part.source, part.period))),
  ];
  const pointers: CurrentSnapshot[] = [];
  let pending = pks.map((pk) => ledgerKey(pk, CURRENT_SK));
  while (pending.length > 0) {
    const response = await client.send(
      new BatchGetItemCommand({
        RequestItems: { [table]: { Keys: pending.slice(0, 100), ConsistentRead: true } },
      }),
    );
    pointers.push(...(response.Responses?.[table] ?? []).map(currentOf));
    pending = [
      ...pending.slice(100),
      ...((response.UnprocessedKeys?.[table]?.Keys ?? []) as typeof pending),
    ];
  }
  return pointers;
};

/**
 * A statement of one ledger partition (tenant, account, period): per currency, the stream total plus
 * each export source's current snapshot (the ledger total rule, `core/ledger-total.ts`).
 */
export const readPartitionTotals = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerTotal[]> => {
  const items = await queryAll(client, {
    TableName: table,
    KeyConditionExpression: `${LEDGER_PK} = :pk AND ${LEDGER_SK} BETWEEN :first AND :last`,
    ExpressionAttributeValues: {
      ':pk': { S: pk },
      ':first': { S: SNAPSHOT_PREFIX },
      ':last': { S: `${TOTAL_PREFIX}\uffff` },
    },
    ConsistentRead: true,
  });
  const prefixed = (prefix: string) =>
    items.filter((item) => ledgerKeyOf(item).sk.startsWith(prefix));
  const parts = prefixed(SNAPSHOT_PREFIX).map(snapshotPartOf);
  return statementRows(
    prefixed(TOTAL_PREFIX).map(totalOf),
    parts,
    await readCurrentPointers(client, table, parts),
  );
};

export const readPartitionCharges = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerCharge[]> =>
  (await queryBySortKeyPrefix(client, table, pk, CHARGE_PREFIX)).map(chargeOf);

/**
 * Every statement row in the table — stream totals plus current export snapshots, by the ledger total
 * rule (local runs and small ledgers; a full scan).
 */
export const readAllTotals = async (
  client: DynamoDBClient,
  table: string,
): Promise<LedgerTotal[]> => {
  const streamTotals: LedgerTotal[] = [];
  const parts: SnapshotPart[] = [];
  const pointers: CurrentSnapshot[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: `begins_with(${LEDGER_SK}, :total) OR begins_with(${LEDGER_SK}, :snapshot) OR (${LEDGER_SK} = :current AND begins_with(${LEDGER_PK}, :export))`,
        ExpressionAttributeValues: {
          ':total': { S: TOTAL_PREFIX },
          ':snapshot': { S: SNAPSHOT_PREFIX },
          ':current': { S: CURRENT_SK },
          ':export': { S: EXPORT_PREFIX },
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { sk } = ledgerKeyOf(item);
      if (sk.startsWith(TOTAL_PREFIX)) streamTotals.push(totalOf(item));
      else if (sk.startsWith(SNAPSHOT_PREFIX)) parts.push(snapshotPartOf(item));
      else pointers.push(currentOf(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return statementRows(streamTotals, parts, pointers).sort((a, b) =>
    `${a.tenant}|${a.accountId}|${a.period}|${a.currency}`.localeCompare(
      `${b.tenant}|${b.accountId}|${b.period}|${b.currency}`,
    ),
  );
};
