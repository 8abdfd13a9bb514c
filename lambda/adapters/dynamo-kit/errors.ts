/**
 * The one mapping of DynamoDB's errors. A write DynamoDB refuses as invalid (a number past 38 digits,
 * an item over 400 KB, a bad expression) gets the same answer on every retry: it is a `PermanentError`
 * naming DynamoDB's reason, wherever it happens. DynamoDB Local answers such a write with a
 * `ValidationException`; DynamoDB cancels a transaction with a `ValidationError` reason.
 */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { PermanentError } from '../../core/errors';

const MAX_REASON_LENGTH = 500;
export const VALIDATION_EXCEPTION = 'ValidationException';
export const VALIDATION_CODE = 'ValidationError';

/** `subject` says what was refused ("the ledger rejected the charge"); DynamoDB's reason follows. */
export const refusedWrite = (subject: string, detail: string): PermanentError =>
  new PermanentError('invalid-field', '$', `${subject}: ${detail}`.slice(0, MAX_REASON_LENGTH));

/** The permanent error an invalid write stands for, or undefined when the error may pass on a retry. */
export const permanentErrorOf = (error: unknown, subject: string): PermanentError | undefined => {
  if (error instanceof Error && error.name === VALIDATION_EXCEPTION) {
    return refusedWrite(subject, error.message);
  }
  if (error instanceof TransactionCanceledException) {
    const invalid = (error.CancellationReasons ?? []).find(
      (reason) => reason.Code === VALIDATION_CODE,
    );
    if (invalid) {
      return refusedWrite(
        subject,
        `DynamoDB refused the write as invalid: ${invalid.Message ?? 'no message'}`,
      );
    }
  }
  return undefined;
};

/** Rethrows `error` as what it means: a refused write is permanent, anything else passes unchanged. */
export const rethrowMapped = (error: unknown, subject: string): never => {
  throw permanentErrorOf(error, subject) ?? error;
};

/**
 * Runs a conditional single-item write: true when it was written, false when its condition did not
 * hold. Other errors are mapped as above.
 */
export const writeIfCondition = async (
  write: () => Promise<unknown>,
  subject: string,
): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    return rethrowMapped(error, subject);
  }
};
