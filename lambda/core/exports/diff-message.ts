/**
 * The notification an operator reads when a newer export changed a period's total: a short subject,
 * the change line of `changeNotifications` and the facts to find the executions.
 */
import type { ChangeNotification } from './snapshot';
import type { ExecutionRef } from './run-task';

export interface ExportDiffMessage {
  subject: string;
  body: string;
  attributes: Record<string, string>;
}

/** SNS subjects: printable ASCII, no line breaks, at most 100 characters. */
const SUBJECT_LIMIT = 100;

export const EXPORT_DIFF_KIND = 'export-diff';

export const exportDiffMessage = (
  change: ChangeNotification,
  context: {
    ref: ExecutionRef;
    previousExecutionId?: string;
    switchedAt: string;
    /** Another export of the period that ranks above this one (core/export-authority.ts). */
    shadowedBy?: string;
  },
): ExportDiffMessage => {
  const { ref } = context;
  const subject =
    `Billing export changed: ${ref.tenant} ${ref.period} ${change.accountId} ${change.currency}`
      .replace(/[^\x20-\x7E]/g, '?')
      .slice(0, SUBJECT_LIMIT);
  const body = [
    change.text,
    '',
    `tenant: ${ref.tenant}`,
    `account: ${change.accountId}`,
    `billing period: ${ref.period}`,
    `currency: ${change.currency}`,
    `change: ${change.delta}`,
    `export source: ${ref.source}`,
    `execution: ${ref.executionId}`,
    `previous execution: ${context.previousExecutionId ?? '(none)'}`,
    `switched at: ${context.switchedAt}`,
    ...(context.shadowedBy
      ? [
          '',
          `Shadowed: export source ${context.shadowedBy} ranks above this one for the period. Where it also covers this account, the ledger counts it and this change is not in the total.`,
        ]
      : []),
  ].join('\n');
  return {
    subject,
    body,
    attributes: { kind: EXPORT_DIFF_KIND, tenant: ref.tenant, account: change.accountId },
  };
};

/** One notification per execution, account and currency, whoever runs the switch and however often. */
export const exportDiffKey = (ref: ExecutionRef, change: ChangeNotification): string =>
  [ref.tenant, ref.source, ref.period, ref.executionId, change.accountId, change.currency].join(
    '#',
  );
