/**
 * The local run's ledger rebuilt from its evidence archive: per tenant, every archived cost event of its
 * periods run through the cost processor into a fresh local table (`replay --rebuild-into`, one table
 * for all), with the live closes and the live export executions (run again on their pinned files) at
 * the moments they happened; the full statement totals (stream and export) of every period the archive
 * or the live ledger has compared with the live ledger's. Reported as `archive.rebuild`; the verdict
 * requires it to equal the live ledger (`rebuildCheck`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { COST_STREAM } from '../../contract/streams';
import type { LateChargePolicy } from '../../contract/environment';
import {
  prepareRebuildTable,
  readArchivedCostEvents,
  rebuildLedger,
  type ArchivedCostEvents,
} from '../../cli/operations/archive-replay';
import { readAllTotals } from '../../lambda/adapters/ledger-reader';
import { archivedKeys } from '../../lambda/adapters/s3-archive-reader';
import { UNSCOPED } from '../../lambda/core/archive';
import type { TotalDifference } from '../../lambda/core/ledger-comparison';

export interface ArchiveRebuild {
  /** Account-currency statement totals (stream and export) the rebuild states exactly as the live ledger does. */
  equal: number;
  differences: (TotalDifference & { tenant: string; period: string })[];
}

const SCOPE = /^[^/]+\/tenant=([^/]+)\/period=([^/]+)\//;

/** The tenant-periods the archive holds cost events of, in key order. */
const archivedScopes = async (s3: S3Client, bucket: string) => {
  const scopes = new Map<string, { tenant: string; period: string }>();
  for (const key of await archivedKeys(s3, bucket, `${COST_STREAM}/`)) {
    const match = SCOPE.exec(key);
    if (!match || match[1] === UNSCOPED || match[2] === UNSCOPED) continue;
    scopes.set(`${match[1]}/${match[2]}`, { tenant: match[1], period: match[2] });
  }
  return [...scopes.values()];
};

/** Per tenant, the periods to rebuild: those the archive holds cost events of, and those the live ledger states. */
const tenantPeriods = async (
  s3: S3Client,
  dynamo: DynamoDBClient,
  bucket: string,
  liveTable: string,
): Promise<Map<string, string[]>> => {
  const byTenant = new Map<string, Set<string>>();
  const add = (tenant: string, period: string) =>
    byTenant.set(tenant, (byTenant.get(tenant) ?? new Set()).add(period));
  for (const { tenant, period } of await archivedScopes(s3, bucket)) add(tenant, period);
  for (const row of await readAllTotals(dynamo, liveTable)) add(row.tenant, row.period);
  return new Map([...byTenant].map(([tenant, periods]) => [tenant, [...periods].sort()]));
};

export const rebuildFromArchive = async (options: {
  s3: S3Client;
  dynamo: DynamoDBClient;
  bucket: string;
  liveTable: string;
  policy: LateChargePolicy;
}): Promise<ArchiveRebuild> => {
  const { s3, dynamo, bucket, liveTable, policy } = options;
  const table = `${liveTable}-rebuilt`;
  await prepareRebuildTable(dynamo, table, liveTable);
  const rebuild: ArchiveRebuild = { equal: 0, differences: [] };
  // One timeline per tenant: its closes and export switches fall among the events of all its periods.
  for (const [tenant, periods] of await tenantPeriods(s3, dynamo, bucket, liveTable)) {
    const events: ArchivedCostEvents['events'] = [];
    for (const period of periods)
      events.push(...(await readArchivedCostEvents(s3, bucket, tenant, period)).events);
    const { byPeriod } = await rebuildLedger(events, {
      dynamo,
      s3,
      tenant,
      periods,
      liveTable,
      table,
      policy,
    });
    for (const { period, comparison } of byPeriod) {
      rebuild.equal += comparison.equal;
      rebuild.differences.push(
        ...comparison.differences.map((difference) => ({ tenant, period, ...difference })),
      );
    }
  }
  return rebuild;
};
