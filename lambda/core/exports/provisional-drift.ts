/**
 * Stream-versus-export drift: when an export switch supersedes its provider's stream charges for an
 * account-period (core/ledger-total.ts), what the stream said and what the export says, per currency.
 * It tells how far the near-real-time view (the stream) could be trusted before the export restated it.
 *
 * The arithmetic is the reconciliation's (core/reconciliation/compare.ts) with the export in the
 * provider's place: difference = stream − export (an absent side counts as 0), ratio = |difference| /
 * |export|, and a currency is above the threshold when |difference| > max(floor, ratio × |export|) —
 * exactly the threshold is not above. An account-period is above when any of its currencies is.
 */
import Big from 'big.js';
import {
  DEFAULT_PROVISIONAL_DRIFT_FLOOR,
  DEFAULT_PROVISIONAL_DRIFT_PERCENT,
} from '../../../contract/environment';
import { formatDecimal } from '../decimal';
import { compareTotals, toleranceRatioOfPercent, type Tolerance } from '../reconciliation/compare';

/** Per currency: an exact total and the charges (stream) or valid rows (export) behind it. */
export type CurrencyFigures = Record<string, { total: string; charges: number }>;

export interface CurrencyDrift {
  currency: string;
  stream: string;
  streamCharges: number;
  export: string;
  exportCharges: number;
  /** stream − export. */
  difference: string;
  /** |difference| / |export|, 10 decimal places; absent when the export has no figure or 0. */
  ratio?: string;
  above: boolean;
}

export interface AccountDrift {
  accountId: string;
  currencies: CurrencyDrift[];
  /** Some currency is above the threshold: the account-period is notified. */
  above: boolean;
}

/** 1 % and one unit of the billing currency: a stream that far from its export is worth a word. */
export const DEFAULT_DRIFT_THRESHOLD: Tolerance = {
  ratio: toleranceRatioOfPercent(DEFAULT_PROVISIONAL_DRIFT_PERCENT),
  floor: DEFAULT_PROVISIONAL_DRIFT_FLOOR,
};

const own = (figures: CurrencyFigures, currency: string) =>
  Object.prototype.hasOwnProperty.call(figures, currency) ? figures[currency] : undefined;

/** Stream charges worth comparing: some charge, or a total other than 0. */
export const hasStreamCharges = (stream: CurrencyFigures): boolean =>
  Object.values(stream).some((part) => part.charges !== 0 || !new Big(part.total).eq(0));

export const accountDrift = (
  accountId: string,
  stream: CurrencyFigures,
  exported: CurrencyFigures,
  threshold: Tolerance,
): AccountDrift => {
  const currencies = [...new Set([...Object.keys(stream), ...Object.keys(exported)])].sort();
  const drifts = currencies.map((currency): CurrencyDrift => {
    const said = own(stream, currency);
    const says = own(exported, currency);
    const comparison = compareTotals(
      { ledger: said?.total, provider: says?.total, final: true },
      threshold,
    );
    return {
      currency,
      stream: comparison.ledger,
      streamCharges: said?.charges ?? 0,
      export: comparison.provider,
      exportCharges: says?.charges ?? 0,
      difference: comparison.difference,
      ...(comparison.ratio === undefined ? {} : { ratio: comparison.ratio }),
      above: comparison.status !== 'ok',
    };
  });
  return { accountId, currencies: drifts, above: drifts.some((drift) => drift.above) };
};

/** What a switch's drift comes to, for its metrics and log line. */
export interface DriftSummary {
  /** Account-periods whose stream charges the switch superseded (a record each). */
  accounts: number;
  /** Of those, above the threshold. */
  above: number;
  /** Notifications this delivery sent (0 when a redelivery found them sent). */
  notified: number;
  /** The largest |difference| of any currency (display only: the records hold each exact figure). */
  largestDifference: string;
  /** The largest ratio; absent when no currency has one. */
  largestRatio?: string;
}

export const summarizeDrifts = (
  drifts: readonly Pick<AccountDrift, 'currencies' | 'above'>[],
  notified: number,
): DriftSummary => {
  let largestDifference = new Big(0);
  let largestRatio: Big | undefined;
  for (const drift of drifts.flatMap((account) => account.currencies)) {
    const difference = new Big(drift.difference).abs();
    if (difference.gt(largestDifference)) largestDifference = difference;
    if (drift.ratio !== undefined && (!largestRatio || largestRatio.lt(drift.ratio)))
      largestRatio = new Big(drift.ratio);
  }
  return {
    accounts: drifts.length,
    above: drifts.filter((drift) => drift.above).length,
    notified,
    largestDifference: formatDecimal(largestDifference),
    ...(largestRatio ? { largestRatio: formatDecimal(largestRatio) } : {}),
  };
};
