import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { decimalOf } from './dynamo-kit/attributes';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';
import { BATCH_GET_LIMIT, batchGetKeys } from './dynamo-kit/batch';
import { queryAll, queryBySortKeyPrefix } from './paged-query';
import { snapshotTotalsOf } from './export-items';
import {
  statementRows,
  type Correction,
  type CurrentSnapshot,
  type PeriodInfo,
  type SnapshotPart,
  type SourceTotal,
  type StatementRow,
} from '../core/ledger-total';
import {
  CHARGE_PREFIX,
  CURRENT_SK,
  EXPORT_PREFIX,
  LEDGER_PK,
  LEDGER_SK,
  PERIOD_SK,
  SNAPSHOT_PREFIX,
  TOTAL_PREFIX,
  exportPartitionKey,
  isTotalShardSortKey,
  ledgerKey,
  ledgerKeyOf,
  provisionalAttributeOf,
  shardAttribute,
  sourceTotalAttributeOf,
} from './table-layout';

/** Read side of the ledger table for statements and reports: exact decimal strings, never floats. */

/** A statement row: a stream total, or one with its authoritative export snapshot added. */
export type LedgerTotal = StatementRow;

export interface LedgerCharge {
  sk: string;
  identityKind: string;
  identityId: string;
  version: number;
  amount: string;
  currency: string;
  chargePeriodStart: string;
  chargeCategory: string;
  chargeClass?: string;
  service?: string;
  skuId?: string;
  description?: string;
  /** The later period whose totals took it (its own was closed). */
  bookedIn?: string;
  voidedAt?: string;
  voidedBy?: string;
  voidReason?: string;
}

const SHARD_TOTAL = /^total:(.+)$/;
const SHARD_CORRECTED = /^corrected:(\d{4}-\d{2}):(.+)$/;

/**
 * The stream totals of one `TOTAL#` item, per currency: a shard (`TOTAL#00`..`TOTAL#31`, every currency
 * as `total:<cur>` / `charges:<cur>`, corrections as `corrected:<period>:<cur>`, the part of the period's
 * own charges of each source as `total@<source>:<cur>` / `charges@<source>:<cur>`, late provisional
 * charges as `provisional@<source>:<cur>`, listed and never added) or a per-currency item of earlier
 * versions (`TOTAL#<cur>`, attributed to no source).
 */
export const streamTotalsOf = (item: Record<string, AttributeValue>): StatementRow[] => {
  const scope = {
    tenant: item.tenant?.S ?? '',
    accountId: item.accountId?.S ?? '',
    period: item.period?.S ?? '',
  };
  if (!isTotalShardSortKey(ledgerKeyOf(item).sk)) {
    return [
      {
        ...scope,
        currency: item.currency?.S ?? '',
        total: decimalOf(item.total),
        charges: Number(item.charges?.N ?? '0'),
      },
    ];
  }
  const corrections = new Map<string, Correction[]>();
  for (const [name, value] of Object.entries(item)) {
    const match = SHARD_CORRECTED.exec(name);
    if (!match) continue;
    const [, of, currency] = match;
    corrections.set(currency, [
      ...(corrections.get(currency) ?? []),
      {
        of,
        total: decimalOf(value),
        charges: Number(item[`correctedCharges:${of}:${currency}`]?.N ?? '0'),
      },
    ]);
  }
  const sources = new Map<string, SourceTotal[]>();
  for (const [name, value] of Object.entries(item)) {
    const attribute = sourceTotalAttributeOf(name);
    if (!attribute) continue;
    const { source, currency } = attribute;
    sources.set(currency, [
      ...(sources.get(currency) ?? []),
      {
        source,
        total: decimalOf(value),
        charges: Number(item[shardAttribute.sourceCharges(source, currency)]?.N ?? '0'),
      },
    ]);
  }
  const late = new Map<string, SourceTotal[]>();
  for (const [name, value] of Object.entries(item)) {
    const attribute = provisionalAttributeOf(name);
    if (!attribute) continue;
    const { source, currency } = attribute;
    late.set(currency, [
      ...(late.get(currency) ?? []),
      {
        source,
        total: decimalOf(value),
        charges: Number(item[shardAttribute.provisionalCharges(source, currency)]?.N ?? '0'),
      },
    ]);
  }
  const currencies = new Set(
    Object.keys(item).flatMap((name) => SHARD_TOTAL.exec(name)?.[1] ?? []),
  );
  for (const currency of late.keys()) currencies.add(currency);
  return [...currencies].map((currency) => {
    const mine = corrections.get(currency) ?? [];
    const bySource = sources.get(currency) ?? [];
    const provisional = late.get(currency) ?? [];
    const total = item[shardAttribute.total(currency)];
    return {
      ...scope,
      currency,
      total: total ? decimalOf(total) : '0',
      charges: Number(item[`charges:${currency}`]?.N ?? '0'),
      ...(mine.length > 0 ? { corrections: mine } : {}),
      ...(bySource.length > 0 ? { sources: bySource } : {}),
      ...(provisional.length > 0 ? { lateProvisional: provisional } : {}),
    };
  });
};

/** What a statement needs of a PERIOD item: its state and the snapshots pinned at close. */
export const periodInfoOf = (item: Record<string, AttributeValue>): PeriodInfo => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  state: item.state?.S === 'closed' ? 'closed' : 'open',
  closedOnce: Number(item.closeCount?.N ?? '0') > 0,
  pinned: Object.fromEntries(
    Object.entries(item.pinned?.M ?? {}).map(([source, value]) => [source, value.S ?? '']),
  ),
  ...(item.authoritative?.S ? { authoritative: item.authoritative.S } : {}),
});

const chargeOf = (item: Record<string, AttributeValue>): LedgerCharge => ({
  sk: ledgerKeyOf(item).sk,
  identityKind: item.identityKind?.S ?? '',
  identityId: item.identityId?.S ?? '',
  version: Number(item.version?.N ?? '0'),
  amount: decimalOf(item.amount),
  currency: item.currency?.S ?? '',
  chargePeriodStart: item.chargePeriodStart?.S ?? '',
  chargeCategory: item.chargeCategory?.S ?? '',
  ...(item.chargeClass?.S ? { chargeClass: item.chargeClass.S } : {}),
  ...(item.service?.S ? { service: item.service.S } : {}),
  ...(item.skuId?.S ? { skuId: item.skuId.S } : {}),
  ...(item.description?.S ? { description: item.description.S } : {}),
  ...(item.bookedIn?.S ? { bookedIn: item.bookedIn.S } : {}),
  ...(item.voidedAt?.S ? { voidedAt: item.voidedAt.S } : {}),
  ...(item.voidedBy?.S ? { voidedBy: item.voidedBy.S } : {}),
  ...(item.voidReason?.S ? { voidReason: item.voidReason.S } : {}),
});

export const snapshotPartOf = (item: Record<string, AttributeValue>): SnapshotPart => ({
  tenant: item.tenant?.S ?? '',
  accountId: item.accountId?.S ?? '',
  period: item.period?.S ?? '',
  source: item.source?.S ?? '',
  executionId: item.executionId?.S ?? '',
  totals: snapshotTotalsOf(item),
  ...(item.supersedes?.S ? { supersedes: item.supersedes.S } : {}),
});

export const currentOf = (item: Record<string, AttributeValue>): CurrentSnapshot => ({
  tenant: item.tenant?.S ?? '',
  source: item.source?.S ?? '',
  period: item.period?.S ?? '',
  executionId: item.executionId?.S ?? '',
  ...(item.firstSwitchedAt?.S ? { firstSwitchedAt: item.firstSwitchedAt.S } : {}),
  ...(item.precedence?.N ? { precedence: Number(item.precedence.N) } : {}),
});

/** Back-off before asking again for unprocessed keys, when the caller brings none of its own. */
const READ_BACKOFF = jitteredBackoff({ baseMs: 20, capMs: 1_000 });

/** The CURRENT pointers of the export sources the snapshot items name (one BatchGetItem per 100). */
export const readCurrentPointers = async (
  client: DynamoDBClient,
  table: string,
  parts: SnapshotPart[],
  backoff: Backoff = READ_BACKOFF,
): Promise<CurrentSnapshot[]> => {
  const pks = [
    ...new Set(parts.map((part) => exportPartitionKey(part.tenant, part.source, part.period))),
  ];
  const pointers: CurrentSnapshot[] = [];
  for (let start = 0; start < pks.length; start += BATCH_GET_LIMIT) {
    await batchGetKeys(
      client,
      table,
      pks.slice(start, start + BATCH_GET_LIMIT).map((pk) => ledgerKey(pk, CURRENT_SK)),
      undefined,
      (items) => pointers.push(...items.map(currentOf)),
      backoff,
    );
  }
  return pointers;
};

/**
 * The items of one ledger partition a statement is made of, in one consistent query: the PERIOD item,
 * its audit records (few), the SNAPSHOT items and the TOTAL items (sort keys PERIOD … TOTAL#\uffff).
 */
export const readStatementItems = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<{
  period?: Record<string, AttributeValue>;
  snapshots: Record<string, AttributeValue>[];
  totals: Record<string, AttributeValue>[];
}> => {
  const items = await queryAll(client, {
    TableName: table,
    KeyConditionExpression: `${LEDGER_PK} = :pk AND ${LEDGER_SK} BETWEEN :first AND :last`,
    ExpressionAttributeValues: {
      ':pk': { S: pk },
      ':first': { S: PERIOD_SK },
      ':last': { S: `${TOTAL_PREFIX}\uffff` },
    },
    ConsistentRead: true,
  });
  const prefixed = (prefix: string) =>
    items.filter((item) => ledgerKeyOf(item).sk.startsWith(prefix));
  const period = items.find((item) => ledgerKeyOf(item).sk === PERIOD_SK);
  return {
    ...(period ? { period } : {}),
    snapshots: prefixed(SNAPSHOT_PREFIX),
    totals: prefixed(TOTAL_PREFIX),
  };
};

/**
 * A statement of one ledger partition (tenant, account, period): per currency, the stream total plus
 * each export source's pinned or current snapshot, and the period's status (the ledger total rule,
 * `core/ledger-total.ts`).
 */
export const readPartitionTotals = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerTotal[]> => {
  const { period, snapshots, totals } = await readStatementItems(client, table, pk);
  const parts = snapshots.map(snapshotPartOf);
  return statementRows(
    totals.flatMap(streamTotalsOf),
    parts,
    await readCurrentPointers(client, table, parts),
    period ? [periodInfoOf(period)] : [],
  );
};

export const readPartitionCharges = async (
  client: DynamoDBClient,
  table: string,
  pk: string,
): Promise<LedgerCharge[]> =>
  (await queryBySortKeyPrefix(client, table, pk, CHARGE_PREFIX)).map(chargeOf);

/**
 * Every statement row in the table — stream totals plus current export snapshots, by the ledger total
 * rule (local runs and small ledgers; a full scan).
 */
export const readAllTotals = async (
  client: DynamoDBClient,
  table: string,
): Promise<LedgerTotal[]> => {
  const streamTotals: LedgerTotal[] = [];
  const parts: SnapshotPart[] = [];
  const pointers: CurrentSnapshot[] = [];
  const periods: PeriodInfo[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: `begins_with(${LEDGER_SK}, :total) OR begins_with(${LEDGER_SK}, :snapshot) OR ${LEDGER_SK} = :period OR (${LEDGER_SK} = :current AND begins_with(${LEDGER_PK}, :export))`,
        ExpressionAttributeValues: {
          ':total': { S: TOTAL_PREFIX },
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
      const { sk } = ledgerKeyOf(item);
      if (sk.startsWith(TOTAL_PREFIX)) streamTotals.push(...streamTotalsOf(item));
      else if (sk === PERIOD_SK) periods.push(periodInfoOf(item));
      else if (sk.startsWith(SNAPSHOT_PREFIX)) parts.push(snapshotPartOf(item));
      else pointers.push(currentOf(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return statementRows(streamTotals, parts, pointers, periods).sort((a, b) =>
    `${a.tenant}|${a.accountId}|${a.period}|${a.currency}`.localeCompare(
      `${b.tenant}|${b.accountId}|${b.period}|${b.currency}`,
    ),
  );
};
