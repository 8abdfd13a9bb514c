import { runBatch, type BatchItem, type BatchOutcome } from './batch';
import { RecordError, TransientError } from './errors';
import type { RecordResult } from './outcomes';
import type { DeadLetterPort, Rejection, SqsRecordInput } from './ports';
import { attempt, rejectionOf, type Attempt } from './rejection';

/** A record of a batch after its pure parse step: the parsed value, or why it is poison. */
export interface ParsedRecord<T> extends BatchItem {
  record: SqsRecordInput;
  parsed: Attempt<T>;
}

export const parseRecords = <T>(
  records: readonly SqsRecordInput[],
  parse: (record: SqsRecordInput) => T,
): ParsedRecord<T>[] =>
  records.map((record) => ({
    messageId: record.messageId,
    groupId: record.attributes?.MessageGroupId,
    record,
    parsed: attempt(() => parse(record)),
  }));

export const parsedValues = <T>(records: readonly ParsedRecord<T>[]): T[] =>
  records.flatMap((item) => (item.parsed.ok ? [item.parsed.value] : []));

export interface ParsedBatchOptions<T> {
  fifo: boolean;
  concurrency: number;
  deadLetters: DeadLetterPort;
  /** The hash a record reports once parsed (content hash, alert key). */
  hashOf: (value: T) => string;
  process: (value: T, record: SqsRecordInput) => Promise<RecordResult>;
}

const deadLetter = async (
  deadLetters: DeadLetterPort,
  record: SqsRecordInput,
  rejection: Rejection,
  outcome: RecordError['outcome'],
  hash?: string,
): Promise<RecordResult> => {
  await deadLetters.send(record, rejection);
  return {
    messageId: record.messageId,
    outcome,
    ...(hash ? { hash } : {}),
    reason: rejection.reason,
    code: rejection.code,
  };
};

/**
 * Runs a parsed batch. A record that did not parse, or whose processing threw a `RecordError`, goes to
 * the DLQ with its reason (`rejected` or `conflict`); a `TransientError` or any other error fails only
 * that record (retried). A failed DLQ send fails the record too: it is retried, never dropped.
 */
export const runParsedBatch = <T>(
  records: readonly ParsedRecord<T>[],
  options: ParsedBatchOptions<T>,
): Promise<BatchOutcome> =>
  runBatch(records, {
    fifo: options.fifo,
    concurrency: options.concurrency,
    process: async (item) => {
      if (!item.parsed.ok)
        return deadLetter(options.deadLetters, item.record, item.parsed.rejection, 'rejected');
      const { value } = item.parsed;
      try {
        return await options.process(value, item.record);
      } catch (error) {
        const hash = options.hashOf(value);
        if (error instanceof TransientError)
          return { messageId: item.messageId, outcome: 'failed', hash, reason: error.message };
        if (!(error instanceof RecordError)) throw error;
        return deadLetter(
          options.deadLetters,
          item.record,
          rejectionOf(error),
          error.outcome,
          hash,
        );
      }
    },
  });
