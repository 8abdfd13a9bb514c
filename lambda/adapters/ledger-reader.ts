import {
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { decimalOf } from './dynamo-ledger';

/** Read side of the ledger table for statements and reports: exact decimal strings, never floats. */

export interface LedgerTotal {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  total: string;
  charges: number;
}

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
  sk: item.sk?.S ?? '',
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

const queryAll = async (client: DynamoDBClient, table: string, pk: string, prefix: string) => {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: prefix } },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

export const readPartitionTotals = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerTotal[]> => (await queryAll(client, table, pk, 'TOTAL#')).map(totalOf);

export const readPartitionCharges = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerCharge[]> => (await queryAll(client, table, pk, 'CHARGE#')).map(chargeOf);

/** Every total in the table (local runs and small ledgers; a full scan). */
export const readAllTotals = async (
  client: DynamoDBClient,
  table: string,
): Promise<LedgerTotal[]> => {
  const totals: LedgerTotal[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'begins_with(sk, :total)',
        ExpressionAttributeValues: { ':total': { S: 'TOTAL#' } },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    totals.push(...(page.Items ?? []).map(totalOf));
    start = page.LastEvaluatedKey;
  } while (start);
  return totals.sort((a, b) =>
    `${a.tenant}|${a.accountId}|${a.period}|${a.currency}`.localeCompare(
      `${b.tenant}|${b.accountId}|${b.period}|${b.currency}`,
    ),
  );
};
