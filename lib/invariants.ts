/**
 * Synth-time invariants of a "queue + DLQ + consumer" pipeline.
 * Each check throws an InvariantError whose message states the rule, the numbers and the fix.
 * They are pure functions so they can be tested directly and reused by constructs.
 */

export const DAY_SECONDS = 86_400;
/** Safety margin added on top of queue + DLQ retention for the dedup TTL. */
export const TTL_MARGIN_DAYS = 1;
export const MIN_RECEIVE_COUNT = 3;
export const RECOMMENDED_RECEIVE_COUNT = 5;

export class InvariantError extends Error {
  constructor(
    readonly invariant: string,
    message: string,
  ) {
    super(`[billing-dedup invariant: ${invariant}] ${message}`);
    this.name = 'InvariantError';
  }
}

/** A claim must outlive every message that can still be delivered or redriven. */
export function checkDedupTtl(p: {
  ttlSeconds: number;
  queueRetentionSeconds: number;
  dlqRetentionSeconds: number;
}): void {
  const required = p.queueRetentionSeconds + p.dlqRetentionSeconds + TTL_MARGIN_DAYS * DAY_SECONDS;
  if (p.ttlSeconds < required) {
    throw new InvariantError(
      'dedup-ttl',
      `dedup TTL ${days(p.ttlSeconds)} is shorter than queue retention ${days(p.queueRetentionSeconds)} + ` +
        `DLQ retention ${days(p.dlqRetentionSeconds)} + ${TTL_MARGIN_DAYS} day margin = ${days(required)}; ` +
        `a redelivered or redriven message could outlive its claim and be applied twice. ` +
        `Fix: raise dedupTtlDays to at least ${Math.ceil(required / DAY_SECONDS)} ` +
        `(e.g. -c dedupTtlDays=${Math.ceil(required / DAY_SECONDS)}) or lower queueRetentionDays / dlqRetentionDays.`,
    );
  }
}

/** Lambda's rule for SQS event sources: visibility ≥ 6 × timeout (+ batching window). */
export function checkVisibilityTimeout(p: {
  visibilityTimeoutSeconds: number;
  functionTimeoutSeconds: number;
  batchingWindowSeconds: number;
}): void {
  const required = 6 * p.functionTimeoutSeconds + p.batchingWindowSeconds;
  if (p.visibilityTimeoutSeconds < required) {
    throw new InvariantError(
      'visibility-timeout',
      `queue visibility timeout ${p.visibilityTimeoutSeconds}s is below 6 × function timeout ` +
        `${p.functionTimeoutSeconds}s + batching window ${p.batchingWindowSeconds}s = ${required}s; ` +
        `messages would reappear while still being processed. ` +
        `Fix: set visibilityTimeoutSeconds ≥ ${required} (or remove it to use the derived default), ` +
        `or lower functionTimeoutSeconds / maxBatchingWindowSeconds.`,
    );
  }
}

/** SQS requires a FIFO queue's DLQ to be FIFO and a standard queue's DLQ to be standard. */
export function checkDlqKind(p: { queueFifo: boolean; dlqFifo: boolean }): void {
  if (p.queueFifo !== p.dlqFifo) {
    throw new InvariantError(
      'dlq-kind',
      `a ${kind(p.queueFifo)} queue needs a ${kind(p.queueFifo)} dead-letter queue, got a ${kind(p.dlqFifo)} one. ` +
        `Fix: create the DLQ with fifo: ${p.queueFifo} (FIFO names end in ".fifo").`,
    );
  }
}

/** SNS standard topics cannot deliver to FIFO queues (ordering and dedup ids would be lost). */
export function checkTopicFeedsQueue(p: { topicFifo: boolean; queueFifo: boolean }): void {
  if (!p.topicFifo && p.queueFifo) {
    throw new InvariantError(
      'topic-queue-kind',
      `a standard SNS topic cannot feed a FIFO queue (no MessageGroupId / MessageDeduplicationId). ` +
        `Fix: subscribe the FIFO queue to a FIFO topic, or make the queue standard (costStreamKind=standard moves both).`,
    );
  }
}

/** Result of the receive-count check: an error throws, a low value returns a warning text. */
export function checkMaxReceiveCount(maxReceiveCount: number): string | undefined {
  if (maxReceiveCount < MIN_RECEIVE_COUNT) {
    throw new InvariantError(
      'max-receive-count',
      `maxReceiveCount ${maxReceiveCount} is below ${MIN_RECEIVE_COUNT}: one throttle or timeout would dead-letter a ` +
        `good message. Fix: set maxReceiveCount ≥ ${MIN_RECEIVE_COUNT} (recommended ${RECOMMENDED_RECEIVE_COUNT}).`,
    );
  }
  if (maxReceiveCount < RECOMMENDED_RECEIVE_COUNT) {
    return (
      `maxReceiveCount ${maxReceiveCount} is below the recommended ${RECOMMENDED_RECEIVE_COUNT}: transient errors ` +
      `(throttling, timeouts, FIFO group blocking) may dead-letter good messages. Consider -c maxReceiveCount=${RECOMMENDED_RECEIVE_COUNT}.`
    );
  }
  return undefined;
}

function days(seconds: number): string {
  const d = seconds / DAY_SECONDS;
  return `${Number.isInteger(d) ? d : d.toFixed(2)} d`;
}

function kind(fifo: boolean): string {
  return fifo ? 'FIFO' : 'standard';
}
