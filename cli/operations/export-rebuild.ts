/**
 * The export side of a rebuild: the live ledger's export executions of a tenant's periods that switched
 * in, read from their EXEC items (archived manifests carry no pins: the plans do), and each one run
 * again into the rebuilt table as the stage ran it — the plan recorded (`ExportStore.recordPlan`), every
 * task through `runExportTask` on the file versions the plan pinned, the switch and its correction pass
 * of closed periods booked through the cost path.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ExportSourceConfig } from '../../contract/export-sources';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { ExportObjects } from '../../lambda/adapters/export-objects';
import { planOfItem } from '../../lambda/adapters/export-items';
import { ExportStore } from '../../lambda/adapters/export-store';
import { scanAll } from '../../lambda/adapters/paged-query';
import { S3Objects } from '../../lambda/adapters/s3-objects';
import {
  CURRENT_SK,
  EXECUTION_PREFIX,
  LEDGER_SK,
  SNAPSHOT_PREFIX,
  exportPartitionKey,
  ledgerKeyOf,
} from '../../lambda/adapters/table-layout';
import { bookThroughCostPath } from '../../lambda/core/exports/late-correction-pass';
import type { ExecutionPlan } from '../../lambda/core/exports/plan';
import { runExportTask } from '../../lambda/core/exports/run-task';
import type { LateChargePolicy } from '../../lambda/core/ports';
import { bucketOf, providerOf } from './export-row-evidence';

/** A live execution that became current, with what its switch recorded. */
export interface LiveExecution {
  plan: ExecutionPlan;
  /** When it became current live: where the rebuild runs it among events and closes. */
  switchedAt: string;
  /** The provider its live SNAPSHOT items say it supersedes (absent: additive, or no account). */
  supersedes?: string;
  /** The source's declared precedence, as its live CURRENT pointer records it. */
  precedence?: number;
}

/** The tenant's EXEC, SNAPSHOT and CURRENT items (a scan: a rebuild is an operator's tool). */
const scanExportItems = (
  dynamo: DynamoDBClient,
  table: string,
  tenant: string,
): Promise<Record<string, AttributeValue>[]> =>
  scanAll(dynamo, {
    TableName: table,
    FilterExpression: `tenant = :tenant AND (begins_with(${LEDGER_SK}, :exec) OR begins_with(${LEDGER_SK}, :snapshot) OR ${LEDGER_SK} = :current)`,
    ExpressionAttributeValues: {
      ':tenant': { S: tenant },
      ':exec': { S: EXECUTION_PREFIX },
      ':snapshot': { S: SNAPSHOT_PREFIX },
      ':current': { S: CURRENT_SK },
    },
    ConsistentRead: true,
  });

/**
 * The executions of `tenant`'s `periods` that the live ledger switched in (current or superseded since),
 * oldest switch first. Planned, failed and never-current executions changed no total and are left out.
 */
export const readLiveExecutions = async (
  dynamo: DynamoDBClient,
  liveTable: string,
  tenant: string,
  periods: readonly string[],
): Promise<LiveExecution[]> => {
  const items = (await scanExportItems(dynamo, liveTable, tenant)).filter((item) =>
    periods.includes(item.period?.S ?? ''),
  );
  const supersedes = new Map<string, string>();
  const precedence = new Map<string, number>();
  for (const item of items) {
    const { pk, sk } = ledgerKeyOf(item);
    if (sk.startsWith(SNAPSHOT_PREFIX) && item.supersedes?.S)
      supersedes.set(`${item.source?.S}#${item.executionId?.S}`, item.supersedes.S);
    if (sk === CURRENT_SK && item.precedence?.N) precedence.set(pk, Number(item.precedence.N));
  }
  return items
    .filter(
      (item) =>
        ledgerKeyOf(item).sk.startsWith(EXECUTION_PREFIX) &&
        item.tasksTotal !== undefined &&
        item.switchedAt?.S !== undefined,
    )
    .map((item): LiveExecution => {
      const plan = planOfItem(item);
      const provider = supersedes.get(`${plan.source}#${plan.executionId}`);
      const declared = precedence.get(exportPartitionKey(plan.tenant, plan.source, plan.period));
      return {
        plan,
        switchedAt: item.switchedAt?.S ?? '',
        ...(provider === undefined ? {} : { supersedes: provider }),
        ...(declared === undefined ? {} : { precedence: declared }),
      };
    })
    .sort((a, b) => (a.switchedAt < b.switchedAt ? -1 : a.switchedAt > b.switchedAt ? 1 : 0));
};

export interface ExportReplayOptions {
  dynamo: DynamoDBClient;
  s3: S3Client;
  /** The rebuilt table. */
  table: string;
  policy: LateChargePolicy;
  /** The stage's `exportSources`, for the provider of rows without ProviderName (default `aws`). */
  configured?: readonly ExportSourceConfig[];
}

/** Rows per committed sub-chunk of a CSV task in the rebuild (the totals do not depend on it). */
const SUB_CHUNK_ROWS = 10_000;

/** Runs one live execution again into the rebuilt table; throws when a pinned file cannot be read. */
export const replayExecution = async (
  live: LiveExecution,
  options: ExportReplayOptions,
): Promise<void> => {
  const { dynamo, table, policy } = options;
  const { plan } = live;
  const store = new ExportStore({ client: dynamo, ledgerTable: table });
  const objects = new ExportObjects(new S3Objects(options.s3));
  const ledger = new DynamoLedger({ client: dynamo, ledgerTable: table });
  const periods = new DynamoPeriods({ client: dynamo, ledgerTable: table });
  const corrections = {
    store,
    book: bookThroughCostPath({ concurrency: 1, ledger, periods, lateChargePolicy: policy }),
  };
  const bucket = bucketOf(plan.source);
  await store.recordPlan(plan);
  const ref = {
    tenant: plan.tenant,
    source: plan.source,
    period: plan.period,
    executionId: plan.executionId,
  };
  for (const task of plan.tasks) {
    const report = await runExportTask({
      ref,
      task,
      store,
      openRows: (opened, fromRow) => objects.rowsOf(bucket, opened, fromRow),
      context: {
        tenant: plan.tenant,
        billingPeriod: plan.period,
        source: live.supersedes ?? providerOf(options.configured ?? [], bucket, plan.manifestKey),
      },
      subChunkRows: SUB_CHUNK_ROWS,
      corrections,
      ...(live.precedence === undefined ? {} : { precedence: live.precedence }),
      ...(live.supersedes === undefined ? {} : { supersedes: live.supersedes }),
    });
    if (report.failed)
      throw new Error(
        `export execution ${plan.executionId} cannot be rebuilt: ${report.failed} (rerun into a fresh table)`,
      );
  }
};
