import { mapWithConcurrency } from './concurrency';
import type { RecordResult } from './outcomes';

export interface BatchItem {
  messageId: string;
  /** FIFO MessageGroupId; absent on standard queues. */
  groupId?: string;
}

export interface BatchItemFailure {
  itemIdentifier: string;
}

export interface BatchOptions<T extends BatchItem> {
  fifo: boolean;
  /** Records (standard) or message groups (FIFO) processed at once. */
  concurrency: number;
  process: (item: T) => Promise<RecordResult>;
}

export interface BatchOutcome {
  results: RecordResult[];
  batchItemFailures: BatchItemFailure[];
}

/** Sees every batch's per-record outcomes (the local runtime counts them; Lambda does not need it). */
export type BatchObserver = (outcome: BatchOutcome) => void;

const failedResult = (messageId: string, reason: string): RecordResult => ({
  messageId,
  outcome: 'failed',
  reason,
});

const safely = async <T extends BatchItem>(
  item: T,
  process: (item: T) => Promise<RecordResult>,
) => {
  try {
    return await process(item);
  } catch (error) {
    return failedResult(item.messageId, error instanceof Error ? error.name : 'unknown-error');
  }
};

/** FIFO: records of one group in order; after a failure the rest of that group is failed unprocessed. */
const runFifo = async <T extends BatchItem>(items: readonly T[], options: BatchOptions<T>) => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = item.groupId ?? '';
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const byMessage = new Map<T, RecordResult>();
  await mapWithConcurrency([...groups.values()], options.concurrency, async (group) => {
    let blockedBy: string | undefined;
    for (const item of group) {
      const result = blockedBy
        ? failedResult(item.messageId, `skipped: ${blockedBy} of the same group failed`)
        : await safely(item, options.process);
      if (result.outcome === 'failed' && !blockedBy) blockedBy = item.messageId;
      byMessage.set(item, result);
    }
  });
  return items.map((item) => byMessage.get(item) as RecordResult);
};

/**
 * Runs one SQS batch and builds the partial batch response. Only `failed` records are listed; a failed
 * record whose id is not a message id of this batch cannot be reported, so the whole batch is retried.
 */
export const runBatch = async <T extends BatchItem>(
  items: readonly T[],
  options: BatchOptions<T>,
): Promise<BatchOutcome> => {
  const results = options.fifo
    ? await runFifo(items, options)
    : await mapWithConcurrency(items, options.concurrency, (item) => safely(item, options.process));
  const known = new Set(
    items.map((item) => item.messageId).filter((id) => typeof id === 'string' && id !== ''),
  );
  const failed = results.filter((result) => result.outcome === 'failed');
  const unreportable = failed.find((result) => !known.has(result.messageId));
  if (unreportable)
    throw new Error('A failed record has no usable messageId; retrying the whole batch');
  return {
    results,
    batchItemFailures: failed.map((result) => ({ itemIdentifier: result.messageId })),
  };
};
