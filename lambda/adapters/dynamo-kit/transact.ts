/**
 * The one TransactWriteItems helper. A transaction either commits or comes back `cancelled` with the
 * code of each item in order when a condition or a concurrent writer stopped it — the caller decides
 * what those codes mean for its protocol. An invalid write is a `PermanentError` (errors.ts); any
 * other failure (throttling, a network error) is thrown unchanged for the caller's retry policy.
 */
import {
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type CancellationReason,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { rethrowMapped } from './errors';

export const CONDITION_FAILED = 'ConditionalCheckFailed';
export const TRANSACTION_CONFLICT = 'TransactionConflict';
/** Reasons that mean "a condition did not hold, or another writer got there first". */
const LOST_RACE_CODES = new Set([CONDITION_FAILED, TRANSACTION_CONFLICT]);

export type TransactOutcome =
  | { outcome: 'committed' }
  | {
      outcome: 'cancelled';
      /** One per item, in order: `None`, `ConditionalCheckFailed`, `TransactionConflict`, … */
      codes: string[];
      /** DynamoDB's reasons (with the old item where ReturnValuesOnConditionCheckFailure asked). */
      reasons: CancellationReason[];
      /** DynamoDB's answer, for a caller that gives up and passes it on. */
      error: TransactionCanceledException;
    };

/** Whether the item at `index` was stopped by its own condition. */
export const conditionFailedAt = (codes: readonly string[], index: number): boolean =>
  codes[index] === CONDITION_FAILED;

/** Whether some item was stopped by its own condition. */
export const someConditionFailed = (codes: readonly string[]): boolean =>
  codes.includes(CONDITION_FAILED);

/** Whether only contention stopped the transaction (no condition failed): worth another attempt. */
export const onlyContention = (codes: readonly string[]): boolean =>
  codes.every((code) => code === 'None' || code === TRANSACTION_CONFLICT);

export const transactWrite = async (
  client: DynamoDBClient,
  items: TransactWriteItem[],
  subject: string,
): Promise<TransactOutcome> => {
  try {
    await client.send(new TransactWriteItemsCommand({ TransactItems: items }));
    return { outcome: 'committed' };
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      const codes = reasons.map((reason) => reason.Code ?? 'None');
      if (!codes.includes('ValidationError') && codes.some((code) => LOST_RACE_CODES.has(code))) {
        return { outcome: 'cancelled', codes, reasons, error };
      }
    }
    return rethrowMapped(error, subject);
  }
};
