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
}

export interface IncomingCharge {
  identity: CostIdentity;
  contentHash: string;
  amount: string;
  currency: string;
}

/** Change to one currency total of a ledger partition. */
export interface TotalChange {
  currency: string;
  delta: string;
  charges: number;
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
      totals: [{ currency: incoming.currency, delta: incoming.amount, charges: 1 }],
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

const restatementTotals = (stored: StoredCharge, incoming: IncomingCharge): TotalChange[] =>
  stored.currency === incoming.currency
    ? [
        {
          currency: incoming.currency,
          delta: subtractDecimals(incoming.amount, stored.amount),
          charges: 0,
        },
      ]
    : [
        { currency: stored.currency, delta: subtractDecimals('0', stored.amount), charges: -1 },
        { currency: incoming.currency, delta: incoming.amount, charges: 1 },
      ];

/** What the ledger holds after a decision that changes it. */
export const chargeAfter = (incoming: IncomingCharge): StoredCharge => ({
  version: incoming.identity.version,
  contentHash: incoming.contentHash,
  amount: incoming.amount,
  currency: incoming.currency,
});
