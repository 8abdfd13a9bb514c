/**
 * When an account-period may be closed — one rule for `billing-dedup period close` and the scheduled
 * auto-close (docs/ledger.md#closing-rule). A close makes a month's total final, so the month must be
 * over, and there must be something to make final: data of some kind in the account-period.
 */
import { periodEnd } from './periods';

/**
 * The kinds of item an account-period's partition holds that matter here: the adapter names each item
 * by its sort key, the rule never sees keys.
 */
export type PartitionItemKind = 'stream-total' | 'export-snapshot' | 'period-state';

/**
 * Data of any kind: a stream total (the cost consumer booked something, even if it nets to zero) or
 * an export snapshot of any source (current or not). A PERIOD item alone is state, not data.
 */
export const holdsBillingData = (kinds: Iterable<PartitionItemKind>): boolean => {
  for (const kind of kinds) if (kind === 'stream-total' || kind === 'export-snapshot') return true;
  return false;
};

export interface CloseRequest {
  period: string;
  /** Epoch ms of the close. */
  now: number;
  /** What the partition holds when the close reads it. */
  kinds: Iterable<PartitionItemKind>;
  /** The period was closed before (and reopened since): it was accepted then, and stays closable. */
  closedBefore: boolean;
  /** The operator closes a month with no data on purpose, so that data arriving later is late. */
  force: boolean;
}

export type CloseRefusal =
  { code: 'not-ended'; reason: string } | { code: 'no-data'; reason: string };

/**
 * Why a close is refused, or undefined when it may go ahead. A month that has not ended is never
 * closable (its own charges would all become late ones); `force` lifts only the no-data refusal.
 */
export const closeRefusal = (request: CloseRequest): CloseRefusal | undefined => {
  const end = periodEnd(request.period);
  if (request.now < end) {
    return {
      code: 'not-ended',
      reason: `has not ended: it ends at ${new Date(end).toISOString()} (UTC) and can be closed from then on`,
    };
  }
  if (!request.force && !request.closedBefore && !holdsBillingData(request.kinds)) {
    return {
      code: 'no-data',
      reason: 'holds no data (no stream total, no export snapshot of any source)',
    };
  }
  return undefined;
};
