/**
 * Replaying a tenant's billing period from the evidence archive: its archived cost events read back and
 * chosen once each (`core/archive-read.ts`), then either re-published through the cost topic or run
 * through the real cost processor into a fresh ledger table and compared with the live one.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ScanCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ExportSourceConfig } from '../../contract/export-sources';
import { COST_STREAM } from '../../contract/streams';
import { ledgerTableKeySchema } from '../../contract/tables';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readAllTotals, readPartitionCharges } from '../../lambda/adapters/ledger-reader';
import { readArchivedRecords } from '../../lambda/adapters/s3-archive-reader';
import { ledgerPartitionKeyOf } from '../../lambda/adapters/table-layout';
import { archivePrefixOf } from '../../lambda/core/archive';
import {
  messagesOf,
  publishedFormOf,
  rebuildSteps,
  selectCostEvents,
  type ArchivedMessage,
  type CostEventSelection,
} from '../../lambda/core/archive-read';
import { processCostBatch } from '../../lambda/core/cost-processor';
import {
  compareLedgers,
  type AccountTotal,
  type LedgerComparison,
} from '../../lambda/core/ledger-comparison';
import { ArchivedTenant } from '../../lambda/core/tenant-binding';
import type {
  DeadLetterPort,
  LateChargePolicy,
  PeriodStatus,
  Rejection,
  SqsRecordInput,
} from '../../lambda/core/ports';
import { UsageError } from '../errors';
import type { InputItem } from '../input';
import { readLiveExecutions, replayExecution, type LiveExecution } from './export-rebuild';

export interface ArchivedCostEvents extends CostEventSelection {
  prefix: string;
  /** Archived records read (every copy of every message). */
  records: number;
}

/** The archived cost events of a tenant's period, chosen for a replay (each charge content once, send order). */
export const readArchivedCostEvents = async (
  s3: S3Client,
  bucket: string,
  tenant: string,
  period: string,
): Promise<ArchivedCostEvents> => {
  const prefix = archivePrefixOf(COST_STREAM, tenant, period);
  const records = await readArchivedRecords(s3, bucket, prefix);
  return { prefix, records: records.length, ...selectCostEvents(messagesOf(records)) };
};

/** The chosen events as publish input, numbered from 1 in replay order. */
export const replayInput = (events: readonly ArchivedMessage[]): InputItem[] =>
  events.map((event, index) => {
    const { body, attributes } = publishedFormOf(event.record);
    return { kind: 'message', message: { line: index + 1, body, attributes } };
  });

/** The rejections of a rebuild, kept: a rebuild sends nothing to any queue. */
class RebuildRejections implements DeadLetterPort {
  readonly reasons: { messageId: string; reason: string }[] = [];
  send(record: SqsRecordInput, rejection: Rejection): Promise<void> {
    this.reasons.push({ messageId: record.messageId, reason: rejection.reason });
    return Promise.resolve();
  }
}

const exists = async (dynamo: DynamoDBClient, table: string): Promise<boolean> => {
  try {
    await dynamo.send(new DescribeTableCommand({ TableName: table }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
};

/**
 * The rebuild's table: created with the ledger's key schema (on-demand) when missing; an existing one
 * must be empty, so that what it holds afterwards is the archive's doing alone.
 */
export const prepareRebuildTable = async (
  dynamo: DynamoDBClient,
  table: string,
  liveTable: string,
): Promise<'created' | 'empty'> => {
  if (table === liveTable)
    throw new UsageError(`--rebuild-into ${table} is the live ledger: name a fresh table`);
  if (await exists(dynamo, table)) {
    const page = await dynamo.send(new ScanCommand({ TableName: table, Limit: 1 }));
    if ((page.Items ?? []).length > 0)
      throw new UsageError(
        `--rebuild-into ${table} holds items: a rebuild needs a fresh table (name one that does not exist, it is created)`,
      );
    return 'empty';
  }
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      ...ledgerTableKeySchema(),
    }),
  );
  await waitUntilTableExists({ client: dynamo, maxWaitTime: 300 }, { TableName: table });
  return 'created';
};

export interface RebuildOptions {
  dynamo: DynamoDBClient;
  /** Reads the export bucket: the live executions' data files at their pinned versions. */
  s3: S3Client;
  tenant: string;
  /** The periods rebuilt and compared (the events are theirs); one for the CLI. */
  periods: readonly string[];
  liveTable: string;
  table: string;
  policy: LateChargePolicy;
  /** The stage's `exportSources`, for the provider of export rows without ProviderName. */
  configured?: readonly ExportSourceConfig[];
}

export interface RebuildResult {
  /** Outcome counts of the archived events run through the cost processor. */
  outcomes: Record<string, number>;
  rejections: { messageId: string; reason: string }[];
  /** Closes of the live ledger's periods of the tenant, repeated at the moment they happened. */
  closes: number;
  /** Voids of the live ledger (its audited `charge void` actions) applied to the rebuilt charges. */
  voids: number;
  /** Export executions the live ledger switched in, run again on their pinned file versions. */
  exports: number;
  /** Every period's full statement totals (stream and export), all periods together. */
  comparison: LedgerComparison;
  byPeriod: { period: string; comparison: LedgerComparison }[];
}

const BATCH = 10;

/** The event as a raw-delivery record: the published message and attributes, the original SQS attributes. */
const recordOf = (event: ArchivedMessage): SqsRecordInput => {
  const { body, attributes } = publishedFormOf(event.record);
  return {
    messageId: event.messageId,
    body,
    attributes: event.record.attributes,
    messageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String' },
      ]),
    ),
  };
};

const accountsOf = async (
  periods: DynamoPeriods,
  tenant: string,
  period: string,
): Promise<string[]> =>
  (await periods.list({ tenant }))
    .filter((status) => status.period === period)
    .map((status) => status.accountId);

/**
 * Each account's full statement totals of the tenant's period, by the ledger total rule (stream totals,
 * the counted export snapshots; export-only accounts too). A scan: a rebuild is an operator's tool.
 */
const statementTotals = async (
  dynamo: DynamoDBClient,
  table: string,
  tenant: string,
  period: string,
): Promise<AccountTotal[]> =>
  (await readAllTotals(dynamo, table))
    .filter((row) => row.tenant === tenant && row.period === period)
    .map(({ accountId, currency, total, charges }) => ({ accountId, currency, total, charges }));

/**
 * Runs the chosen events through the cost processor (`processCostBatch` + `DynamoLedger`) into `table`
 * in the order the live consumer decided them, with the live closes and the live export switches (each
 * execution run again on its pinned files) at the moments they happened; applies the live ledger's
 * voids of the periods to the same charges; and compares the two ledgers' full statement totals of
 * every account of each period.
 */
export const rebuildLedger = async (
  events: readonly ArchivedMessage[],
  options: RebuildOptions,
): Promise<RebuildResult> => {
  const { dynamo, tenant, periods: rebuilt, table, liveTable, policy } = options;
  const ledger = new DynamoLedger({ client: dynamo, ledgerTable: table });
  const periods = new DynamoPeriods({ client: dynamo, ledgerTable: table });
  const livePeriods = new DynamoPeriods({ client: dynamo, ledgerTable: liveTable });
  const rejections = new RebuildRejections();
  const outcomes: Record<string, number> = {};
  const closes = (await livePeriods.list({ tenant }))
    .filter((status) => status.state === 'closed' && status.closedAt !== undefined)
    .map((status) => ({ key: status, closedAt: status.closedAt as string }));
  const executions = await readLiveExecutions(dynamo, liveTable, tenant, rebuilt);
  let closed = 0;
  let exported = 0;
  const switches = executions.map((execution) => ({
    key: execution,
    switchedAt: execution.switchedAt,
  }));
  for (const step of rebuildSteps<PeriodStatus, LiveExecution>(events, closes, BATCH, switches)) {
    if (step.kind === 'export') {
      await replayExecution(step.key, { ...options, table });
      exported += 1;
      continue;
    }
    if (step.kind === 'close') {
      const { key } = step;
      if ((await periods.stateOf(key)) === 'closed') continue; // closed by an earlier rebuild into this table
      await periods.close(
        { tenant: key.tenant, accountId: key.accountId, period: key.period },
        key.closedBy ?? 'unknown',
        key.closeReason ?? 'closed in the live ledger',
        { force: true },
      );
      closed += 1;
      continue;
    }
    const batch = step.events;
    const outcome = await processCostBatch(batch.map(recordOf), {
      fifo: (batch[0].record.eventSourceARN ?? '').endsWith('.fifo'),
      concurrency: 1,
      ledger,
      deadLetters: rejections,
      periods,
      lateChargePolicy: policy,
      // A message its tenant's topic delivered names no tenant: bound to the archive's, as it was live.
      tenants: new ArchivedTenant(tenant),
    });
    for (const result of outcome.results)
      outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
    if (outcome.batchItemFailures.length > 0)
      throw new Error(
        `the cost processor could not book ${outcome.batchItemFailures.length} archived event(s) ` +
          `(${outcome.results.find((result) => result.outcome === 'failed')?.reason ?? 'failed'}); ` +
          'rerun into a fresh table',
      );
  }
  let voids = 0;
  const byPeriod: RebuildResult['byPeriod'] = [];
  for (const period of rebuilt) {
    voids += await repeatVoids(dynamo, { liveTable, tenant, period, policy }, periods, livePeriods);
    byPeriod.push({
      period,
      comparison: compareLedgers(
        await statementTotals(dynamo, liveTable, tenant, period),
        await statementTotals(dynamo, table, tenant, period),
      ),
    });
  }
  return {
    outcomes,
    rejections: rejections.reasons,
    closes: closed,
    voids,
    exports: exported,
    comparison: {
      equal: byPeriod.reduce((sum, p) => sum + p.comparison.equal, 0),
      differences: byPeriod.flatMap((p) => p.comparison.differences),
    },
    byPeriod,
  };
};

/** The live ledger's voids of a tenant's period, applied to the same rebuilt charges. */
const repeatVoids = async (
  dynamo: DynamoDBClient,
  scope: { liveTable: string; tenant: string; period: string; policy: LateChargePolicy },
  periods: DynamoPeriods,
  livePeriods: DynamoPeriods,
): Promise<number> => {
  const { liveTable, tenant, period, policy } = scope;
  const accounts = [
    ...new Set([
      ...(await accountsOf(livePeriods, tenant, period)),
      ...(await accountsOf(periods, tenant, period)),
    ]),
  ].sort();
  let voids = 0;
  for (const accountId of accounts) {
    const charges = await readPartitionCharges(
      dynamo,
      liveTable,
      ledgerPartitionKeyOf(tenant, accountId, period),
    );
    for (const charge of charges.filter((candidate) => candidate.voidedAt !== undefined)) {
      await periods.voidCharge({
        tenant,
        accountId,
        period,
        chargeSk: charge.sk,
        by: charge.voidedBy ?? 'unknown',
        reason: charge.voidReason ?? 'voided in the live ledger',
        policy,
      });
      voids += 1;
    }
  }
  return voids;
};
