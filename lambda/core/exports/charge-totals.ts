/**
 * Exact totals of export charges, per account × currency × service: the shape a chunk commits and a
 * snapshot sums. Amounts are exact decimal strings; adding never rounds.
 */
import { addDecimals } from '../decimal';

/** ServiceName of rows that have none. */
export const NO_SERVICE = '(no service)';

export interface CurrencyTotals {
  total: string;
  /** Valid rows counted in `total`. */
  charges: number;
  /** ServiceName → total. */
  services: Record<string, string>;
}

/** accountId → currency → totals. */
export type ChargeTotals = Record<string, Record<string, CurrencyTotals>>;

export interface TotalsCharge {
  accountId: string;
  currency: string;
  amount: string;
  service?: string;
  /** Rows the amount stands for (1 for one charge). */
  charges?: number;
}

/** Maps keyed by data (account ids, service names) have no prototype: `__proto__` is just a name. */
const emptyRecord = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

const ownEntry = <T>(record: Record<string, T>, key: string, create: () => T): T => {
  if (!Object.prototype.hasOwnProperty.call(record, key)) record[key] = create();
  return record[key];
};

const emptyCurrency = (): CurrencyTotals => ({ total: '0', charges: 0, services: emptyRecord() });

export const emptyTotals = (): ChargeTotals => emptyRecord();

/** Adds a charge (or the sum of `charges` of them) to `totals` (mutates it). */
export const addCharge = (totals: ChargeTotals, charge: TotalsCharge): void => {
  const account = ownEntry(totals, charge.accountId, emptyRecord<CurrencyTotals>);
  const entry = ownEntry(account, charge.currency, emptyCurrency);
  entry.total = addDecimals(entry.total, charge.amount);
  entry.charges += charge.charges ?? 1;
  const service = charge.service ?? NO_SERVICE;
  entry.services[service] = addDecimals(
    Object.prototype.hasOwnProperty.call(entry.services, service) ? entry.services[service] : '0',
    charge.amount,
  );
};

/** Adds `part` to `sum` exactly (mutates `sum`, not `part`): a running sum holds one copy. */
export const addTotals = (sum: ChargeTotals, part: ChargeTotals): void => {
  for (const [accountId, currencies] of Object.entries(part)) {
    const account = ownEntry(sum, accountId, emptyRecord<CurrencyTotals>);
    for (const [currency, totals] of Object.entries(currencies)) {
      const entry = ownEntry(account, currency, emptyCurrency);
      entry.total = addDecimals(entry.total, totals.total);
      entry.charges += totals.charges;
      for (const [service, amount] of Object.entries(totals.services)) {
        entry.services[service] = addDecimals(
          Object.prototype.hasOwnProperty.call(entry.services, service)
            ? entry.services[service]
            : '0',
          amount,
        );
      }
    }
  }
};

/** The exact sum of several totals (none is mutated). */
export const sumTotals = (parts: readonly ChargeTotals[]): ChargeTotals => {
  const sum = emptyTotals();
  for (const part of parts) addTotals(sum, part);
  return sum;
};
