/**
 * The notification (kind `provisional-drift`) of an account-period whose stream charges an export switch
 * superseded, with the stream that far from the export: one per account-period and switch.
 */
import Big from 'big.js';
import type { Tolerance } from '../reconciliation/compare';
import type { ExportDiffMessage } from './diff-message';
import type { AccountDrift } from './provisional-drift';
import { signedAmount } from './snapshot';

export const PROVISIONAL_DRIFT_KIND = 'provisional-drift';

/** What the switch recorded for one account-period (adapters/export-drift.ts stores it once). */
export interface DriftRecord extends AccountDrift {
  tenant: string;
  period: string;
  /** The export source (its id) whose switch superseded the stream charges. */
  source: string;
  executionId: string;
  switchedAt: string;
  /** The provider (stream source slug) whose stream charges became provisional. */
  provider: string;
  /** The threshold in force when the record was made. */
  threshold: Tolerance;
}

const SUBJECT_LIMIT = 100;

const percentOf = (ratio: string | undefined): string =>
  ratio === undefined ? 'no export figure' : `${new Big(ratio).times(100).round(4).toFixed()} %`;

export const provisionalDriftMessage = (
  record: DriftRecord,
  /** Another export of the period that ranks above the switched one (core/export-authority.ts). */
  shadowedBy?: string,
): ExportDiffMessage => {
  const subject = `Stream vs export drift: ${record.tenant} ${record.period} ${record.accountId}`
    .replace(/[^\x20-\x7E]/g, '?')
    .slice(0, SUBJECT_LIMIT);
  const body = [
    `${record.tenant} ${record.period}, account ${record.accountId}: the ${record.provider} stream charges differ from the export that superseded them by more than ${percentOf(record.threshold.ratio)} (floor ${record.threshold.floor}).`,
    '',
    ...record.currencies.map(
      (drift) =>
        `${drift.currency}: stream ${drift.stream} (${drift.streamCharges} charges), export ${drift.export} (${drift.exportCharges} rows), ` +
        `stream − export ${signedAmount(drift.difference)} (${percentOf(drift.ratio)})${drift.above ? ', above the threshold' : ''}`,
    ),
    '',
    `tenant: ${record.tenant}`,
    `account: ${record.accountId}`,
    `billing period: ${record.period}`,
    `stream source: ${record.provider}`,
    `export source: ${record.source}`,
    `execution: ${record.executionId}`,
    `switched at: ${record.switchedAt}`,
    'The export counts; the stream charges are kept as provisional (billing-dedup ledger shows both).',
    ...(shadowedBy
      ? [
          '',
          `Shadowed: export source ${shadowedBy} ranks above this one for the period. Where it also covers this account, the ledger counts it instead.`,
        ]
      : []),
  ].join('\n');
  return {
    subject,
    body,
    attributes: { kind: PROVISIONAL_DRIFT_KIND, tenant: record.tenant, account: record.accountId },
  };
};

/**
 * One notification per account-period and switch, however often the switch is delivered. `:` is in no
 * tenant slug, so these keys never meet an export-diff key (`<tenant>#…`).
 */
export const provisionalDriftKey = (record: DriftRecord): string =>
  `${PROVISIONAL_DRIFT_KIND}:${[record.tenant, record.source, record.period, record.executionId, record.accountId].join('#')}`;
