/**
 * The reconciliation rule: the ledger's total of one (tenant, account, period, currency) against the
 * provider's own figure for it. Exact decimals (big.js), never floats.
 *
 * - difference = ledger − provider (an absent side counts as 0).
 * - ratio = |difference| / |provider|, to 10 decimal places (rounded half-even); absent when the
 *   provider's figure is absent or 0.
 * - allowed = max(floor, tolerance × |provider|), tolerance a fraction (0.1 % = 0.001).
 * - status:
 *   - `missing-in-ledger`: the ledger has no row and the provider's |amount| is above `floor`;
 *   - `missing-at-provider`: the provider has no figure and the ledger's |amount| is above `floor`;
 *   - `ok`: |difference| ≤ allowed — a difference of exactly the tolerance is ok (inclusive edge);
 *   - `drift`: |difference| > allowed.
 *   An absent side whose other side is within the floor is `ok` (nothing worth asking about).
 * - final: the provider said its figure for the period is final (Cost Explorer: not `Estimated`).
 * - pages: a final figure whose status is not `ok`. Estimated figures are recorded, never paged.
 */
import Big from 'big.js';
import { formatDecimal } from '../decimal';

export type ReconciliationStatus = 'ok' | 'drift' | 'missing-in-ledger' | 'missing-at-provider';

export const RECONCILIATION_STATUSES: readonly ReconciliationStatus[] = [
  'ok',
  'drift',
  'missing-in-ledger',
  'missing-at-provider',
];

export interface Tolerance {
  /** A fraction: `0.001` is 0.1 %. */
  ratio: string;
  /** Absolute amount (in the row's currency) under which any difference is ok. */
  floor: string;
}

/** 0.1 %, and one cent: below a cent no total is worth a page. */
export const DEFAULT_TOLERANCE: Tolerance = { ratio: '0.001', floor: '0.01' };

/** Percent text (`0.1`) → the fraction the rule uses (`0.001`). */
export const toleranceRatioOfPercent = (percent: string): string =>
  formatDecimal(new Big(percent).div(100));

/** Decimal places of a stored ratio. */
export const RATIO_PLACES = 10;

export interface ComparisonInput {
  /** The ledger's total; undefined when the ledger has no row. */
  ledger?: string;
  /** The provider's figure; undefined when it has none. */
  provider?: string;
  /** The provider's figure (or its answer for the period, when it has none) is final. */
  final: boolean;
}

export interface Comparison {
  ledger: string;
  provider: string;
  difference: string;
  /** |difference| / |provider|; absent when the provider's figure is absent or 0. */
  ratio?: string;
  status: ReconciliationStatus;
  final: boolean;
  pages: boolean;
}

const ratioOf = (difference: Big, provider: Big): string | undefined => {
  if (provider.eq(0)) return undefined;
  return formatDecimal(difference.abs().div(provider.abs()).round(RATIO_PLACES, Big.roundHalfEven));
};

export const compareTotals = (
  input: ComparisonInput,
  tolerance: Tolerance = DEFAULT_TOLERANCE,
): Comparison => {
  const ledger = new Big(input.ledger ?? '0');
  const provider = new Big(input.provider ?? '0');
  const floor = new Big(tolerance.floor);
  const difference = ledger.minus(provider);
  const allowed = provider.abs().times(tolerance.ratio);
  const within = difference.abs().lte(allowed.gt(floor) ? allowed : floor);
  const status: ReconciliationStatus =
    input.ledger === undefined && provider.abs().gt(floor)
      ? 'missing-in-ledger'
      : input.provider === undefined && ledger.abs().gt(floor)
        ? 'missing-at-provider'
        : within
          ? 'ok'
          : 'drift';
  const ratio = input.provider === undefined ? undefined : ratioOf(difference, provider);
  return {
    ledger: formatDecimal(ledger),
    provider: formatDecimal(provider),
    difference: formatDecimal(difference),
    ...(ratio !== undefined ? { ratio } : {}),
    status,
    final: input.final,
    pages: input.final && status !== 'ok',
  };
};
