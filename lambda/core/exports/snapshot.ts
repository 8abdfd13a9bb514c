/**
 * A period snapshot is the exact sum of its execution's chunk totals. When a new execution becomes
 * current, its snapshot is compared with the previous one per account × currency × service, and the
 * account-currencies that moved by at least a threshold get a readable notification.
 */
import Big from 'big.js';
import { parseThresholdText } from '../../../contract/threshold';
import { fail } from '../errors';
import { formatDecimal, subtractDecimals } from '../decimal';
import { sumTotals, type ChargeTotals, type CurrencyTotals } from './charge-totals';

export const snapshotTotals = sumTotals;

export interface ServiceDelta {
  service: string;
  old: string;
  new: string;
  delta: string;
}

export interface AccountDelta {
  accountId: string;
  currency: string;
  old: string;
  new: string;
  delta: string;
  oldCharges: number;
  newCharges: number;
  /** Services whose total changed, largest change first. */
  services: ServiceDelta[];
}

export interface SnapshotDiff {
  executionId: string;
  previousExecutionId?: string;
  /** Account-currencies where anything changed, by account then currency. */
  accounts: AccountDelta[];
}

const EMPTY: CurrencyTotals = { total: '0', charges: 0, services: {} };
const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;

const byLargestChange = (a: ServiceDelta, b: ServiceDelta): number =>
  new Big(b.delta).abs().cmp(new Big(a.delta).abs()) || a.service.localeCompare(b.service);

const serviceDeltas = (before: CurrencyTotals, after: CurrencyTotals): ServiceDelta[] => {
  const names = new Set([...Object.keys(before.services), ...Object.keys(after.services)]);
  return [...names]
    .map((service) => {
      const old = own(before.services, service) ?? '0';
      const now = own(after.services, service) ?? '0';
      return { service, old, new: now, delta: subtractDecimals(now, old) };
    })
    .filter((row) => row.delta !== '0')
    .sort(byLargestChange);
};

const keysOf = (a: ChargeTotals, b: ChargeTotals): [string, string][] => {
  const pairs = new Map<string, [string, string]>();
  for (const totals of [a, b]) {
    for (const [accountId, currencies] of Object.entries(totals)) {
      for (const currency of Object.keys(currencies)) {
        pairs.set(`${accountId}\u0000${currency}`, [accountId, currency]);
      }
    }
  }
  return [...pairs.values()].sort(
    ([a1, c1], [a2, c2]) => a1.localeCompare(a2) || c1.localeCompare(c2),
  );
};

/** What changed from `previous` (undefined: the first snapshot of the period) to `current`. */
export const diffSnapshots = (
  current: { executionId: string; totals: ChargeTotals },
  previous?: { executionId: string; totals: ChargeTotals },
): SnapshotDiff => {
  const before = previous?.totals ?? {};
  const accounts = keysOf(before, current.totals).flatMap(([accountId, currency]) => {
    const old = own(own(before, accountId), currency) ?? EMPTY;
    const now = own(own(current.totals, accountId), currency) ?? EMPTY;
    const services = serviceDeltas(old, now);
    const delta = subtractDecimals(now.total, old.total);
    if (delta === '0' && services.length === 0 && old.charges === now.charges) return [];
    return [
      {
        accountId,
        currency,
        old: old.total,
        new: now.total,
        delta,
        oldCharges: old.charges,
        newCharges: now.charges,
        services,
      },
    ];
  });
  return {
    executionId: current.executionId,
    ...(previous ? { previousExecutionId: previous.executionId } : {}),
    accounts,
  };
};

/**
 * A non-negative exact decimal; amounts whose |change| reaches it are notified. The rule is shared with
 * the configuration's check at synth (contract/threshold.ts).
 */
export const parseThreshold = (value: string): string => {
  const parsed = parseThresholdText(value);
  return parsed.ok
    ? parsed.value
    : fail(parsed.empty ? 'missing-field' : 'invalid-field', 'threshold', parsed.reason);
};

/** Exact, signed, at least two fraction digits: `+412.18`, `-0.000123`, `+0.00`. */
export const signedAmount = (value: string): string => {
  const big = new Big(value);
  const digits = Math.max(2, (formatDecimal(big).split('.')[1] ?? '').length);
  return `${big.lt(0) ? '-' : '+'}${big.abs().toFixed(digits)}`;
};

const SERVICES_SHOWN = 5;

export interface ChangeNotification {
  accountId: string;
  currency: string;
  delta: string;
  text: string;
}

/**
 * One notification per account-currency whose total moved by |delta| ≥ threshold since the previous
 * export. The first snapshot of a period has nothing to compare with and notifies nothing.
 */
export const changeNotifications = (
  diff: SnapshotDiff,
  scope: { tenant: string; period: string; threshold: string },
): ChangeNotification[] => {
  const threshold = new Big(parseThreshold(scope.threshold));
  if (diff.previousExecutionId === undefined) return [];
  return diff.accounts
    .filter((account) => new Big(account.delta).abs().gte(threshold))
    .map((account) => {
      const shown = account.services
        .slice(0, SERVICES_SHOWN)
        .map((service) => `${service.service} ${signedAmount(service.delta)}`);
      const more = account.services.length - shown.length;
      const services =
        shown.length === 0 ? '' : `; ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
      return {
        accountId: account.accountId,
        currency: account.currency,
        delta: account.delta,
        text: `${scope.tenant} ${scope.period}, account ${account.accountId}: ${signedAmount(account.delta)} ${account.currency} since the previous export${services}`,
      };
    });
};
