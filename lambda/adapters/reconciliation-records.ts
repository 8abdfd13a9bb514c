/**
 * Reconciliation records in the ledger table (keys: table-layout.ts `reconSortKey`): written by each run,
 * permanent, read back per period — the latest run's, or a given date's — by the CLI and the local run.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReconciliationStatus } from '../core/reconciliation/compare';
import type { ReconciliationRecord } from '../core/reconciliation/reconcile';
import type { CompletenessRecord } from '../core/reconciliation/completeness-records';
import { completenessOf, completenessValue } from './export-completeness';
import { BOOL, N, S, decimalOf } from './dynamo-kit/attributes';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';
import { batchPutItems } from './dynamo-kit/batch';
import { queryBySortKeyPrefix } from './paged-query';
import {
  LEDGER_PK,
  LEDGER_SK,
  RECON_RUN_PREFIX,
  ledgerKey,
  reconCompletenessSortKey,
  reconPartitionKey,
  reconRunPrefix,
  reconSortKey,
} from './table-layout';

type Item = Record<string, AttributeValue>;

export interface StoredReconciliation extends ReconciliationRecord {
  runDate: string;
  checkedAt: string;
}

export interface StoredCompleteness extends CompletenessRecord {
  runDate: string;
  checkedAt: string;
}

const COMPLETENESS_KIND = 'completeness';

const itemOf = (record: ReconciliationRecord, runDate: string, checkedAt: string): Item => ({
  ...ledgerKey(
    reconPartitionKey(record.period),
    reconSortKey(runDate, record.tenant, record.accountId, record.currency),
  ),
  kind: S('reconciliation'),
  tenant: S(record.tenant),
  accountId: S(record.accountId),
  period: S(record.period),
  currency: S(record.currency),
  ledger: N(record.ledger),
  provider: N(record.provider),
  difference: N(record.difference),
  ...(record.ratio !== undefined ? { ratio: N(record.ratio) } : {}),
  status: S(record.status),
  final: BOOL(record.final),
  pages: BOOL(record.pages),
  runDate: S(runDate),
  checkedAt: S(checkedAt),
});

const recordOf = (item: Item): StoredReconciliation => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  currency: item.currency?.S ?? '',
  ledger: decimalOf(item.ledger),
  provider: decimalOf(item.provider),
  difference: decimalOf(item.difference),
  ...(item.ratio?.N !== undefined ? { ratio: decimalOf(item.ratio) } : {}),
  status: (item.status?.S ?? 'ok') as ReconciliationStatus,
  final: item.final?.BOOL === true,
  pages: item.pages?.BOOL === true,
  runDate: item.runDate?.S ?? '',
  checkedAt: item.checkedAt?.S ?? '',
});

const completenessItem = (
  record: CompletenessRecord,
  runDate: string,
  checkedAt: string,
): Item => ({
  ...ledgerKey(
    reconPartitionKey(record.period),
    reconCompletenessSortKey(runDate, record.tenant, record.accountId, record.source),
  ),
  kind: S(COMPLETENESS_KIND),
  tenant: S(record.tenant),
  accountId: S(record.accountId),
  period: S(record.period),
  source: S(record.source),
  executionId: S(record.executionId),
  completeness: completenessValue(record.completeness),
  status: S(record.completeness.status),
  pages: BOOL(record.pages),
  runDate: S(runDate),
  checkedAt: S(checkedAt),
});

const storedCompletenessOf = (item: Item): StoredCompleteness => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  source: item.source?.S ?? '',
  executionId: item.executionId?.S ?? '',
  completeness: completenessOf(item.completeness) ?? {
    status: 'incomplete',
    filesPlanned: 0,
    filesRead: 0,
    rowsExpected: 0,
    rowsRead: 0,
    files: [],
    filesWrong: 0,
  },
  pages: item.pages?.BOOL === true,
  runDate: item.runDate?.S ?? '',
  checkedAt: item.checkedAt?.S ?? '',
});

/** Writes a run's records as items (`toItem(record, runDate, checkedAt)`), a re-run overwriting its day's. */
const recordsWriter =
  <T>(toItem: (record: T, runDate: string, checkedAt: string) => Item) =>
  (
    client: DynamoDBClient,
    table: string,
    records: readonly T[],
    checkedAt: string,
    backoff: Backoff = jitteredBackoff({ baseMs: 50, capMs: 2_000 }),
  ): Promise<void> =>
    batchPutItems(
      client,
      table,
      records.map((record) => toItem(record, checkedAt.slice(0, 10), checkedAt)),
      backoff,
    );

export const writeCompleteness = recordsWriter<CompletenessRecord>(completenessItem);
export const writeReconciliations = recordsWriter<ReconciliationRecord>(itemOf);

/** The run date of the period's latest run, if any (one item read, newest sort key first). */
export const latestRunDate = async (
  client: DynamoDBClient,
  table: string,
  period: string,
): Promise<string | undefined> => {
  const page = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: `${LEDGER_PK} = :pk AND begins_with(${LEDGER_SK}, :run)`,
      ExpressionAttributeValues: {
        ':pk': S(reconPartitionKey(period)),
        ':run': S(RECON_RUN_PREFIX),
      },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return page.Items?.[0]?.runDate?.S;
};

export interface StoredRun {
  records: StoredReconciliation[];
  completeness: StoredCompleteness[];
}

/**
 * The records of one period's run (the latest when `runDate` is not given), optionally one tenant's:
 * the provider comparisons and the completeness of the counted snapshots, from one Query.
 */
export const readReconciliationRun = async (
  client: DynamoDBClient,
  table: string,
  period: string,
  options: { runDate?: string; tenant?: string } = {},
): Promise<StoredRun> => {
  const runDate = options.runDate ?? (await latestRunDate(client, table, period));
  if (runDate === undefined) return { records: [], completeness: [] };
  const items = await queryBySortKeyPrefix(
    client,
    table,
    reconPartitionKey(period),
    reconRunPrefix(runDate, options.tenant),
  );
  return {
    records: items.filter((item) => item.kind?.S !== COMPLETENESS_KIND).map(recordOf),
    completeness: items
      .filter((item) => item.kind?.S === COMPLETENESS_KIND)
      .map(storedCompletenessOf),
  };
};

/** The provider comparisons of one period's run (`readReconciliationRun`'s `records`). */
export const readReconciliations = async (
  client: DynamoDBClient,
  table: string,
  period: string,
  options: { runDate?: string; tenant?: string } = {},
): Promise<StoredReconciliation[]> =>
  (await readReconciliationRun(client, table, period, options)).records;
