import {
  GetItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { DEFAULT_TOTAL_SHARDS } from '../../contract/environment';
import { subtractDecimals } from '../core/decimal';
import { PeriodError } from '../core/errors';
import { closeRefusal } from '../core/period-close-rule';
import { authoritativeSource, sourceRank } from '../core/export-authority';
import { statementRows, type StatementRow } from '../core/ledger-total';
import {
  bookingTarget,
  isPeriod,
  nextPeriod,
  MAX_ROLL_FORWARD_MONTHS,
  periodOfInstant,
} from '../core/periods';
import type {
  CloseOptions,
  CurrencyTotal,
  PeriodKey,
  PeriodPort,
  PeriodState,
  PeriodStatus,
  VoidRequest,
} from '../core/ports';
import { decimalOf } from './dynamo-ledger';
import {
  periodInfoOf,
  readCurrentPointers,
  readStatementItems,
  snapshotPartOf,
  streamTotalsOf,
} from './ledger-reader';
import { queryBySortKeyPrefix } from './paged-query';
import {
  CHARGE_PREFIX,
  CURRENT_SK,
  LEDGER_PK,
  LEDGER_SK,
  MAX_TOTAL_SHARDS,
  PERIOD_SK,
  TOTAL_PREFIX,
  exportPartitionKey,
  ledgerKey,
  ledgerKeyOf,
  ledgerPartitionKeyOf,
  partitionItemKindOf,
  periodAuditSortKey,
  shardOf,
  totalShardSortKey,
  voidSortKey,
} from './table-layout';
import { shardUpdate } from './total-shards';

export interface DynamoPeriodsOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
  /** Shards writers use (1..32, default 8); a void adds to one of them. */
  totalShards?: number;
  /** Close/reopen/void transactions tried before giving up as busy (default 20). */
  maxAttempts?: number;
  /** Back-off between attempts (injected so tests need not wait). */
  pause?: (attempt: number) => Promise<void>;
}

type Item = Record<string, AttributeValue>;

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: string | number): AttributeValue => ({ N: String(value) });
const CONDITION_FAILED = 'ConditionalCheckFailed';
const DEFAULT_MAX_ATTEMPTS = 20;

const jitteredPause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));

const describe = (key: PeriodKey): string =>
  `period ${key.period} of tenant ${key.tenant}, account ${key.accountId}`;

const checkKey = (key: PeriodKey): void => {
  if (!isPeriod(key.period)) {
    throw new PeriodError(
      'invalid-period',
      `${JSON.stringify(key.period)} is not a yyyy-mm period`,
    );
  }
  if (key.tenant === '' || key.accountId === '') {
    throw new PeriodError('invalid-period', 'tenant and account are required');
  }
};

const checkReason = (reason: string, action: string): string => {
  const trimmed = reason.trim();
  if (trimmed === '') throw new PeriodError('reason-required', `a reason is required to ${action}`);
  return trimmed;
};

const totalsMap = (totals: readonly CurrencyTotal[]): AttributeValue => ({
  M: Object.fromEntries(
    totals.map(({ currency, total, charges }) => [
      currency,
      { M: { total: S(total), charges: N(charges) } },
    ]),
  ),
});

const totalsOfMap = (value: AttributeValue | undefined): CurrencyTotal[] =>
  Object.entries(value?.M ?? {})
    .map(([currency, entry]) => ({
      currency,
      total: entry.M?.total?.S ?? '0',
      charges: Number(entry.M?.charges?.N ?? '0'),
    }))
    .sort((a, b) => a.currency.localeCompare(b.currency));

const optionalS = (item: Item | undefined, name: string): Record<string, string> =>
  item?.[name]?.S === undefined ? {} : { [name]: item[name].S };

/** A period's status from its PERIOD item (absent: never closed) and the corrections booked later. */
const statusOf = (
  key: PeriodKey,
  item: Item | undefined,
  correctionsBookedLater: PeriodStatus['correctionsBookedLater'],
): PeriodStatus => ({
  tenant: key.tenant,
  accountId: key.accountId,
  period: key.period,
  state: item?.state?.S === 'closed' ? 'closed' : 'open',
  ...optionalS(item, 'closedAt'),
  ...optionalS(item, 'closedBy'),
  ...optionalS(item, 'closeReason'),
  closeCount: Number(item?.closeCount?.N ?? '0'),
  ...optionalS(item, 'reopenedAt'),
  ...optionalS(item, 'reopenedBy'),
  ...optionalS(item, 'reopenReason'),
  totalsAtClose: totalsOfMap(item?.totalsAtClose),
  correctionsBookedLater,
});

/** Corrections of `of` held by these (later) statement rows. */
const correctionsOf = (
  of: string,
  rows: readonly StatementRow[],
): PeriodStatus['correctionsBookedLater'] =>
  rows.flatMap((row) =>
    (row.corrections ?? [])
      .filter((correction) => correction.of === of)
      .map((correction) => ({
        bookedIn: row.period,
        currency: row.currency,
        total: correction.total,
        charges: correction.charges,
      })),
  );

/**
 * Billing periods in the ledger table (docs/ledger.md): the PERIOD item and its audit records in the
 * account-period's partition, and the closed stamp on every total shard, which is what refuses commits.
 */
export class DynamoPeriods implements PeriodPort {
  private readonly now: () => number;
  private readonly totalShards: number;
  private readonly maxAttempts: number;
  private readonly pause: (attempt: number) => Promise<void>;

  constructor(private readonly options: DynamoPeriodsOptions) {
    this.now = options.now ?? Date.now;
    this.totalShards = options.totalShards ?? DEFAULT_TOTAL_SHARDS;
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.pause = options.pause ?? jitteredPause;
  }

  private pk(key: PeriodKey): string {
    return ledgerPartitionKeyOf(key.tenant, key.accountId, key.period);
  }

  private async periodItem(key: PeriodKey): Promise<Item | undefined> {
    const response = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(this.pk(key), PERIOD_SK),
        ConsistentRead: true,
      }),
    );
    return response.Item;
  }

  async stateOf(key: PeriodKey): Promise<PeriodState> {
    return (await this.periodItem(key))?.state?.S === 'closed' ? 'closed' : 'open';
  }

  /**
   * Two phases, exact under any write rate. Phase 1 stamps `closedAt` on all 32 shards with no
   * condition on what they hold: every commit's shard update requires the stamp absent, so each commit
   * lands wholly before it (and is in the shards) or wholly after it (refused, booked elsewhere).
   * Phase 2 reads the now frozen shards and records the totals at close. A closed period without them
   * (the closer stopped between phases) is completed by the next close or status.
   */
  async close(
    key: PeriodKey,
    by: string,
    reason: string,
    options: CloseOptions = {},
  ): Promise<PeriodStatus> {
    checkKey(key);
    const why = reason.trim();
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1) await this.pause(attempt - 1);
      const { period, snapshots, totals } = await readStatementItems(
        this.options.client,
        this.options.ledgerTable,
        this.pk(key),
      );
      if (period?.state?.S === 'closed') {
        if (period.totalsAtClose === undefined) return this.completeClose(key);
        throw new PeriodError('already-closed', `${describe(key)} is already closed`);
      }
      const refusal = closeRefusal({
        period: key.period,
        now: this.now(),
        kinds: [...totals, ...snapshots].flatMap(
          (item) => partitionItemKindOf(ledgerKeyOf(item).sk) ?? [],
        ),
        closedBefore: Number(period?.closeCount?.N ?? '0') > 0,
        force: options.force === true,
      });
      if (refusal) throw new PeriodError(refusal.code, `${describe(key)} ${refusal.reason}`);
      if (await this.freeze(key, period, snapshots, by, why)) return this.completeClose(key);
    }
    throw new PeriodError('busy', `${describe(key)} is busy; try closing it again`);
  }

  /** Phase 1 of a close; false when a concurrent close, reopen or snapshot switch got in first. */
  private async freeze(
    key: PeriodKey,
    period: Item | undefined,
    snapshots: Item[],
    by: string,
    reason: string,
  ): Promise<boolean> {
    const table = this.options.ledgerTable;
    const pk = this.pk(key);
    const closeCount = Number(period?.closeCount?.N ?? '0');
    const pins = await this.pinsAtClose(key, period, snapshots);
    const closedAt = new Date(this.now()).toISOString();
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
    const audit = this.auditPut(pk, periodAuditSortKey(closedAt, count, 'close'), {
      ...scope,
      pinned,
      ...(pins.authoritative ? { authoritative: S(pins.authoritative) } : {}),
      action: S('close'),
      at: S(closedAt),
      by: S(by),
      reason: S(reason),
      closeCount: N(count),
    });
    return !(await this.transact([...shards, periodPut, audit, ...pins.checks]));
  }

  /**
   * The snapshots a close pins: at the first close, the CURRENT execution of each source with a
   * snapshot in the partition, checked unchanged (or still absent) by the close transaction; the pins
   * of the first close afterwards — corrections booked elsewhere were computed against them, and a
   * source with none counts nothing in this period for good.
   */
  private async pinsAtClose(
    key: PeriodKey,
    period: Item | undefined,
    snapshots: Item[],
  ): Promise<{
    pinned: Record<string, string>;
    authoritative?: string;
    checks: TransactWriteItem[];
  }> {
    if (period && periodInfoOf(period).closedOnce) {
      const { pinned, authoritative } = periodInfoOf(period);
      return { pinned, ...(authoritative ? { authoritative } : {}), checks: [] };
    }
    const parts = snapshots.map(snapshotPartOf);
    const pointers = await readCurrentPointers(
      this.options.client,
      this.options.ledgerTable,
      parts,
    );
    const mine = pointers.filter(
      (pointer) => pointer.tenant === key.tenant && pointer.period === key.period,
    );
    const pinned = Object.fromEntries(mine.map((pointer) => [pointer.source, pointer.executionId]));
    // Fixed by the first close (the checks below keep the pointers, hence their ranks, as read).
    const authoritative = authoritativeSource(
      mine.map((pointer) => sourceRank(pointer.source, pointer)),
    );
    const checks = [...new Set(parts.map((part) => part.source))].map(
      (source): TransactWriteItem => ({
        ConditionCheck: {
          TableName: this.options.ledgerTable,
          Key: ledgerKey(exportPartitionKey(key.tenant, source, key.period), CURRENT_SK),
          ...(pinned[source] === undefined
            ? { ConditionExpression: 'attribute_not_exists(executionId)' }
            : {
                ConditionExpression: 'executionId = :execution',
                ExpressionAttributeValues: { ':execution': S(pinned[source]) },
              }),
        },
      }),
    );
    return { pinned, ...(authoritative ? { authoritative } : {}), checks };
  }

  /**
   * Phase 2 of a close: the statement of the frozen shards (and pinned snapshots) as `totalsAtClose`,
   * on the PERIOD item and its close audit record, once. Idempotent; a no-op unless it is missing.
   */
  private async completeClose(key: PeriodKey): Promise<PeriodStatus> {
    const table = this.options.ledgerTable;
    const pk = this.pk(key);
    const { period, snapshots, totals } = await readStatementItems(this.options.client, table, pk);
    if (period?.state?.S !== 'closed' || period.totalsAtClose !== undefined) {
      return statusOf(key, period, []);
    }
    const parts = snapshots.map(snapshotPartOf);
    // The pointers only rank the pinned sources (which one is authoritative); the pins say what counts.
    const pointers = await readCurrentPointers(this.options.client, table, parts);
    const totalsAtClose = totalsMap(
      statementRows(totals.flatMap(streamTotalsOf), parts, pointers, [periodInfoOf(period)]).map(
        ({ currency, total, charges }) => ({ currency, total, charges }),
      ),
    );
    const count = period.closeCount ?? N(0);
    const codes = await this.transact([
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
          Key: ledgerKey(
            pk,
            periodAuditSortKey(period.closedAt?.S ?? '', Number(count.N), 'close'),
          ),
          UpdateExpression: 'SET totalsAtClose = :totals',
          ConditionExpression: `attribute_exists(${LEDGER_PK}) AND attribute_not_exists(totalsAtClose)`,
          ExpressionAttributeValues: { ':totals': totalsAtClose },
        },
      },
    ]);
    if (codes) return statusOf(key, await this.periodItem(key), []);
    return statusOf(key, { ...period, totalsAtClose }, []);
  }

  async reopen(key: PeriodKey, by: string, reason: string): Promise<PeriodStatus> {
    checkKey(key);
    const why = checkReason(reason, 'reopen a period');
    const table = this.options.ledgerTable;
    const pk = this.pk(key);
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1) await this.pause(attempt - 1);
      const period = await this.periodItem(key);
      if (period?.state?.S !== 'closed') {
        throw new PeriodError('not-closed', `${describe(key)} is not closed`);
      }
      const closeCount = Number(period.closeCount?.N ?? '0');
      const at = new Date(this.now()).toISOString();
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
      const audit = this.auditPut(pk, periodAuditSortKey(at, closeCount, 'reopen'), {
        tenant: S(key.tenant),
        accountId: S(key.accountId),
        period: S(key.period),
        action: S('reopen'),
        at: S(at),
        by: S(by),
        reason: S(why),
        closeCount: N(closeCount),
      });
      if (!(await this.transact([update, audit, ...shards]))) {
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
    throw new PeriodError('busy', `${describe(key)} is busy; try reopening it again`);
  }

  async status(key: PeriodKey): Promise<PeriodStatus> {
    checkKey(key);
    let item = await this.periodItem(key);
    if (item?.state?.S === 'closed' && item.totalsAtClose === undefined) {
      await this.completeClose(key);
      item = await this.periodItem(key);
    }
    // Corrections land in later periods, up to the current month (or the next one, at least).
    const rows: StatementRow[] = [];
    const last = periodOfInstant(this.now());
    let period = key.period;
    for (let month = 1; month <= MAX_ROLL_FORWARD_MONTHS; month++) {
      period = nextPeriod(period);
      const items = await queryBySortKeyPrefix(
        this.options.client,
        this.options.ledgerTable,
        this.pk({ ...key, period }),
        TOTAL_PREFIX,
      );
      rows.push(...items.flatMap(streamTotalsOf));
      if (period >= last) break;
    }
    return statusOf(key, item, correctionsOf(key.period, statementRows(rows, [], [])));
  }

  async list(filter: { tenant: string; accountId?: string }): Promise<PeriodStatus[]> {
    const prefix =
      filter.accountId === undefined
        ? `TENANT#${filter.tenant}#ACCOUNT#`
        : `TENANT#${filter.tenant}#ACCOUNT#${filter.accountId}#PERIOD#`;
    const periodItems = new Map<string, Item>();
    const totals: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await this.options.client.send(
        new ScanCommand({
          TableName: this.options.ledgerTable,
          FilterExpression: `begins_with(${LEDGER_PK}, :prefix) AND (${LEDGER_SK} = :period OR begins_with(${LEDGER_SK}, :total))`,
          ExpressionAttributeValues: {
            ':prefix': S(prefix),
            ':period': S(PERIOD_SK),
            ':total': S(TOTAL_PREFIX),
          },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        if (ledgerKeyOf(item).sk === PERIOD_SK) periodItems.set(ledgerKeyOf(item).pk, item);
        else totals.push(item);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    const keys = new Map<string, PeriodKey>();
    for (const item of [...periodItems.values(), ...totals]) {
      const key = {
        tenant: item.tenant?.S ?? '',
        accountId: item.accountId?.S ?? '',
        period: item.period?.S ?? '',
      };
      if (key.period !== '') keys.set(ledgerKeyOf(item).pk, key);
    }
    const rows = statementRows(totals.flatMap(streamTotalsOf), [], []);
    return [...keys.entries()]
      .map(([pk, key]) =>
        statusOf(
          key,
          periodItems.get(pk),
          correctionsOf(
            key.period,
            rows.filter((row) => row.accountId === key.accountId && row.period > key.period),
          ),
        ),
      )
      .sort((a, b) => a.accountId.localeCompare(b.accountId) || a.period.localeCompare(b.period));
  }

  async voidCharge(
    input: VoidRequest,
  ): Promise<{ outcome: 'voided' | 'already-voided'; bookedIn: string }> {
    checkKey(input);
    const reason = checkReason(input.reason, 'void a charge');
    const table = this.options.ledgerTable;
    const pk = this.pk(input);
    if (!input.chargeSk.startsWith(CHARGE_PREFIX)) {
      throw new PeriodError('charge-not-found', `${input.chargeSk} is not a charge sort key`);
    }
    const digest = input.chargeSk.slice(CHARGE_PREFIX.length);
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1) await this.pause(attempt - 1);
      const { Item: charge } = await this.options.client.send(
        new GetItemCommand({
          TableName: table,
          Key: ledgerKey(pk, input.chargeSk),
          ConsistentRead: true,
        }),
      );
      if (!charge) {
        throw new PeriodError(
          'charge-not-found',
          `no charge ${input.chargeSk} in ${describe(input)}`,
        );
      }
      if (charge.voidedAt?.S) {
        return { outcome: 'already-voided', bookedIn: charge.voidBookedIn?.S ?? input.period };
      }
      const target = await bookingTarget(input.period, input.policy, (period) =>
        this.stateOf({ ...input, period }),
      );
      if (target.kind === 'rejected') {
        throw new PeriodError(
          'period-closed',
          `${describe(input)} is closed and the late-charge policy is reject: reopen it to void the charge`,
        );
      }
      const at = new Date(this.now()).toISOString();
      const amount = decimalOf(charge.amount);
      const currency = charge.currency?.S ?? '';
      const codes = await this.transact([
        {
          Update: {
            TableName: table,
            Key: ledgerKey(pk, input.chargeSk),
            UpdateExpression:
              'SET voidedAt = :at, voidedBy = :by, voidReason = :reason, voidBookedIn = :booked',
            ConditionExpression:
              'version = :version AND contentHash = :hash AND attribute_not_exists(voidedAt)',
            ExpressionAttributeValues: {
              ':at': S(at),
              ':by': S(input.by),
              ':reason': S(reason),
              ':booked': S(target.period),
              ':version': charge.version ?? N(0),
              ':hash': charge.contentHash ?? S(''),
            },
          },
        },
        shardUpdate(table, {
          pk: this.pk({ ...input, period: target.period }),
          shard: shardOf(digest, this.totalShards),
          scope: { tenant: input.tenant, accountId: input.accountId, period: target.period },
          deltas: [
            {
              currency,
              delta: subtractDecimals('0', amount),
              charges: -1,
              ...(target.kind === 'rolled' ? { correctionOf: input.period } : {}),
            },
          ],
        }),
        this.auditPut(pk, voidSortKey(digest), {
          tenant: S(input.tenant),
          accountId: S(input.accountId),
          period: S(input.period),
          action: S('void'),
          at: S(at),
          by: S(input.by),
          reason: S(reason),
          chargeSk: S(input.chargeSk),
          amount: N(amount),
          currency: S(currency),
          version: charge.version ?? N(0),
          bookedIn: S(target.period),
        }),
      ]);
      if (!codes) return { outcome: 'voided', bookedIn: target.period };
    }
    throw new PeriodError('busy', `${describe(input)} is busy; try voiding the charge again`);
  }

  private auditPut(pk: string, sk: string, attributes: Item): TransactWriteItem {
    return {
      Put: {
        TableName: this.options.ledgerTable,
        Item: { ...ledgerKey(pk, sk), ...attributes },
        ConditionExpression: `attribute_not_exists(${LEDGER_PK})`,
      },
    };
  }

  /** Undefined when committed; the cancellation codes when a condition or a concurrent writer stopped it. */
  private async transact(items: TransactWriteItem[]): Promise<string[] | undefined> {
    try {
      await this.options.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
        if (codes.some((code) => code === CONDITION_FAILED || code === 'TransactionConflict')) {
          return codes;
        }
      }
      throw error;
    }
  }
}
