/**
 * Corrections of closed periods by later export snapshots. A closed account-period keeps counting the
 * snapshot that was current when it closed (its pin); every later switch of that source books the
 * difference `new part − pinned part` as one correction charge per account and currency, a line item
 * whose version is the switch's sequence, so each switch restates the previous correction and the
 * ledger's own rules (duplicate, superseded, restated, late-charge policy) apply to it.
 */
import { subtractDecimals } from '../decimal';

/** The source slug of correction charges: part of their identity, so it never changes. */
export const CORRECTION_SOURCE = 'export';

type Parts = Record<string, { total: string }>;

export interface AccountCorrectionInput {
  accountId: string;
  /** The pinned execution's part for this account per currency ({} when it had none). */
  pinned: Parts;
  /** The new current execution's part per currency ({} when the account left the export). */
  next: Parts;
  /**
   * Other currencies whose correction may be non-zero: those of the previous current execution and those
   * whose correction was refused before. Their correction becomes `next − pinned` like the rest.
   */
  otherCurrencies: readonly string[];
}

export interface LateCorrection {
  accountId: string;
  currency: string;
  /** Exact decimal: new part − pinned part. */
  amount: string;
}

const own = (parts: Parts, currency: string): string =>
  Object.prototype.hasOwnProperty.call(parts, currency) ? parts[currency].total : '0';

/** Every (account, currency) correction a switch implies, sorted; zero amounts included (restating to 0). */
export const lateCorrections = (accounts: readonly AccountCorrectionInput[]): LateCorrection[] =>
  accounts
    .flatMap((account) =>
      [
        ...new Set([
          ...Object.keys(account.pinned),
          ...Object.keys(account.next),
          ...account.otherCurrencies,
        ]),
      ].map((currency) => ({
        accountId: account.accountId,
        currency,
        amount: subtractDecimals(own(account.next, currency), own(account.pinned, currency)),
      })),
    )
    .sort((a, b) => a.accountId.localeCompare(b.accountId) || a.currency.localeCompare(b.currency));

/** The line item id of the correction of one account-currency of one source's period. */
export const correctionLineItemId = (
  source: string,
  accountId: string,
  period: string,
  currency: string,
): string => `export-correction:${source}:${accountId}:${period}:${currency}`;

const nextMonthStart = (period: string): string => {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month, 1)).toISOString();
};

export interface CorrectionContext {
  tenant: string;
  /** Export source id (`<bucket>/<prefix>/<export-name>`). */
  source: string;
  period: string;
  /** The switch sequence of the (tenant, source, period): the correction's version. */
  sequence: number;
  executionId: string;
  pinnedExecutionId: string | undefined;
}

/**
 * The canonical cost message of a correction, booked through the cost commit path. Its content depends
 * only on the switch and the pin, so a re-run of the same switch is a duplicate.
 */
export const correctionMessage = (
  correction: LateCorrection,
  context: CorrectionContext,
): Record<string, unknown> => ({
  tenant: context.tenant,
  source: CORRECTION_SOURCE,
  accountId: correction.accountId,
  lineItemId: correctionLineItemId(
    context.source,
    correction.accountId,
    context.period,
    correction.currency,
  ),
  version: context.sequence,
  billingPeriodStart: `${context.period}-01T00:00:00.000Z`,
  chargePeriodStart: `${context.period}-01T00:00:00.000Z`,
  chargePeriodEnd: nextMonthStart(context.period),
  chargeCategory: 'adjustment',
  chargeClass: 'correction',
  description: `export ${context.source} ${context.period}: execution ${context.executionId} against ${
    context.pinnedExecutionId ?? 'no snapshot'
  } counted at close`,
  amount: correction.amount,
  currency: correction.currency,
});

/** A correction the ledger refused (its period closed under the `reject` policy, or a conflict). */
export interface RejectedCorrection extends LateCorrection {
  code: string;
  reason: string;
}

/** What the correction pass of one switch did, recorded on the execution. */
export interface LateCorrectionRecord {
  /** The switch sequence the pass ran for. */
  sequence: number;
  /** Corrections committed (new or restated). */
  booked: number;
  /** Corrections the ledger already held as computed. */
  unchanged: number;
  /** Refused corrections: a reopen of their period and a re-run of the switch apply them. */
  rejected: RejectedCorrection[];
  at: string;
}
