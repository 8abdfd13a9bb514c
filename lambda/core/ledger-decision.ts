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
  /**
   * Kept as a late provisional charge of its closed period (core/ledger-total.ts): its amount is in its
   * source's `provisional@` totals there, never in a total.
   */
  provisional?: boolean;
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
  /**
   * The change goes to the source's late provisional totals of the period (`provisional@`), not to its
   * total: a late charge of a closed period whose export supersedes its source, or the old amount of
   * such a charge taken out when it is restated.
   */
  provisional?: boolean;
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
  if (stored.provisional) {
    // Its old amount was only ever provisional: out of there, the new amount counted as a new charge.
    const out = { currency: stored.currency, delta: subtractDecimals('0', stored.amount) };
    return [
      withSource(incoming, { ...out, charges: -1, provisional: true }),
      withSource(incoming, { currency: incoming.currency, delta: incoming.amount, charges: 1 }),
    ];
  }
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

/**
 * Whether a charge may be kept as a late provisional charge of its closed period: a new charge, or a
 * restatement of one kept so. A charge that was counted keeps its amount where it was counted: its late
 * restatement is booked by the late-charge policy, as before.
 */
export const mayBeProvisional = (stored: StoredCharge | undefined): boolean =>
  stored === undefined || stored.provisional === true;

/**
 * The changes of a decision's commit when the charge is kept as a late provisional charge of its closed
 * period (`mayBeProvisional`): every change goes to its source's provisional totals there.
 */
export const asProvisional = (totals: readonly TotalChange[]): TotalChange[] =>
  totals.map((change) => ({ ...change, provisional: true }));

/** What the ledger holds after a decision that changes it (`provisional`: committed as provisional). */
export const chargeAfter = (incoming: IncomingCharge, provisional = false): StoredCharge => ({
  version: incoming.identity.version,
  contentHash: incoming.contentHash,
  amount: incoming.amount,
  currency: incoming.currency,
  ...(provisional
    ? { provisional: true }
    : incoming.source === undefined
      ? {}
      : { attributed: true }),
});
