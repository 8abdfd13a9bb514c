/**
 * The ledger side of a reconciliation: every statement row (the ledger total rule, through
 * ledger-reader.ts `readAllTotals`, so whatever that rule counts is what is reconciled), kept when its
 * account-period is in scope (core/reconciliation/scope.ts); and the completeness of the snapshots the
 * rule counts there. The PERIOD items (`closedAt`, pins), the SNAPSHOT items that carry a completeness
 * and the CURRENT pointers come from one projected Scan. Two Scans a night: each reads (and is billed
 * for) the whole table.
 */
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CurrentSnapshot, PeriodInfo } from '../core/ledger-total';
import {
  completenessRecords,
  type CompletenessRecord,
  type SnapshotCompleteness,
} from '../core/reconciliation/completeness-records';
import type { LedgerFigure } from '../core/reconciliation/reconcile';
import { inScope } from '../core/reconciliation/scope';
import { COMPLETENESS_ATTRIBUTE, completenessOf } from './export-completeness';
import { currentOf, periodInfoOf, readAllTotals } from './ledger-reader';
import {
  CURRENT_SK,
  EXPORT_PREFIX,
  LEDGER_PK,
  LEDGER_SK,
  PERIOD_SK,
  SNAPSHOT_PREFIX,
  ledgerKeyOf,
  ledgerPartitionKeyOf,
} from './table-layout';

interface PeriodsAndSnapshots {
  /** Partition key → the ISO instant of the period's last close. */
  closes: Map<string, string>;
  periods: PeriodInfo[];
  pointers: CurrentSnapshot[];
  snapshots: SnapshotCompleteness[];
}

const PROJECTED = [
  'tenant',
  'accountId',
  'period',
  'state',
  'closeCount',
  'pinned',
  'authoritative',
  'closedAt',
  'source',
  'executionId',
  'firstSwitchedAt',
  'precedence',
  COMPLETENESS_ATTRIBUTE,
];

const scanPeriodsAndSnapshots = async (
  client: DynamoDBClient,
  table: string,
): Promise<PeriodsAndSnapshots> => {
  const found: PeriodsAndSnapshots = {
    closes: new Map(),
    periods: [],
    pointers: [],
    snapshots: [],
  };
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: `#sk = :period OR (begins_with(#sk, :snapshot) AND attribute_exists(#a${PROJECTED.indexOf(COMPLETENESS_ATTRIBUTE)})) OR (#sk = :current AND begins_with(#pk, :export))`,
        ProjectionExpression: ['#pk', '#sk', ...PROJECTED.map((_, i) => `#a${i}`)].join(', '),
        ExpressionAttributeNames: {
          '#pk': LEDGER_PK,
          '#sk': LEDGER_SK,
          ...Object.fromEntries(PROJECTED.map((name, i) => [`#a${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':period': { S: PERIOD_SK },
          ':snapshot': { S: SNAPSHOT_PREFIX },
          ':current': { S: CURRENT_SK },
          ':export': { S: EXPORT_PREFIX },
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { pk, sk } = ledgerKeyOf(item);
      if (sk === PERIOD_SK) {
        found.periods.push(periodInfoOf(item));
        if (item.closedAt?.S) found.closes.set(pk, item.closedAt.S);
      } else if (sk === CURRENT_SK) found.pointers.push(currentOf(item));
      else {
        const completeness = completenessOf(item[COMPLETENESS_ATTRIBUTE]);
        if (completeness)
          found.snapshots.push({
            tenant: item.tenant?.S ?? '',
            accountId: item.accountId?.S ?? '',
            period: item.period?.S ?? '',
            source: item.source?.S ?? '',
            executionId: item.executionId?.S ?? '',
            completeness,
          });
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
};

export interface LedgerInScope {
  figures: LedgerFigure[];
  /** Completeness of the counted snapshots of the account-periods in scope. */
  completeness: CompletenessRecord[];
}

export const readInScope = async (
  client: DynamoDBClient,
  table: string,
  now: number,
  lookbackDays: number,
): Promise<LedgerInScope> => {
  const [rows, { closes, periods, pointers, snapshots }] = await Promise.all([
    readAllTotals(client, table),
    scanPeriodsAndSnapshots(client, table),
  ]);
  const states = new Map(
    periods.map((info) => [ledgerPartitionKeyOf(info.tenant, info.accountId, info.period), info]),
  );
  const accountPeriodInScope = (scope: { tenant: string; accountId: string; period: string }) => {
    const pk = ledgerPartitionKeyOf(scope.tenant, scope.accountId, scope.period);
    const closedAt = closes.get(pk);
    return inScope(
      {
        ...scope,
        state: states.get(pk)?.state ?? 'open',
        ...(closedAt ? { closedAt } : {}),
      },
      now,
      lookbackDays,
    );
  };
  return {
    figures: rows
      .filter(accountPeriodInScope)
      .map(({ tenant, accountId, period, currency, total }) => ({
        tenant,
        accountId,
        period,
        currency,
        total,
      })),
    completeness: completenessRecords(snapshots, pointers, periods).filter(accountPeriodInScope),
  };
};

export const readLedgerInScope = async (
  client: DynamoDBClient,
  table: string,
  now: number,
  lookbackDays: number,
): Promise<LedgerFigure[]> => (await readInScope(client, table, now, lookbackDays)).figures;
