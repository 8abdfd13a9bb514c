/**
 * The notification of an incomplete export snapshot (kind `reconciliation-incomplete`): one per execution,
 * whatever the number of its accounts and nights it is found again — the key names the execution, and a
 * new execution of the period is a new snapshot (notified again if it is incomplete too).
 */
import type { DriftMessage } from './message';
import type { CompletenessRecord } from './completeness-records';

export const RECONCILIATION_INCOMPLETE_KIND = 'reconciliation-incomplete';
const SUBJECT_LIMIT = 100;
const ACCOUNTS_LISTED = 20;

export const incompleteKey = (record: CompletenessRecord): string =>
  [
    RECONCILIATION_INCOMPLETE_KIND,
    record.tenant,
    record.source,
    record.period,
    record.executionId,
  ].join('#');

/** `records`: the incomplete records of one execution (one per account), at least one. */
export const incompleteMessage = (records: readonly CompletenessRecord[]): DriftMessage => {
  const [first] = records;
  const { completeness } = first;
  const accounts = records.map((record) => record.accountId);
  const listed = accounts.slice(0, ACCOUNTS_LISTED);
  return {
    subject: `Billing export incomplete: ${first.tenant} ${first.period} ${first.executionId}`
      .replace(/[^\x20-\x7E]/g, '?')
      .slice(0, SUBJECT_LIMIT),
    body: [
      'The counted export snapshot did not read every row of its data files.',
      '',
      `tenant: ${first.tenant}`,
      `billing period: ${first.period}`,
      `export source: ${first.source}`,
      `execution: ${first.executionId}`,
      `accounts: ${listed.join(', ')}${accounts.length > listed.length ? ` and ${accounts.length - listed.length} more` : ''}`,
      `files read: ${completeness.filesRead} of ${completeness.filesPlanned}`,
      `rows read: ${completeness.rowsRead} of ${completeness.rowsExpected}`,
      ...completeness.files.map(
        (file) =>
          `  ${file.key}: read ${file.read} of ${file.expected} (${file.read - file.expected >= 0 ? '+' : ''}${file.read - file.expected})${file.problem ? `, ${file.problem}` : ''}`,
      ),
      ...(completeness.filesWrong > completeness.files.length
        ? [`  and ${completeness.filesWrong - completeness.files.length} more files`]
        : []),
      '',
      'Runbook: docs/operations.md "Reconciliation drift" (incomplete export).',
    ].join('\n'),
    attributes: {
      kind: RECONCILIATION_INCOMPLETE_KIND,
      tenant: first.tenant,
      ...(accounts.length === 1 ? { account: first.accountId } : {}),
    },
  };
};
