import type { AlertEvent } from './events';

export interface AlertMessage {
  subject: string;
  body: string;
  /** SNS message attributes for subscription filter policies. */
  attributes: { kind: string; tenant: string; accountId: string; severity: string; source: string };
}

/** SNS subjects: printable ASCII, no line breaks, at most 100 characters. */
const SUBJECT_LIMIT = 100;

/** Bidi controls reorder what a reader sees (an amount or account id can be made to read backwards). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/** Controls and line breaks in a value could forge a line of the body (`Alert key: …`). */
const CONTROLS = /[\p{Cc}\p{Zl}\p{Zp}]+/gu;

/** A value as a notification shows it: no bidi controls, on one line. */
const plain = (text: string): string => text.replace(BIDI_CONTROLS, '').replace(CONTROLS, ' ');

const money = (amount: string | undefined, currency: string | undefined): string =>
  amount === undefined ? 'n/a' : `${amount}${currency ? ` ${currency}` : ''}`;

const thresholdText = (alert: AlertEvent): string => {
  if (alert.threshold === undefined) return 'n/a';
  if (alert.source === 'gcp') return `${alert.threshold} of the budget`;
  return alert.threshold.endsWith('%') ? alert.threshold : money(alert.threshold, alert.currency);
};

/** The notification people read: a short subject and a plain-text body with the facts. */
export const alertMessage = (alert: AlertEvent, key: string): AlertMessage => {
  const budget = alert.budgetName ?? alert.budgetId ?? 'budget';
  const subject = plain(
    alert.kind === 'anomaly'
      ? `[${alert.severity}] Cost anomaly in ${alert.accountId}: ${money(alert.amount, alert.currency)}`
      : `[${alert.severity}] ${budget} ${alert.kind === 'budget-forecast' ? 'forecast to exceed' : 'exceeded'} ${thresholdText(alert)}`,
  );
  const lines: [string, string | undefined][] =
    alert.kind === 'anomaly'
      ? [
          ['Tenant', alert.tenant],
          ['Account', alert.accountId],
          ['Anomaly', alert.anomalyId],
          ['Started', alert.anomalyStart],
          ['Service', alert.service],
          ['Total impact', money(alert.amount, alert.currency)],
          ['Monitor', alert.monitorArn],
        ]
      : [
          ['Tenant', alert.tenant],
          ['Source', alert.source],
          ['Account', alert.accountId],
          ['Budget', budget],
          ['Period', alert.period],
          ['Type', alert.thresholdType],
          ['Threshold', thresholdText(alert)],
          ['Spend', money(alert.amount, alert.currency)],
          ['Budgeted', money(alert.budgetAmount, alert.currency)],
        ];
  const body = [
    subject,
    '',
    ...lines
      .filter(([, value]) => value !== undefined)
      .map(([label, value]) => `${label}: ${plain(value ?? '')}`),
    '',
    `Alert key: ${key}`,
  ].join('\n');
  return {
    subject: subject.replace(/[^\x20-\x7E]/g, '?').slice(0, SUBJECT_LIMIT),
    body,
    attributes: {
      kind: alert.kind,
      tenant: alert.tenant,
      accountId: alert.accountId,
      severity: alert.severity,
      source: alert.source,
    },
  };
};
