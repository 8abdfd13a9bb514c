/**
 * Billing periods as the ledger sees them: `yyyy-mm` arithmetic and where a late effect is booked
 * (docs/ledger.md#late-charges). No I/O: the state of a period is asked through `stateOf`.
 */
import { TransientError } from './errors';
import type { Supersession } from './ledger-total';
import type { LateChargePolicy, PeriodKey, PeriodState } from './ports';

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const isPeriod = (text: string): boolean => PERIOD.test(text);

/** The month after a `yyyy-mm` period. */
export const nextPeriod = (period: string): string => {
  const match = PERIOD.exec(period);
  if (!match) throw new Error(`not a yyyy-mm period: ${JSON.stringify(period)}`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  return month === 12
    ? `${String(year + 1).padStart(4, '0')}-01`
    : `${match[1]}-${String(month + 1).padStart(2, '0')}`;
};

/** Epoch ms of the first instant after the period (UTC, as AWS bills): the period has ended from then on. */
export const periodEnd = (period: string): number => {
  const match = PERIOD.exec(period);
  if (!match) throw new RangeError(`not a yyyy-mm period: ${JSON.stringify(period)}`);
  return Date.UTC(Number(match[1]), Number(match[2]), 1);
};

/** The `yyyy-mm` period of an instant. */
export const periodOfInstant = (epochMs: number): string =>
  new Date(epochMs).toISOString().slice(0, 7);

/** How far a late effect may roll: past it something is wrong (a run of closed months), so retry later. */
export const MAX_ROLL_FORWARD_MONTHS = 36;

/** Where an effect whose own period is `own` is booked. */
export type BookingTarget =
  | { kind: 'own'; period: string }
  | { kind: 'rolled'; period: string }
  | { kind: 'rejected'; period: string };

/**
 * The period an effect is booked in: its own while open; else `reject` refuses it and `roll-forward`
 * books it in the earliest open period after its own.
 */
export const bookingTarget = async (
  own: string,
  policy: LateChargePolicy,
  stateOf: (period: string) => Promise<PeriodState>,
): Promise<BookingTarget> => {
  if ((await stateOf(own)) === 'open') return { kind: 'own', period: own };
  if (policy === 'reject') return { kind: 'rejected', period: own };
  let period = own;
  for (let month = 1; month <= MAX_ROLL_FORWARD_MONTHS; month++) {
    period = nextPeriod(period);
    if ((await stateOf(period)) === 'open') return { kind: 'rolled', period };
  }
  throw new TransientError(
    `no open billing period within ${MAX_ROLL_FORWARD_MONTHS} months after ${own} to book a late charge in`,
  );
};

const periodId = (key: PeriodKey): string =>
  JSON.stringify([key.tenant, key.accountId, key.period]);

/**
 * Where a batch's effects are booked, with what it learned of closed periods kept for the rest of the
 * invocation (a late charge after the first costs no failed transaction). An effect's own period is
 * assumed open until a commit is refused — the commit's own condition is the check, so the hot path
 * reads nothing; later periods are asked through `stateOf` when given. A late stream charge whose closed
 * period's export supersedes its source is not booked by the policy: it is kept there as provisional
 * (`keepsProvisional`, docs/ledger.md#late-provisional-charges).
 */
export class Bookings {
  private readonly closed = new Set<string>();
  private readonly supersessions = new Map<string, Promise<Supersession | undefined>>();

  constructor(
    private readonly policy: LateChargePolicy,
    private readonly stateOf?: (key: PeriodKey) => Promise<PeriodState>,
    private readonly supersessionOf?: (key: PeriodKey) => Promise<Supersession | undefined>,
  ) {}

  markClosed(key: PeriodKey): void {
    this.closed.add(periodId(key));
  }

  /** A period found open again (reopened since a commit was refused). */
  markOpen(key: PeriodKey): void {
    this.closed.delete(periodId(key));
  }

  /**
   * Whether a late effect of `source` in the closed account-period `key` is kept there as provisional:
   * its export supersedes that source's stream charges (asked once per account-period and invocation;
   * a failed read is asked again).
   */
  async keepsProvisional(key: PeriodKey, source: string): Promise<boolean> {
    if (!this.supersessionOf || !this.isKnownClosed(key)) return false;
    const id = periodId(key);
    let found = this.supersessions.get(id);
    if (!found) {
      found = this.supersessionOf(key);
      this.supersessions.set(id, found);
      found.catch(() => this.supersessions.delete(id));
    }
    return (await found)?.provider === source;
  }

  isKnownClosed(key: PeriodKey): boolean {
    return this.closed.has(periodId(key));
  }

  target(own: PeriodKey): Promise<BookingTarget> {
    return bookingTarget(own.period, this.policy, async (period) => {
      const key = { ...own, period };
      if (this.isKnownClosed(key)) return 'closed';
      if (period === own.period || !this.stateOf) return 'open';
      const state = await this.stateOf(key);
      if (state === 'closed') this.markClosed(key);
      return state;
    });
  }
}
