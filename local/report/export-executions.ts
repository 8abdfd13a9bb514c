/**
 * The `exports` array of the report: every export execution the ledger table holds, with its status
 * at the end of the run (`incomplete`: planned, not every task done), and the diffs of the switches.
 */
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DIFF_PREFIX,
  EXECUTION_PREFIX,
  EXPORT_PREFIX,
  LEDGER_PK,
  LEDGER_SK,
  diffSortKey,
} from '../../lambda/adapters/table-layout';
import { ExportStore } from '../../lambda/adapters/export-store';
import type { AccountDelta } from '../../lambda/core/exports/snapshot';

export type ExportStatus = 'current' | 'superseded' | 'incomplete' | 'failed';

export interface ExportReport {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  status: ExportStatus;
  rows: number;
  rejectedRows: number;
}

/** What changed when an execution became current (against the execution it replaced). */
export interface ExportDiffReport {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  previousExecutionId?: string;
  accounts: Pick<AccountDelta, 'accountId' | 'currency' | 'old' | 'new' | 'delta'>[];
}

const text = (item: Record<string, AttributeValue>, name: string): string => item[name]?.S ?? '';
const count = (item: Record<string, AttributeValue>, name: string): number =>
  Number(item[name]?.N ?? '0');

const statusOf = (stored: string): ExportStatus =>
  stored === 'current' || stored === 'superseded' || stored === 'failed' ? stored : 'incomplete';

const scanExportItems = async (
  client: DynamoDBClient,
  table: string,
): Promise<Record<string, AttributeValue>[]> => {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: `begins_with(${LEDGER_PK}, :export) AND (begins_with(${LEDGER_SK}, :exec) OR begins_with(${LEDGER_SK}, :diff))`,
        ExpressionAttributeValues: {
          ':export': { S: EXPORT_PREFIX },
          ':exec': { S: EXECUTION_PREFIX },
          ':diff': { S: DIFF_PREFIX },
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

const byExecution = <T extends { tenant: string; billingPeriod: string }>(
  a: T & { order: string },
  b: T & { order: string },
) =>
  a.tenant.localeCompare(b.tenant) ||
  a.billingPeriod.localeCompare(b.billingPeriod) ||
  a.order.localeCompare(b.order);

export const readExportReport = async (
  client: DynamoDBClient,
  table: string,
): Promise<{ exports: ExportReport[]; diffs: ExportDiffReport[] }> => {
  const items = await scanExportItems(client, table);
  const executions = items
    .filter((item) => item.tasksTotal !== undefined && !text(item, LEDGER_SK).includes('#CHUNK#'))
    .map((item) => ({
      order: text(item, 'order'),
      tenant: text(item, 'tenant'),
      billingPeriod: text(item, 'period'),
      executionId: text(item, 'executionId'),
      status: statusOf(text(item, 'status')),
      rows: count(item, 'rows'),
      rejectedRows: count(item, 'rejectedRows'),
    }))
    .sort(byExecution);
  const partitions = new Map(
    items
      .filter((item) => item.tenant?.S !== undefined)
      .map((item) => [
        text(item, LEDGER_PK),
        {
          tenant: text(item, 'tenant'),
          source: text(item, 'source'),
          period: text(item, 'period'),
        },
      ]),
  );
  // A diff may be stored in pages: the store reads it back whole.
  const store = new ExportStore({ client, ledgerTable: table });
  const withDiffs = new Set(
    items
      .filter((item) => text(item, LEDGER_SK).startsWith(DIFF_PREFIX))
      .map((item) => text(item, LEDGER_PK)),
  );
  const diffs = (
    await Promise.all(
      [...withDiffs].map(async (pk) => {
        const owner = partitions.get(pk);
        if (!owner) return [];
        const stored = await store.readDiffs(owner.tenant, owner.source, owner.period);
        return stored.map((diff) => ({
          order: diffSortKey(diff.switchedAt, diff.executionId),
          tenant: owner.tenant,
          billingPeriod: owner.period,
          executionId: diff.executionId,
          ...(diff.previousExecutionId ? { previousExecutionId: diff.previousExecutionId } : {}),
          accounts: diff.accounts.map(({ accountId, currency, old, new: now, delta }) => ({
            accountId,
            currency,
            old,
            new: now,
            delta,
          })),
        }));
      }),
    )
  )
    .flat()
    .sort(byExecution);
  return {
    exports: executions.map(({ order: _order, ...report }) => report),
    diffs: diffs.map(({ order: _order, ...diff }) => diff),
  };
};
