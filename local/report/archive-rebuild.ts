/**
 * The local run's ledger rebuilt from its evidence archive: every archived tenant-period of the cost
 * stream run through the cost processor into a fresh local table (`replay --rebuild-into`, one table
 * for all), its stream totals compared with the live ledger's. Reported as `archive.rebuild`; the
 * verdict requires it to equal the live ledger (`rebuildCheck`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { COST_STREAM } from '../../contract/streams';
import type { LateChargePolicy } from '../../contract/environment';
import {
  prepareRebuildTable,
  readArchivedCostEvents,
  rebuildLedger,
} from '../../cli/operations/archive-replay';
import { archivedKeys } from '../../lambda/adapters/s3-archive-reader';
import { UNSCOPED } from '../../lambda/core/archive';
import type { TotalDifference } from '../../lambda/core/ledger-comparison';

export interface ArchiveRebuild {
  /** Account-currency stream totals the rebuild states exactly as the live ledger does. */
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
  for (const { tenant, period } of await archivedScopes(s3, bucket)) {
    const archived = await readArchivedCostEvents(s3, bucket, tenant, period);
    const { comparison } = await rebuildLedger(archived.events, {
      dynamo,
      tenant,
      period,
      liveTable,
      table,
      policy,
    });
    rebuild.equal += comparison.equal;
    rebuild.differences.push(
      ...comparison.differences.map((difference) => ({ tenant, period, ...difference })),
    );
  }
  return rebuild;
};
