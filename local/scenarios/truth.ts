/**
 * The ground truth of a sample, built from the generator's own model of each charge and alert (exact
 * decimals with big.js), never from the consumer's parsers.
 */
import Big from 'big.js';
import { ALERT_STREAM, COST_STREAM } from '../../contract/streams';
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { formatDecimal } from '../../lambda/core/decimal';
import type { ChargeEffect, ConflictPair, GroundTruth, Topic } from './sample';

/** What the ledger does with a charge of a closed period (the stage's `lateChargePolicy`). */
export type SampleLatePolicy = 'roll-forward' | 'reject';

/** A late effect booked in a later open period as a correction of the closed one (`of`). */
interface RolledEffect {
  effect: ChargeEffect;
  of: string;
  /** 1 for a new charge, 0 for a restatement's difference. */
  charges: number;
}

const accountPeriod = (e: Pick<ChargeEffect, 'tenant' | 'accountId' | 'period'>): string =>
  `${e.tenant}|${e.accountId}|${e.period}`;

export class TruthBuilder {
  /** By charge identity: booking an identity again replaces its effect (a restatement's last version). */
  private readonly charges = new Map<string, ChargeEffect>();
  /** Account-periods closed so far (`tenant|account|period`). */
  private readonly closed = new Set<string>();
  /** The latest amount of each identity booked after its period closed. */
  private readonly lateAmounts = new Map<string, string>();
  private readonly rolled: RolledEffect[] = [];
  private readonly conflictPairs: ConflictPair[] = [];
  private readonly deadLetters: Record<Topic, number> = { [COST_STREAM]: 0, [ALERT_STREAM]: 0 };
  private readonly notificationKeys = new Set<string>();

  book(identity: string, effect: ChargeEffect): void {
    this.charges.set(identity, effect);
  }

  /** The period is closed: its totals stay as booked so far. */
  close(key: Pick<ChargeEffect, 'tenant' | 'accountId' | 'period'>): void {
    this.closed.add(accountPeriod(key));
  }

  /**
   * A charge delivered after its period closed. The same content again is a duplicate (no effect);
   * otherwise `reject` dead-letters it, and `roll-forward` books the new charge, or a restatement's
   * difference, in the next month (open in the sample) as a correction of the closed one.
   */
  bookLate(identity: string, effect: ChargeEffect, policy: SampleLatePolicy, next: string): void {
    if (!this.closed.has(accountPeriod(effect))) return this.book(identity, effect);
    const before = this.lateAmounts.get(identity) ?? this.charges.get(identity)?.amount;
    if (before !== undefined && new Big(before).eq(effect.amount)) return;
    if (policy === 'reject') return this.deadLetter(COST_STREAM);
    this.lateAmounts.set(identity, effect.amount);
    this.rolled.push({
      effect: {
        ...effect,
        period: next,
        amount: formatDecimal(new Big(effect.amount).minus(before ?? '0')),
      },
      of: effect.period,
      charges: before === undefined ? 1 : 0,
    });
  }

  /** A message its stream must dead-letter once. */
  deadLetter(topic: Topic): void {
    this.deadLetters[topic]++;
  }

  /** The original is booked by its caller; exactly one of the two lands in the DLQ. */
  conflict(pair: ConflictPair): void {
    this.conflictPairs.push(pair);
    this.deadLetter(COST_STREAM);
  }

  get conflicts(): number {
    return this.conflictPairs.length;
  }

  notify(alertKey: string): void {
    this.notificationKeys.add(alertKey);
  }

  build(): Omit<GroundTruth, 'exports'> {
    return {
      ledger: withPeriods(withoutProvisional([...this.charges.values()]), this.rolled, this.closed),
      notificationKeys: [...this.notificationKeys].sort(),
      deadLetters: { ...this.deadLetters },
      conflicts: [...this.conflictPairs],
    };
  }
}

/**
 * Expected totals when exports count: a stream charge of the provider an export row of its
 * account-period supersedes is provisional (its row stays, its amount and count are not added).
 */
const withoutProvisional = (effects: ChargeEffect[]): LedgerTotal[] => {
  const superseded = new Map<string, string>();
  for (const effect of effects)
    if (effect.supersedes !== undefined) superseded.set(accountPeriod(effect), effect.supersedes);
  const provisional = (effect: ChargeEffect) =>
    effect.source !== undefined && superseded.get(accountPeriod(effect)) === effect.source;
  const counted = ledgerOf(effects.filter((effect) => !provisional(effect)));
  const rows = new Map(counted.map((row) => [`${accountPeriod(row)}|${row.currency}`, row]));
  for (const effect of effects.filter(provisional)) {
    const key = `${accountPeriod(effect)}|${effect.currency}`;
    if (!rows.has(key)) rows.set(key, { ...ledgerOf([{ ...effect, amount: '0' }])[0], charges: 0 });
  }
  return [...rows.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, row]) => row);
};

/** Expected ledger totals from charge effects: exact sums per tenant, account, period and currency. */
export const ledgerOf = (effects: ChargeEffect[]): LedgerTotal[] => {
  const totals = new Map<string, { effect: ChargeEffect; total: Big; charges: number }>();
  for (const effect of effects) {
    const key = `${effect.tenant}|${effect.accountId}|${effect.period}|${effect.currency}`;
    const entry = totals.get(key) ?? { effect, total: new Big(0), charges: 0 };
    entry.total = entry.total.plus(effect.amount);
    entry.charges++;
    totals.set(key, entry);
  }
  return [...totals.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { effect, total, charges }]) => ({
      tenant: effect.tenant,
      accountId: effect.accountId,
      period: effect.period,
      currency: effect.currency,
      total: formatDecimal(total),
      charges,
    }));
};

/**
 * The ledger as statements show it once periods close: every row's `status`, and the late effects
 * rolled into later periods counted there (total and charges) and listed as `corrections`.
 */
const withPeriods = (
  rows: LedgerTotal[],
  rolled: readonly RolledEffect[],
  closed: ReadonlySet<string>,
): LedgerTotal[] => {
  const byKey = new Map(rows.map((row) => [`${accountPeriod(row)}|${row.currency}`, row]));
  for (const { effect, of, charges } of rolled) {
    const key = `${accountPeriod(effect)}|${effect.currency}`;
    const row = byKey.get(key) ?? {
      tenant: effect.tenant,
      accountId: effect.accountId,
      period: effect.period,
      currency: effect.currency,
      total: '0',
      charges: 0,
    };
    const corrections = [...(row.corrections ?? [])];
    const found = corrections.findIndex((correction) => correction.of === of);
    const previous = found >= 0 ? corrections[found] : { of, total: '0', charges: 0 };
    const merged = {
      of,
      total: formatDecimal(new Big(previous.total).plus(effect.amount)),
      charges: previous.charges + charges,
    };
    if (found >= 0) corrections[found] = merged;
    else corrections.push(merged);
    byKey.set(key, {
      ...row,
      total: formatDecimal(new Big(row.total).plus(effect.amount)),
      charges: row.charges + charges,
      corrections: corrections.sort((a, b) => a.of.localeCompare(b.of)),
    });
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, row]): LedgerTotal => ({
      ...row,
      status: closed.has(accountPeriod(row)) ? 'closed' : 'open',
    }));
};
