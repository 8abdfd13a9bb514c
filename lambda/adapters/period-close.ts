/**
 * Closing and reopening a period in the ledger table (docs/ledger.md): the closed stamp on every total
 * shard, the PERIOD item and its audit records. What a close pins is core/period-actions.ts.
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { PeriodError } from '../core/errors';
import { closeRefusal } from '../core/period-close-rule';
import {
  checkPeriodKey,
  checkReason,
  describePeriod,
  pinsAtFirstClose,
} from '../core/period-actions';
import { statementRows } from '../core/ledger-total';
import type { CloseOptions, PeriodKey, PeriodStatus } from '../core/ports';
import { N, S, type Item } from './dynamo-kit/attributes';
import {
  periodInfoOf,
  readCurrentPointers,
  readStatementItems,
  snapshotPartOf,
  streamTotalsOf,
} from './ledger-reader';
import {
  auditPut,
  partitionOf,
  periodItem,
  statusOf,
  totalsMap,
  transact,
  type PeriodTable,
} from './period-table';
import {
  CURRENT_SK,
  LEDGER_PK,
  MAX_TOTAL_SHARDS,
  PERIOD_SK,
  exportPartitionKey,
  ledgerKey,
  ledgerKeyOf,
  partitionItemKindOf,
  periodAuditSortKey,
  totalShardSortKey,
} from './table-layout';

/**
 * Two phases, exact under any write rate. Phase 1 stamps `closedAt` on all 32 shards with no
 * condition on what they hold: every commit's shard update requires the stamp absent, so each commit
 * lands wholly before it (and is in the shards) or wholly after it (refused, booked elsewhere).
 * Phase 2 reads the now frozen shards and records the totals at close. A closed period without them
 * (the closer stopped between phases) is completed by the next close or status.
 */
export const close = async (
  t: PeriodTable,
  key: PeriodKey,
  by: string,
  reason: string,
  options: CloseOptions = {},
): Promise<PeriodStatus> => {
  checkPeriodKey(key);
  const why = reason.trim();
  for (let attempt = 1; attempt <= t.maxAttempts; attempt++) {
    if (attempt > 1) await t.pause(attempt - 1);
    const { period, snapshots, totals } = await readStatementItems(
      t.client,
      t.table,
      partitionOf(key),
    );
    if (period?.state?.S === 'closed') {
      if (period.totalsAtClose === undefined) return completeClose(t, key);
      throw new PeriodError('already-closed', `${describePeriod(key)} is already closed`);
    }
    const refusal = closeRefusal({
      period: key.period,
      now: t.now(),
      kinds: [...totals, ...snapshots].flatMap(
        (item) => partitionItemKindOf(ledgerKeyOf(item).sk) ?? [],
      ),
      closedBefore: Number(period?.closeCount?.N ?? '0') > 0,
      force: options.force === true,
    });
    if (refusal) throw new PeriodError(refusal.code, `${describePeriod(key)} ${refusal.reason}`);
    if (await freeze(t, key, period, snapshots, by, why)) return completeClose(t, key);
  }
  throw new PeriodError('busy', `${describePeriod(key)} is busy; try closing it again`);
};

/** Phase 1 of a close; false when a concurrent close, reopen or snapshot switch got in first. */
const freeze = async (
  t: PeriodTable,
  key: PeriodKey,
  period: Item | undefined,
  snapshots: Item[],
  by: string,
  reason: string,
): Promise<boolean> => {
  const table = t.table;
  const pk = partitionOf(key);
  const closeCount = Number(period?.closeCount?.N ?? '0');
  const pins = await pinsAtClose(t, key, period, snapshots);
  const closedAt = new Date(t.now()).toISOString();
  const count = closeCount + 1;
  const scope = {
    tenant: S(key.tenant),
    accountId: S(key.accountId),
    period: S(key.period),
  };
  const shards: TransactWriteItem[] = Array.from({ length: MAX_TOTAL_SHARDS }, (_, shard) => ({
    Update: {
      TableName: table,
      Key: ledgerKey(pk, totalShardSortKey(shard)),
      UpdateExpression:
        'SET closedAt = :at, closeCount = :count, seq = if_not_exists(seq, :zero), tenant = :tenant, accountId = :account, period = :period',
      ExpressionAttributeValues: {
        ':at': S(closedAt),
        ':count': N(count),
        ':zero': N(0),
        ':tenant': scope.tenant,
        ':account': scope.accountId,
        ':period': scope.period,
      },
    },
  }));
  const pinned: AttributeValue = {
    M: Object.fromEntries(Object.entries(pins.pinned).map(([s, id]) => [s, S(id)])),
  };
  const earlier: Item = { ...(period ?? {}) };
  delete earlier.totalsAtClose;
  const periodPut: TransactWriteItem = {
    Put: {
      TableName: table,
      Item: {
        ...earlier,
        ...ledgerKey(pk, PERIOD_SK),
        ...scope,
        pinned,
        ...(pins.authoritative ? { authoritative: S(pins.authoritative) } : {}),
        state: S('closed'),
        closedAt: S(closedAt),
        closedBy: S(by),
        closeReason: S(reason),
        closeCount: N(count),
      },
      ConditionExpression: `attribute_not_exists(${LEDGER_PK}) OR (#state <> :closed AND closeCount = :count)`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':closed': S('closed'), ':count': N(closeCount) },
    },
  };
  const audit = auditPut(t.table, pk, periodAuditSortKey(closedAt, count, 'close'), {
    ...scope,
    pinned,
    ...(pins.authoritative ? { authoritative: S(pins.authoritative) } : {}),
    action: S('close'),
    at: S(closedAt),
    by: S(by),
    reason: S(reason),
    closeCount: N(count),
  });
  return !(await transact(t, [...shards, periodPut, audit, ...pins.checks]));
};

/**
 * The snapshots a close pins: at the first close, the CURRENT execution of each source with a
 * snapshot in the partition, checked unchanged (or still absent) by the close transaction; the pins
 * of the first close afterwards — corrections booked elsewhere were computed against them, and a
 * source with none counts nothing in this period for good.
 */
const pinsAtClose = async (
  t: PeriodTable,
  key: PeriodKey,
  period: Item | undefined,
  snapshots: Item[],
): Promise<{
  pinned: Record<string, string>;
  authoritative?: string;
  checks: TransactWriteItem[];
}> => {
  if (period && periodInfoOf(period).closedOnce) {
    const { pinned, authoritative } = periodInfoOf(period);
    return { pinned, ...(authoritative ? { authoritative } : {}), checks: [] };
  }
  const parts = snapshots.map(snapshotPartOf);
  const pointers = await readCurrentPointers(t.client, t.table, parts, t.pause);
  // Fixed by the first close (the checks keep the pointers, hence their ranks, as read).
  const pins = pinsAtFirstClose(
    key,
    parts.map((part) => part.source),
    pointers,
  );
  const checks = pins.checks.map(({ source, executionId }): TransactWriteItem => ({
    ConditionCheck: {
      TableName: t.table,
      Key: ledgerKey(exportPartitionKey(key.tenant, source, key.period), CURRENT_SK),
      ...(executionId === undefined
        ? { ConditionExpression: 'attribute_not_exists(executionId)' }
        : {
            ConditionExpression: 'executionId = :execution',
            ExpressionAttributeValues: { ':execution': S(executionId) },
          }),
    },
  }));
  const { pinned, authoritative } = pins;
  return { pinned, ...(authoritative ? { authoritative } : {}), checks };
};

/**
 * Phase 2 of a close: the statement of the frozen shards (and pinned snapshots) as `totalsAtClose`,
 * on the PERIOD item and its close audit record, once. Idempotent; a no-op unless it is missing.
 */
export const completeClose = async (t: PeriodTable, key: PeriodKey): Promise<PeriodStatus> => {
  const table = t.table;
  const pk = partitionOf(key);
  const { period, snapshots, totals } = await readStatementItems(t.client, table, pk);
  if (period?.state?.S !== 'closed' || period.totalsAtClose !== undefined) {
    return statusOf(key, period, []);
  }
  const parts = snapshots.map(snapshotPartOf);
  // The pointers only rank the pinned sources (which one is authoritative); the pins say what counts.
  const pointers = await readCurrentPointers(t.client, table, parts, t.pause);
  const totalsAtClose = totalsMap(
    statementRows(totals.flatMap(streamTotalsOf), parts, pointers, [periodInfoOf(period)]).map(
      ({ currency, total, charges }) => ({ currency, total, charges }),
    ),
  );
  const count = period.closeCount ?? N(0);
  const codes = await transact(t, [
    {
      Update: {
        TableName: table,
        Key: ledgerKey(pk, PERIOD_SK),
        UpdateExpression: 'SET totalsAtClose = :totals',
        ConditionExpression:
          '#state = :closed AND closeCount = :count AND attribute_not_exists(totalsAtClose)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':totals': totalsAtClose,
          ':closed': S('closed'),
          ':count': count,
        },
      },
    },
    {
      Update: {
        TableName: table,
        Key: ledgerKey(pk, periodAuditSortKey(period.closedAt?.S ?? '', Number(count.N), 'close')),
        UpdateExpression: 'SET totalsAtClose = :totals',
        ConditionExpression: `attribute_exists(${LEDGER_PK}) AND attribute_not_exists(totalsAtClose)`,
        ExpressionAttributeValues: { ':totals': totalsAtClose },
      },
    },
  ]);
  if (codes) return statusOf(key, await periodItem(t, key), []);
  return statusOf(key, { ...period, totalsAtClose }, []);
};

export const reopen = async (
  t: PeriodTable,
  key: PeriodKey,
  by: string,
  reason: string,
): Promise<PeriodStatus> => {
  checkPeriodKey(key);
  const why = checkReason(reason, 'reopen a period');
  const table = t.table;
  const pk = partitionOf(key);
  for (let attempt = 1; attempt <= t.maxAttempts; attempt++) {
    if (attempt > 1) await t.pause(attempt - 1);
    const period = await periodItem(t, key);
    if (period?.state?.S !== 'closed') {
      throw new PeriodError('not-closed', `${describePeriod(key)} is not closed`);
    }
    const closeCount = Number(period.closeCount?.N ?? '0');
    const at = new Date(t.now()).toISOString();
    const shards: TransactWriteItem[] = Array.from({ length: MAX_TOTAL_SHARDS }, (_, shard) => ({
      Update: {
        TableName: table,
        Key: ledgerKey(pk, totalShardSortKey(shard)),
        UpdateExpression: 'REMOVE closedAt',
      },
    }));
    const update: TransactWriteItem = {
      Update: {
        TableName: table,
        Key: ledgerKey(pk, PERIOD_SK),
        UpdateExpression:
          'SET #state = :open, reopenedAt = :at, reopenedBy = :by, reopenReason = :reason',
        ConditionExpression: '#state = :closed AND closeCount = :count',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':open': S('open'),
          ':closed': S('closed'),
          ':count': N(closeCount),
          ':at': S(at),
          ':by': S(by),
          ':reason': S(why),
        },
      },
    };
    const audit = auditPut(t.table, pk, periodAuditSortKey(at, closeCount, 'reopen'), {
      tenant: S(key.tenant),
      accountId: S(key.accountId),
      period: S(key.period),
      action: S('reopen'),
      at: S(at),
      by: S(by),
      reason: S(why),
      closeCount: N(closeCount),
    });
    if (!(await transact(t, [update, audit, ...shards]))) {
      return statusOf(
        key,
        {
          ...period,
          state: S('open'),
          reopenedAt: S(at),
          reopenedBy: S(by),
          reopenReason: S(why),
        },
        [],
      );
    }
  }
  throw new PeriodError('busy', `${describePeriod(key)} is busy; try reopening it again`);
};
