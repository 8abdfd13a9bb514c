/**
 * The ledger side of a reconciliation: every statement row (the ledger total rule, through
 * ledger-reader.ts `readAllTotals`, so whatever that rule counts is what is reconciled), kept when its
 * account-period is in scope (core/reconciliation/scope.ts) — the PERIOD items' `closedAt` come from one
 * projected Scan. Two Scans a night: each reads (and is billed for) the whole table.
 */
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LedgerFigure } from '../core/reconciliation/reconcile';
import { inScope } from '../core/reconciliation/scope';
import { readAllTotals } from './ledger-reader';
import { LEDGER_PK, LEDGER_SK, PERIOD_SK, ledgerKeyOf, ledgerPartitionKeyOf } from './table-layout';

/** Partition key → the ISO instant of the period's last close. */
export const scanCloseTimes = async (
  client: DynamoDBClient,
  table: string,
): Promise<Map<string, string>> => {
  const closes = new Map<string, string>();
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: '#sk = :period',
        ProjectionExpression: '#pk, #sk, closedAt',
        ExpressionAttributeNames: { '#pk': LEDGER_PK, '#sk': LEDGER_SK },
        ExpressionAttributeValues: { ':period': { S: PERIOD_SK } },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      if (item.closedAt?.S) closes.set(ledgerKeyOf(item).pk, item.closedAt.S);
    start = page.LastEvaluatedKey;
  } while (start);
  return closes;
};

export const readLedgerInScope = async (
  client: DynamoDBClient,
  table: string,
  now: number,
  lookbackDays: number,
): Promise<LedgerFigure[]> => {
  const [rows, closes] = await Promise.all([
    readAllTotals(client, table),
    scanCloseTimes(client, table),
  ]);
  return rows
    .filter((row) => {
      const closedAt = closes.get(ledgerPartitionKeyOf(row.tenant, row.accountId, row.period));
      return inScope(
        { ...row, state: row.status ?? 'open', ...(closedAt ? { closedAt } : {}) },
        now,
        lookbackDays,
      );
    })
    .map(({ tenant, accountId, period, currency, total }) => ({
      tenant,
      accountId,
      period,
      currency,
      total,
    }));
};
