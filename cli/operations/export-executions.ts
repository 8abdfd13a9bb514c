/**
 * `export status` and `export diff`: what the ledger table holds about a tenant's export executions of
 * one billing period (through lambda/adapters/export-store.ts), per export source. Without `--source`
 * the sources are the exports found under the tenant's prefix in the export bucket.
 */
import { ListObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ExportStore,
  type ExecutionRecord,
  type ExecutionRejections,
  type StoredDiff,
} from '../../lambda/adapters/export-store';
import { PeriodSources } from '../../lambda/adapters/period-sources';
import { sourceRank } from '../../lambda/core/export-authority';
import { sourceIdOf } from '../../lambda/core/exports/plan';
import { shadowingAmong, type Shadowing } from '../../lambda/core/exports/shadowing';
import { changeNotifications, type ChangeNotification } from '../../lambda/core/exports/snapshot';

export interface ExecutionStatus extends ExecutionRecord {
  rejections?: ExecutionRejections;
}

export interface SourceStatus {
  source: string;
  executions: ExecutionStatus[];
  /** Where the source stands among the period's exports; absent while none of its executions is current. */
  shadowing?: Shadowing;
}

export interface DiffReport extends StoredDiff {
  /** The notification texts of this diff at the threshold (none for the period's first export). */
  notifications: ChangeNotification[];
}

export interface SourceDiffs {
  source: string;
  diffs: DiffReport[];
}

/**
 * The export names directly under `prefix/` in the bucket. One request per name: list one key after the
 * previous name's subtree (`<name>0` is the first key after every `<name>/…` key: "0" follows "/").
 * A delimiter listing would do it in one request, but the local S3 emulator ignores delimiters.
 */
export const listExportNames = async (
  s3: S3Client,
  bucket: string,
  prefix: string,
): Promise<string[]> => {
  const folder = prefix === '' ? '' : `${prefix}/`;
  const names: string[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await s3.send(
      new ListObjectsCommand({
        Bucket: bucket,
        Prefix: folder,
        MaxKeys: 1,
        ...(marker === undefined ? {} : { Marker: marker }),
      }),
    );
    const key = page.Contents?.[0]?.Key;
    if (key === undefined) return names;
    const name = key.slice(folder.length).split('/')[0];
    const isFolder = key.length > folder.length + name.length;
    if (isFolder) names.push(name);
    marker = `${folder}${name}${isFolder ? '0' : ''}`;
  }
};

/** Source ids of the exports `<prefix>/<name>` (see `sourceIdOf`). */
export const sourceIdsOf = (bucket: string, prefix: string, exportNames: readonly string[]) =>
  exportNames.map((name) => sourceIdOf(bucket, prefix === '' ? name : `${prefix}/${name}`));

/** Newest first: the order that decides which execution is current. */
const newestFirst = <T extends { order: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => b.order.localeCompare(a.order));

export const readExportStatus = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  scope: { tenant: string; period: string; sources: readonly string[] },
): Promise<SourceStatus[]> => {
  const store = new ExportStore({ client: dynamo, ledgerTable });
  const pointers = new Map(
    await Promise.all(
      scope.sources.map(
        async (source) =>
          [source, await store.readCurrent(scope.tenant, source, scope.period)] as const,
      ),
    ),
  );
  // The listed sources, and those of the period listed elsewhere (another prefix, a given --source).
  const registered = await new PeriodSources({ client: dynamo, ledgerTable }).ranks(
    scope.tenant,
    scope.period,
  );
  const ranks = [
    ...[...pointers].flatMap(([source, pointer]) => (pointer ? [sourceRank(source, pointer)] : [])),
    ...registered.filter((rank) => !pointers.has(rank.source)),
  ];
  return Promise.all(
    scope.sources.map(async (source) => {
      const executions = await store.listExecutions(scope.tenant, source, scope.period);
      const pointer = pointers.get(source);
      return {
        source,
        ...(pointer ? { shadowing: shadowingAmong(ranks, sourceRank(source, pointer)) } : {}),
        executions: await Promise.all(
          newestFirst(executions).map(async (execution) =>
            execution.rejectedRows > 0
              ? { ...execution, rejections: await store.readRejections(execution) }
              : execution,
          ),
        ),
      };
    }),
  );
};

export const readExportDiffs = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  scope: { tenant: string; period: string; sources: readonly string[]; threshold: string },
): Promise<SourceDiffs[]> => {
  const store = new ExportStore({ client: dynamo, ledgerTable });
  return Promise.all(
    scope.sources.map(async (source) => {
      const diffs = await store.readDiffs(scope.tenant, source, scope.period);
      return {
        source,
        diffs: diffs
          .sort((a, b) => b.switchedAt.localeCompare(a.switchedAt))
          .map((diff) => ({
            ...diff,
            notifications: changeNotifications(diff, {
              tenant: scope.tenant,
              period: scope.period,
              threshold: scope.threshold,
            }),
          })),
      };
    }),
  );
};

/** Reasons by number of rows, most first. */
export const topReasons = (
  rejectedByReason: Record<string, number>,
  limit: number,
): [string, number][] =>
  Object.entries(rejectedByReason)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, limit);
