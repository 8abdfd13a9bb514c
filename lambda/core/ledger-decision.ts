import { subtractDecimals } from './decimal';
import type { CostIdentity } from './keys';

/** A charge as the ledger holds it. */
export interface StoredCharge {
  version: number;
  contentHash: string;
  amount: string;
  currency: string;
  /** Voided by an operator: final, later copies and versions have no effect. */
  voided?: boolean;
  /**
   * Its amount is in its source's per-source totals (`total@<source>:<cur>`) of its partition: every
   * charge written since those exist. Absent on charges written before: their amount is unattributed.
   */
  attributed?: boolean;
}

export interface IncomingCharge {
  identity: CostIdentity;
  contentHash: string;
  amount: string;
  currency: string;
  /** Provider or producer slug (`aws`, `gcp`, …); part of the identity, so the same on every version. */
  source?: string;
}

/** The part of a total change that goes to one source's per-source totals (the provisional rule). */
export interface SourceChange {
  source: string;
  delta: string;
  charges: number;
}

/** Change to one currency total of a ledger partition. */
export interface TotalChange {
  currency: string;
  delta: string;
  charges: number;
  /**
   * What the change does to the charge's source's per-source totals (core/ledger-total.ts): the same as
   * the total, except for a charge written before per-source totals existed (its old amount was never
   * attributed: a restatement attributes the whole new amount, a move takes nothing out).
   */
  bySource?: SourceChange;
}

export type LedgerDecision =
  | { outcome: 'applied'; totals: TotalChange[] }
  | { outcome: 'restated'; previous: StoredCharge; totals: TotalChange[] }
  | { outcome: 'duplicate' }
  | { outcome: 'superseded' }
  | { outcome: 'voided' }
  | { outcome: 'conflict'; reason: string };

/** The one place that decides what a charge does to the ledger, given what the ledger already holds. */
export const decideCharge = (
  incoming: IncomingCharge,
  stored: StoredCharge | undefined,
): LedgerDecision => {
  if (!stored) {
    return {
      outcome: 'applied',
      totals: [
        withSource(incoming, { currency: incoming.currency, delta: incoming.amount, charges: 1 }),
      ],
    };
  }
  if (stored.voided) return { outcome: 'voided' };
  const sameContent = stored.contentHash === incoming.contentHash;
  if (incoming.identity.kind !== 'line-item') {
    return sameContent
      ? { outcome: 'duplicate' }
      : {
          outcome: 'conflict',
          reason: `${incoming.identity.kind} id ${incoming.identity.id} seen with different content`,
        };
  }
  if (incoming.identity.version < stored.version) return { outcome: 'superseded' };
  if (incoming.identity.version === stored.version) {
    return sameContent
      ? { outcome: 'duplicate' }
      : {
          outcome: 'conflict',
          reason: `line item ${incoming.identity.id} version ${stored.version} seen with different content`,
        };
  }
  return { outcome: 'restated', previous: stored, totals: restatementTotals(stored, incoming) };
};

/** `change` with its per-source part `bySource` (when the charge names its source), default: the same. */
const withSource = (
  incoming: IncomingCharge,
  change: TotalChange,
  bySource: Omit<SourceChange, 'source'> = change,
): TotalChange =>
  incoming.source === undefined
    ? change
    : {
        ...change,
        bySource: { source: incoming.source, delta: bySource.delta, charges: bySource.charges },
      };

const restatementTotals = (stored: StoredCharge, incoming: IncomingCharge): TotalChange[] => {
  // A charge written before per-source totals: its old amount was never attributed to its source.
  const fresh = { delta: incoming.amount, charges: 1 };
  if (stored.currency === incoming.currency) {
    const change = {
      currency: incoming.currency,
      delta: subtractDecimals(incoming.amount, stored.amount),
      charges: 0,
    };
    return [withSource(incoming, change, stored.attributed ? change : fresh)];
  }
  const out = {
    currency: stored.currency,
    delta: subtractDecimals('0', stored.amount),
    charges: -1,
  };
  return [
    stored.attributed ? withSource(incoming, out) : out,
    withSource(incoming, { currency: incoming.currency, delta: incoming.amount, charges: 1 }),
  ];
};

/** What the ledger holds after a decision that changes it. */
export const chargeAfter = (incoming: IncomingCharge): StoredCharge => ({
  version: incoming.identity.version,
  contentHash: incoming.contentHash,
  amount: incoming.amount,
  currency: incoming.currency,
  ...(incoming.source === undefined ? {} : { attributed: true }),
});
