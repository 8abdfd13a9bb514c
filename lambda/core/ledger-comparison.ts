import { compareDecimals } from './decimal';

/** One account's total in one currency, as either ledger states it. */
export interface AccountTotal {
  accountId: string;
  currency: string;
  total: string;
  charges: number;
}

export interface TotalDifference {
  accountId: string;
  currency: string;
  /** `0` and no charges where that ledger has no total. */
  live: { total: string; charges: number };
  rebuilt: { total: string; charges: number };
}

export interface LedgerComparison {
  /** Account-currency totals the two ledgers state alike (exact decimals, same charge count). */
  equal: number;
  differences: TotalDifference[];
}

const keyOf = (row: AccountTotal): string => `${row.accountId}\u0000${row.currency}`;
const NONE = { total: '0', charges: 0 };

/** The totals of a live ledger and of a ledger rebuilt beside it, compared exactly, in account order. */
export const compareLedgers = (
  live: readonly AccountTotal[],
  rebuilt: readonly AccountTotal[],
): LedgerComparison => {
  const liveOf = new Map(live.map((row) => [keyOf(row), row]));
  const rebuiltOf = new Map(rebuilt.map((row) => [keyOf(row), row]));
  const keys = [...new Set([...liveOf.keys(), ...rebuiltOf.keys()])].sort();
  const differences: TotalDifference[] = [];
  for (const key of keys) {
    const a = liveOf.get(key);
    const b = rebuiltOf.get(key);
    const sides = {
      live: a ? { total: a.total, charges: a.charges } : NONE,
      rebuilt: b ? { total: b.total, charges: b.charges } : NONE,
    };
    if (
      compareDecimals(sides.live.total, sides.rebuilt.total) !== 0 ||
      sides.live.charges !== sides.rebuilt.charges
    ) {
      const [accountId, currency] = key.split('\u0000');
      differences.push({ accountId, currency, ...sides });
    }
  }
  return { equal: keys.length - differences.length, differences };
};
