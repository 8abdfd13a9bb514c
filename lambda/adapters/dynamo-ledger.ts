import {
  BatchGetItemCommand,
  GetItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type AttributeValue,
  type CancellationReason,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import { DEFAULT_TOTAL_SHARDS } from '../../contract/environment';
import { formatDecimal } from '../core/decimal';
import { PermanentError } from '../core/errors';
import type { StoredCharge } from '../core/ledger-decision';
import { billingPeriodOf } from '../core/keys';
import {
  refKey,
  type ChargeCommit,
  type ChargeRef,
  type CommitOptions,
  type CommitResult,
  type GroupCommitResult,
  type LedgerLayout,
  type LedgerPort,
} from '../core/ports';
import {
  CHARGE_PREFIX,
  DYNAMO_LIMITS,
  LEDGER_PK,
  LEDGER_SK,
  MAX_TOTAL_SHARDS,
  ledgerKey,
  ledgerKeyOf,
  ledgerLayout,
  ledgerPartitionKeyOf,
  shardOf,
} from './table-layout';
import { shardUpdate, type ShardWrite } from './total-shards';

export interface DynamoLedgerOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
  /** Total shards commits spread over (1..32, default 8); readers sum every shard, whatever this is. */
  totalShards?: number;
}

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: string | number): AttributeValue => ({ N: String(value) });
const CONDITION_FAILED = 'ConditionalCheckFailed';
/** Reasons that mean "another writer got there first". */
const LOST_RACE_CODES = new Set([CONDITION_FAILED, 'TransactionConflict']);

/** DynamoDB Local answers an invalid item with this error; DynamoDB cancels the transaction with a reason. */
const VALIDATION_EXCEPTION = 'ValidationException';
const VALIDATION_CODE = 'ValidationError';
const MAX_REASON_LENGTH = 500;

/**
 * DynamoDB's verdict on the write itself (a total past 38 digits, an item over 400 KB, …): a retry gets
 * the same answer, so the record goes to the DLQ with DynamoDB's reason instead of being retried until
 * the queue gives up on it.
 */
const refusedWrite = (detail: string): PermanentError =>
  new PermanentError(
    'invalid-field',
    '$',
    `the ledger rejected the charge: ${detail}`.slice(0, MAX_REASON_LENGTH),
  );

export const decimalOf = (value: AttributeValue | undefined): string =>
  value?.N === undefined ? '0' : formatDecimal(new Big(value.N));

const codeOf = (reason: CancellationReason): string => reason.Code ?? 'None';

const storedChargeOf = (item: Record<string, AttributeValue>): StoredCharge => ({
  version: Number(item.version?.N ?? '0'),
  contentHash: item.contentHash?.S ?? '',
  amount: decimalOf(item.amount),
  currency: item.currency?.S ?? '',
  ...(item.voidedAt?.S === undefined ? {} : { voided: true }),
});

const optional = (name: string, value: string | undefined): Record<string, AttributeValue> =>
  value === undefined ? {} : { [name]: S(value) };

/** The ledger's charge item: amount as an exact `N`, identity, content hash and what a statement shows. */
export const chargeItem = (
  charge: Pick<ChargeCommit, 'ref' | 'event' | 'identity' | 'contentHash' | 'bookedIn'>,
  nowMs: number,
): Record<string, AttributeValue> => {
  const { event } = charge;
  const own = billingPeriodOf(event);
  return {
    ...ledgerKey(charge.ref.pk, charge.ref.sk),
    amount: N(event.amount),
    currency: S(event.currency),
    version: N(charge.identity.version),
    contentHash: S(charge.contentHash),
    identityKind: S(charge.identity.kind),
    identityId: S(charge.identity.id),
    tenant: S(event.tenant),
    source: S(event.source),
    accountId: S(event.accountId),
    period: S(own),
    ...(charge.bookedIn !== undefined && charge.bookedIn !== own
      ? { bookedIn: S(charge.bookedIn) }
      : {}),
    chargePeriodStart: S(event.chargePeriodStart),
    chargeCategory: S(event.chargeCategory),
    ...optional('chargeClass', event.chargeClass),
    ...optional('service', event.service),
    ...optional('skuId', event.skuId),
    ...optional('resourceId', event.resourceId),
    ...optional('description', event.description),
    updatedAt: S(new Date(nowMs).toISOString()),
  };
};

/**
 * The ledger table: charge + totals of one record in one TransactWriteItems. The charge item is the
 * claim: permanent, keyed by the charge identity, and written only if absent (a new charge) or still
 * at the version and content it was decided on (a restatement), so no second application can commit.
 */
export class DynamoLedger implements LedgerPort {
  readonly layout: LedgerLayout = ledgerLayout();
  private readonly now: () => number;

  constructor(private readonly options: DynamoLedgerOptions) {
    this.now = options.now ?? Date.now;
  }

  async readCharges(
    refs: ChargeRef[],
    options: { consistent?: boolean } = {},
  ): Promise<Map<string, StoredCharge | null>> {
    const found = new Map<string, StoredCharge | null>();
    for (let start = 0; start < refs.length; start += DYNAMO_LIMITS.batchGetKeys) {
      const chunk = refs.slice(start, start + DYNAMO_LIMITS.batchGetKeys);
      const response = await this.options.client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [this.options.ledgerTable]: {
              Keys: chunk.map((ref) => ledgerKey(ref.pk, ref.sk)),
              ConsistentRead: options.consistent ?? true,
              ProjectionExpression: `${LEDGER_PK}, ${LEDGER_SK}, amount, currency, version, contentHash, voidedAt`,
            },
          },
        }),
      );
      const unprocessed = new Set(
        (response.UnprocessedKeys?.[this.options.ledgerTable]?.Keys ?? []).map((key) =>
          refKey(ledgerKeyOf(key)),
        ),
      );
      for (const ref of chunk) if (!unprocessed.has(refKey(ref))) found.set(refKey(ref), null);
      for (const item of response.Responses?.[this.options.ledgerTable] ?? []) {
        found.set(refKey(ledgerKeyOf(item)), storedChargeOf(item));
      }
    }
    return found;
  }

  async readCharge(ref: ChargeRef): Promise<StoredCharge | null> {
    const response = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(ref.pk, ref.sk),
        ConsistentRead: true,
        ProjectionExpression: 'amount, currency, version, contentHash, voidedAt',
      }),
    );
    return response.Item ? storedChargeOf(response.Item) : null;
  }

  async commit(commit: ChargeCommit, options: CommitOptions = {}): Promise<CommitResult> {
    const reasons = await this.transact([
      this.chargePut(commit),
      ...this.shardWrites([commit], options.attempt ?? 1).map(({ write }) =>
        shardUpdate(this.options.ledgerTable, write),
      ),
    ]);
    if (!reasons) return 'committed';
    const [charge, shard] = reasons.map(codeOf);
    if (charge === CONDITION_FAILED) return 'lost-race';
    return shard === CONDITION_FAILED ? 'period-closed' : 'contended';
  }

  async commitGroup(
    commits: ChargeCommit[],
    options: CommitOptions = {},
  ): Promise<GroupCommitResult> {
    const writes = this.shardWrites(commits, options.attempt ?? 1);
    const reasons = await this.transact([
      ...commits.map((commit) => this.chargePut(commit)),
      ...writes.map(({ write }) => shardUpdate(this.options.ledgerTable, write)),
    ]);
    if (!reasons) return { result: 'committed' };
    const codes = reasons.map(codeOf);
    // Items are the charge of each commit in order, then one shard per target partition.
    const losers = commits
      .map((_, index) => index)
      .filter((index) => codes[index] === CONDITION_FAILED);
    if (losers.length > 0) {
      // A failed charge condition came back with the item as it was (ReturnValuesOnConditionCheckFailure).
      const current = new Map<number, StoredCharge | null>();
      for (const index of losers) {
        const item = reasons[index].Item;
        current.set(index, item ? storedChargeOf(item) : null);
      }
      return { result: 'lost-race', losers, current };
    }
    const closed = writes.flatMap(({ commits: indexes }, index) =>
      codes[commits.length + index] === CONDITION_FAILED ? indexes : [],
    );
    if (closed.length > 0) return { result: 'period-closed', closed: closed.sort((a, b) => a - b) };
    return { result: 'contended' };
  }

  /**
   * One shard write per target partition (the period a commit is booked in): every change of the
   * commits booked there, summed, on the shard of the first of them — moved on by one shard per attempt,
   * so a retry after contention meets other writers elsewhere.
   */
  private shardWrites(
    commits: ChargeCommit[],
    attempt: number,
  ): { write: ShardWrite; commits: number[] }[] {
    const shards = Math.min(
      Math.max(1, this.options.totalShards ?? DEFAULT_TOTAL_SHARDS),
      MAX_TOTAL_SHARDS,
    );
    const byPartition = new Map<string, { write: ShardWrite; commits: number[] }>();
    commits.forEach((commit, index) => {
      const own = billingPeriodOf(commit.event);
      const period = commit.bookedIn ?? own;
      const { tenant, accountId } = commit.event;
      const pk = ledgerPartitionKeyOf(tenant, accountId, period);
      const deltas = commit.totals.map((change) => ({
        ...change,
        ...(period !== own ? { correctionOf: own } : {}),
      }));
      const found = byPartition.get(pk);
      if (found) {
        found.write.deltas.push(...deltas);
        found.commits.push(index);
        return;
      }
      const digest = commit.ref.sk.slice(CHARGE_PREFIX.length);
      byPartition.set(pk, {
        write: {
          pk,
          shard: (shardOf(digest, shards) + attempt - 1) % shards,
          scope: { tenant, accountId, period },
          deltas,
        },
        commits: [index],
      });
    });
    return [...byPartition.values()];
  }

  /**
   * Runs a transaction: undefined when committed, the cancellation codes when another writer won. A
   * write DynamoDB refuses as invalid throws a `PermanentError`; any other error is passed on.
   */
  private async transact(items: TransactWriteItem[]): Promise<CancellationReason[] | undefined> {
    try {
      await this.options.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if (error instanceof Error && error.name === VALIDATION_EXCEPTION) {
        throw refusedWrite(error.message);
      }
      if (error instanceof TransactionCanceledException) {
        const reasons = error.CancellationReasons ?? [];
        const invalid = reasons.find((reason) => reason.Code === VALIDATION_CODE);
        if (invalid) {
          throw refusedWrite(
            `DynamoDB refused the write as invalid: ${invalid.Message ?? 'no message'}`,
          );
        }
        if (reasons.some((reason) => LOST_RACE_CODES.has(reason.Code ?? 'None'))) return reasons;
      }
      throw error;
    }
  }

  /**
   * The charge, written only if absent (a new charge) or still as it was read (a restatement): this
   * condition is what makes a second application of a charge impossible.
   */
  private chargePut(commit: ChargeCommit): TransactWriteItem {
    return {
      Put: {
        TableName: this.options.ledgerTable,
        Item: chargeItem(commit, this.now()),
        ...(commit.previous
          ? {
              ConditionExpression:
                'version = :version AND contentHash = :hash AND attribute_not_exists(voidedAt)',
              ExpressionAttributeValues: {
                ':version': N(commit.previous.version),
                ':hash': S(commit.previous.contentHash),
              },
            }
          : { ConditionExpression: `attribute_not_exists(${LEDGER_PK})` }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }
}
