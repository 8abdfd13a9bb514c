import {
  BatchGetItemCommand,
  GetItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import Big from 'big.js';
import { addDecimals, formatDecimal } from '../core/decimal';
import { PermanentError } from '../core/errors';
import type { StoredCharge } from '../core/ledger-decision';
import { billingPeriodOf } from '../core/keys';
import {
  refKey,
  type ChargeCommit,
  type ChargeRef,
  type CommitResult,
  type GroupCommitResult,
  type LedgerLayout,
  type LedgerPort,
} from '../core/ports';
import {
  DEDUP_EXPIRES_AT,
  DEDUP_PK,
  DYNAMO_LIMITS,
  LEDGER_PK,
  LEDGER_SK,
  ledgerKey,
  ledgerKeyOf,
  ledgerLayout,
  totalSortKey,
  type DedupScope,
} from './table-layout';

export interface DynamoLedgerOptions extends DedupScope {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
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

/** Only contention (nothing failed a condition): the same commit can be tried again as it is. */
const raceOf = (codes: string[]): 'contended' | 'lost-race' =>
  codes.every((code) => code === 'None' || code === 'TransactionConflict')
    ? 'contended'
    : 'lost-race';

export const decimalOf = (value: AttributeValue | undefined): string =>
  value?.N === undefined ? '0' : formatDecimal(new Big(value.N));

const storedChargeOf = (item: Record<string, AttributeValue>): StoredCharge => ({
  version: Number(item.version?.N ?? '0'),
  contentHash: item.contentHash?.S ?? '',
  amount: decimalOf(item.amount),
  currency: item.currency?.S ?? '',
});

const optional = (name: string, value: string | undefined): Record<string, AttributeValue> =>
  value === undefined ? {} : { [name]: S(value) };

/** The ledger's charge item: amount as an exact `N`, identity, content hash and what a statement shows. */
export const chargeItem = (
  charge: Pick<ChargeCommit, 'ref' | 'event' | 'identity' | 'contentHash'>,
  nowMs: number,
): Record<string, AttributeValue> => {
  const { event } = charge;
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
    period: S(billingPeriodOf(event)),
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

/** The ledger and claim tables: claim + charge + totals of one record in one TransactWriteItems. */
export class DynamoLedger implements LedgerPort {
  readonly layout: LedgerLayout;
  private readonly now: () => number;

  constructor(private readonly options: DynamoLedgerOptions) {
    this.layout = ledgerLayout(options.stream);
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
              ProjectionExpression: `${LEDGER_PK}, ${LEDGER_SK}, amount, currency, version, contentHash`,
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
        ProjectionExpression: 'amount, currency, version, contentHash',
      }),
    );
    return response.Item ? storedChargeOf(response.Item) : null;
  }

  async commit(commit: ChargeCommit): Promise<CommitResult> {
    const codes = await this.transact([
      ...this.claimAndCharge(commit),
      ...this.totalUpdates([commit]),
    ]);
    if (!codes) return 'committed';
    const [claim, charge, ...totals] = codes;
    if (
      claim === CONDITION_FAILED &&
      charge === 'None' &&
      totals.every((code) => code === 'None')
    ) {
      return 'claim-without-charge';
    }
    return raceOf(codes);
  }

  async commitGroup(commits: ChargeCommit[]): Promise<GroupCommitResult> {
    const codes = await this.transact([
      ...commits.flatMap((commit) => this.claimAndCharge(commit)),
      ...this.totalUpdates(commits),
    ]);
    if (!codes) return { result: 'committed' };
    const race = raceOf(codes);
    if (race === 'contended') return { result: race };
    // Items are claim and charge of each commit in order, then the totals (which carry no condition).
    const losers = commits
      .map((_, index) => index)
      .filter(
        (index) =>
          codes[2 * index] === CONDITION_FAILED || codes[2 * index + 1] === CONDITION_FAILED,
      );
    return { result: race, losers };
  }

  /**
   * Runs a transaction: undefined when committed, the cancellation codes when another writer won. A
   * write DynamoDB refuses as invalid throws a `PermanentError`; any other error is passed on.
   */
  private async transact(items: TransactWriteItem[]): Promise<string[] | undefined> {
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
        const codes = reasons.map((reason) => reason.Code ?? 'None');
        if (codes.some((code) => LOST_RACE_CODES.has(code))) return codes;
      }
      throw error;
    }
  }

  private claimAndCharge(commit: ChargeCommit): TransactWriteItem[] {
    const nowMs = this.now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const claim: TransactWriteItem = {
      Put: {
        TableName: this.options.dedupTable,
        Item: {
          [DEDUP_PK]: S(commit.claimKey),
          [DEDUP_EXPIRES_AT]: N(nowSeconds + this.options.ttlSeconds),
          stream: S(this.options.stream),
          status: S('COMPLETED'),
          ledgerPk: S(commit.ref.pk),
          ledgerSk: S(commit.ref.sk),
          contentHash: S(commit.contentHash),
          version: N(commit.identity.version),
        },
        ConditionExpression: `attribute_not_exists(${DEDUP_PK}) OR ${DEDUP_EXPIRES_AT} < :now`,
        ExpressionAttributeValues: { ':now': N(nowSeconds) },
      },
    };
    const charge: TransactWriteItem = {
      Put: {
        TableName: this.options.ledgerTable,
        Item: chargeItem(commit, nowMs),
        ...(commit.previous
          ? {
              ConditionExpression: 'version = :version AND contentHash = :hash',
              ExpressionAttributeValues: {
                ':version': N(commit.previous.version),
                ':hash': S(commit.previous.contentHash),
              },
            }
          : { ConditionExpression: `attribute_not_exists(${LEDGER_PK})` }),
      },
    };
    return [claim, charge];
  }

  /** One ADD per partition and currency, whatever the number of charges behind it. */
  private totalUpdates(commits: ChargeCommit[]): TransactWriteItem[] {
    const sums = new Map<
      string,
      { commit: ChargeCommit; currency: string; delta: string; charges: number }
    >();
    for (const commit of commits) {
      for (const change of commit.totals) {
        const key = `${commit.ref.pk}\u0000${change.currency}`;
        const sum = sums.get(key);
        sums.set(
          key,
          sum
            ? {
                ...sum,
                delta: addDecimals(sum.delta, change.delta),
                charges: sum.charges + change.charges,
              }
            : { commit, currency: change.currency, delta: change.delta, charges: change.charges },
        );
      }
    }
    return [...sums.values()].map(({ commit, currency, delta, charges }) => ({
      Update: {
        TableName: this.options.ledgerTable,
        Key: ledgerKey(commit.ref.pk, totalSortKey(currency)),
        UpdateExpression:
          'ADD #total :delta, #charges :charges SET currency = :currency, tenant = :tenant, accountId = :account, period = :period',
        ExpressionAttributeNames: { '#total': 'total', '#charges': 'charges' },
        ExpressionAttributeValues: {
          ':delta': N(delta),
          ':charges': N(charges),
          ':currency': S(currency),
          ':tenant': S(commit.event.tenant),
          ':account': S(commit.event.accountId),
          ':period': S(billingPeriodOf(commit.event)),
        },
      },
    }));
  }
}
