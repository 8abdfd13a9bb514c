/**
 * The evidence behind a statement's export totals: for each snapshot the statement counts (or lists as
 * shadowed), the execution's plan read from its EXEC item, every task's file read again at the version
 * the plan pinned, and the account's booked rows (core/exports/row-evidence.ts), summed and checked
 * against the SNAPSHOT item's totals.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_EXPORT_PROVIDER, type ExportSourceConfig } from '../../contract/export-sources';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { ExportStore } from '../../lambda/adapters/export-store';
import {
  periodInfoOf,
  readCurrentPointers,
  readStatementItems,
  snapshotPartOf,
} from '../../lambda/adapters/ledger-reader';
import { S3Objects } from '../../lambda/adapters/s3-objects';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { countedSnapshots, type StatementRow } from '../../lambda/core/ledger-total';
import {
  checkRowEvidence,
  collectRowEvidence,
  type AccountRowEvidence,
  type RowCheck,
} from '../../lambda/core/exports/row-evidence';
import { sourceOfKey } from '../../lambda/core/exports/source';

export interface SnapshotEvidence extends AccountRowEvidence {
  source: string;
  executionId: string;
  /** `counted`: in the statement's totals; `shadowed`: another export of the account counts instead. */
  role: 'counted' | 'shadowed';
  /** The rows against the SNAPSHOT item, per currency. */
  checks: RowCheck[];
}

export interface ExportEvidenceQuery {
  tenant: string;
  accountId: string;
  period: string;
  /** The statement's rows (they name the shadowed snapshots). */
  totals: readonly StatementRow[];
  /** Rows kept per snapshot for display; the sums are over all of them. */
  limit?: number;
  /** The stage's `exportSources`, for the provider of rows without ProviderName (default `aws`). */
  configured?: readonly ExportSourceConfig[];
}

/** The bucket of an export source id (`<bucket>/<export root>`: a bucket name has no `/`). */
export const bucketOf = (sourceId: string): string => sourceId.split('/')[0];

/** The provider the chunk worker gives rows of `key`: its configured source's, else the default. */
export const providerOf = (
  configured: readonly ExportSourceConfig[],
  bucket: string,
  key: string,
): string =>
  sourceOfKey(
    configured.map((source) => ({
      tenant: source.tenant,
      bucket,
      prefix: source.prefix.replace(/\/$/, ''),
      ...(source.source ? { source: source.source } : {}),
    })),
    bucket,
    key,
  )?.source ?? DEFAULT_EXPORT_PROVIDER;

const isShadowed = (totals: readonly StatementRow[], source: string, executionId: string) =>
  totals.some((row) =>
    (row.shadowed ?? []).some((s) => s.source === source && s.executionId === executionId),
  );

export const readExportEvidence = async (
  dynamo: DynamoDBClient,
  s3: S3Client,
  table: string,
  query: ExportEvidenceQuery,
): Promise<SnapshotEvidence[]> => {
  const items = await readStatementItems(
    dynamo,
    table,
    ledgerPartitionKeyOf(query.tenant, query.accountId, query.period),
  );
  const parts = items.snapshots.map(snapshotPartOf);
  const counted = countedSnapshots(
    parts,
    await readCurrentPointers(dynamo, table, parts),
    items.period ? [periodInfoOf(items.period)] : [],
  );
  const store = new ExportStore({ client: dynamo, ledgerTable: table });
  const objects = new ExportObjects(new S3Objects(s3));
  const evidence: SnapshotEvidence[] = [];
  for (const part of counted) {
    const execution = await store.readExecution(part);
    if (!execution)
      throw new Error(
        `the snapshot of ${part.source} execution ${part.executionId} has no EXEC item: its plan is gone`,
      );
    const bucket = bucketOf(part.source);
    const rows = await collectRowEvidence({
      tasks: execution.tasks,
      accountId: query.accountId,
      context: {
        tenant: part.tenant,
        billingPeriod: part.period,
        source: providerOf(query.configured ?? [], bucket, execution.manifestKey),
      },
      openRows: (task) => objects.rowsOf(bucket, task, 0),
      ...(query.limit === undefined ? {} : { keep: query.limit }),
    });
    evidence.push({
      source: part.source,
      executionId: part.executionId,
      role: isShadowed(query.totals, part.source, part.executionId) ? 'shadowed' : 'counted',
      ...rows,
      checks: checkRowEvidence(rows.totals, part.totals),
    });
  }
  return evidence;
};
