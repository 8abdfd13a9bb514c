/**
 * The ground truth of a sample, built from the generator's own model of each charge and alert (exact
 * decimals with big.js), never from the consumer's parsers.
 */
import Big from 'big.js';
import { ALERT_STREAM, COST_STREAM } from '../../contract/streams';
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { formatDecimal } from '../../lambda/core/decimal';
import type { ChargeEffect, ConflictPair, GroundTruth, Topic } from './sample';

export class TruthBuilder {
  /** By charge identity: booking an identity again replaces its effect (a restatement's last version). */
  private readonly charges = new Map<string, ChargeEffect>();
  private readonly conflictPairs: ConflictPair[] = [];
  private readonly deadLetters: Record<Topic, number> = { [COST_STREAM]: 0, [ALERT_STREAM]: 0 };
  private readonly notificationKeys = new Set<string>();

  book(identity: string, effect: ChargeEffect): void {
    this.charges.set(identity, effect);
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
      ledger: ledgerOf([...this.charges.values()]),
      notificationKeys: [...this.notificationKeys].sort(),
      deadLetters: { ...this.deadLetters },
      conflicts: [...this.conflictPairs],
    };
  }
}

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
