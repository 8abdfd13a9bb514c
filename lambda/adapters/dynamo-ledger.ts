import {
  GetItemCommand,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { DEFAULT_TOTAL_SHARDS } from '../../contract/environment';
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
import { N, S, decimalOf, optionalS, type Item } from './dynamo-kit/attributes';
import { BATCH_GET_LIMIT, batchGetKeys } from './dynamo-kit/batch';
import { conditionFailedAt, transactWrite } from './dynamo-kit/transact';
import {
  CHARGE_PREFIX,
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

/** Exact decimals as the kit reads them; re-exported for the modules that import them from here. */
export { decimalOf };

/** What DynamoDB's refusal of an invalid charge write is called (kit errors: a `PermanentError`). */
const REFUSED = 'the ledger rejected the charge';
/** Unprocessed keys are handed back, never asked again here: the read needs no back-off. */
const NO_BACKOFF = (): Promise<void> => Promise.resolve();

const storedChargeOf = (item: Item): StoredCharge => ({
  version: Number(item.version?.N ?? '0'),
  contentHash: item.contentHash?.S ?? '',
  amount: decimalOf(item.amount),
  currency: item.currency?.S ?? '',
  ...(item.voidedAt?.S === undefined ? {} : { voided: true }),
  ...(item.attributed?.BOOL === true ? { attributed: true } : {}),
  ...(item.provisional?.BOOL === true ? { provisional: true } : {}),
});

/** The ledger's charge item: amount as an exact `N`, identity, content hash and what a statement shows. */
export const chargeItem = (
  charge: Pick<
    ChargeCommit,
    'ref' | 'event' | 'identity' | 'contentHash' | 'bookedIn' | 'previous' | 'provisional'
  >,
  nowMs: number,
): Item => {
  const { event } = charge;
  const own = billingPeriodOf(event);
  // Booked in its own period, its amount is in its source's per-source totals there from now on; a late
  // provisional charge's only in its source's provisional totals.
  const attributed =
    !charge.provisional &&
    (charge.bookedIn === undefined || charge.bookedIn === own || charge.previous?.attributed);
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
    ...optionalS('chargeClass', event.chargeClass),
    ...optionalS('service', event.service),
    ...optionalS('skuId', event.skuId),
    ...optionalS('resourceId', event.resourceId),
    ...optionalS('description', event.description),
    ...(attributed ? { attributed: { BOOL: true } } : {}),
    ...(charge.provisional ? { provisional: { BOOL: true } } : {}),
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
    for (let start = 0; start < refs.length; start += BATCH_GET_LIMIT) {
      const chunk = refs.slice(start, start + BATCH_GET_LIMIT);
      for (const ref of chunk) found.set(refKey(ref), null);
      await batchGetKeys(
        this.options.client,
        this.options.ledgerTable,
        chunk.map((ref) => ledgerKey(ref.pk, ref.sk)),
        `${LEDGER_PK}, ${LEDGER_SK}, amount, currency, version, contentHash, voidedAt, attributed, provisional`,
        (items) => {
          for (const item of items) found.set(refKey(ledgerKeyOf(item)), storedChargeOf(item));
        },
        NO_BACKOFF,
        {
          consistent: options.consistent ?? true,
          // Left out of the answer: the caller reads them again when it needs them.
          unprocessed: (keys) => {
            for (const key of keys) found.delete(refKey(ledgerKeyOf(key)));
          },
        },
      );
    }
    return found;
  }

  async readCharge(ref: ChargeRef): Promise<StoredCharge | null> {
    const response = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.ledgerTable,
        Key: ledgerKey(ref.pk, ref.sk),
        ConsistentRead: true,
        ProjectionExpression:
          'amount, currency, version, contentHash, voidedAt, attributed, provisional',
      }),
    );
    return response.Item ? storedChargeOf(response.Item) : null;
  }

  async commit(commit: ChargeCommit, options: CommitOptions = {}): Promise<CommitResult> {
    const answer = await this.transact([
      this.chargePut(commit),
      ...this.shardWrites([commit], options.attempt ?? 1).map(({ write }) =>
        shardUpdate(this.options.ledgerTable, write),
      ),
    ]);
    if (answer.outcome === 'committed') return 'committed';
    // Items: the charge, then its shard.
    if (conditionFailedAt(answer.codes, 0)) return 'lost-race';
    if (!conditionFailedAt(answer.codes, 1)) return 'contended';
    return commit.provisional ? 'period-open' : 'period-closed';
  }

  async commitGroup(
    commits: ChargeCommit[],
    options: CommitOptions = {},
  ): Promise<GroupCommitResult> {
    const writes = this.shardWrites(commits, options.attempt ?? 1);
    const answer = await this.transact([
      ...commits.map((commit) => this.chargePut(commit)),
      ...writes.map(({ write }) => shardUpdate(this.options.ledgerTable, write)),
    ]);
    if (answer.outcome === 'committed') return { result: 'committed' };
    const { codes, reasons } = answer;
    // Items are the charge of each commit in order, then one shard per target partition.
    const losers = commits
      .map((_, index) => index)
      .filter((index) => conditionFailedAt(codes, index));
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
      conditionFailedAt(codes, commits.length + index) ? indexes : [],
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
      if (found && Boolean(found.write.provisional) !== Boolean(commit.provisional)) {
        throw new Error('provisional commits are committed one by one');
      }
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
          ...(commit.provisional ? { provisional: true } : {}),
        },
        commits: [index],
      });
    });
    return [...byPartition.values()];
  }

  /** Runs a transaction through the kit: committed, or cancelled with the code of each item. */
  private transact(items: TransactWriteItem[]) {
    return transactWrite(this.options.client, items, REFUSED);
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
