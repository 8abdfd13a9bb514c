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
import { COST_STREAM } from '../../contract/streams';
import { ledgerTableKeySchema } from '../../contract/tables';
import { DynamoLedger } from '../../lambda/adapters/dynamo-ledger';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import {
  readPartitionCharges,
  readStatementItems,
  streamTotalsOf,
} from '../../lambda/adapters/ledger-reader';
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
import { statementRows } from '../../lambda/core/ledger-total';
import { ArchivedTenant } from '../../lambda/core/tenant-binding';
import type {
  DeadLetterPort,
  LateChargePolicy,
  Rejection,
  SqsRecordInput,
} from '../../lambda/core/ports';
import { UsageError } from '../errors';
import type { InputItem } from '../input';

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
  tenant: string;
  period: string;
  liveTable: string;
  table: string;
  policy: LateChargePolicy;
}

export interface RebuildResult {
  /** Outcome counts of the archived events run through the cost processor. */
  outcomes: Record<string, number>;
  rejections: { messageId: string; reason: string }[];
  /** Closes of the live ledger's periods of the tenant, repeated at the moment they happened. */
  closes: number;
  /** Voids of the live ledger (its audited `charge void` actions) applied to the rebuilt charges. */
  voids: number;
  comparison: LedgerComparison;
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

/** Each account's stream totals of the period (export snapshots left out: the rebuild has none). */
const streamTotals = async (
  dynamo: DynamoDBClient,
  table: string,
  tenant: string,
  period: string,
  accounts: readonly string[],
): Promise<AccountTotal[]> => {
  const rows: AccountTotal[] = [];
  for (const accountId of accounts) {
    const { totals } = await readStatementItems(
      dynamo,
      table,
      ledgerPartitionKeyOf(tenant, accountId, period),
    );
    for (const row of statementRows(totals.flatMap(streamTotalsOf), [], [], []))
      rows.push({ accountId, currency: row.currency, total: row.total, charges: row.charges });
  }
  return rows;
};

/**
 * Runs the chosen events through the cost processor (`processCostBatch` + `DynamoLedger`) into `table`
 * in send order, applies the live ledger's voids of the period to the same charges, and compares the
 * two ledgers' stream totals of every account of the tenant's period.
 */
export const rebuildLedger = async (
  events: readonly ArchivedMessage[],
  options: RebuildOptions,
): Promise<RebuildResult> => {
  const { dynamo, tenant, period, table, liveTable, policy } = options;
  const ledger = new DynamoLedger({ client: dynamo, ledgerTable: table });
  const periods = new DynamoPeriods({ client: dynamo, ledgerTable: table });
  const livePeriods = new DynamoPeriods({ client: dynamo, ledgerTable: liveTable });
  const rejections = new RebuildRejections();
  const outcomes: Record<string, number> = {};
  const closes = (await livePeriods.list({ tenant }))
    .filter((status) => status.state === 'closed' && status.closedAt !== undefined)
    .map((status) => ({ key: status, closedAt: status.closedAt as string }));
  let closed = 0;
  for (const step of rebuildSteps(events, closes, BATCH)) {
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
  const comparison = compareLedgers(
    await streamTotals(dynamo, liveTable, tenant, period, accounts),
    await streamTotals(dynamo, table, tenant, period, accounts),
  );
  return { outcomes, rejections: rejections.reasons, closes: closed, voids, comparison };
};
