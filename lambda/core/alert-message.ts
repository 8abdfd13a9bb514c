import type { AlertEvent } from './events';

export interface AlertMessage {
  subject: string;
  body: string;
  /** SNS message attributes for subscription filter policies. */
  attributes: { kind: string; tenant: string; accountId: string; severity: string; source: string };
}

/** SNS subjects: printable ASCII, no line breaks, at most 100 characters. */
const SUBJECT_LIMIT = 100;

/** A subject cut to the SNS limit ends in `...`, so a reader knows it was cut. */
const fitSubject = (subject: string): string =>
  subject.length <= SUBJECT_LIMIT ? subject : `${subject.slice(0, SUBJECT_LIMIT - 3)}...`;

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

/** `day 2023-03-03`, `month 2026-11`, `quarter 2026-Q4`, `year 2026`, `period from <instant>`. */
export const periodLabel = (period: string | undefined): string | undefined => {
  if (period === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(period)) return `day ${period}`;
  if (/^\d{4}-\d{2}$/.test(period)) return `month ${period}`;
  if (/^\d{4}-Q[1-4]$/.test(period)) return `quarter ${period}`;
  if (/^\d{4}$/.test(period)) return `year ${period}`;
  return `period from ${period}`;
};

const impactText = (alert: AlertEvent): string =>
  `${money(alert.amount, alert.currency)}${alert.impactPercentage === undefined ? '' : ` (+${alert.impactPercentage}%)`}`;

const subjectOf = (alert: AlertEvent): string => {
  if (alert.kind === 'anomaly') {
    const about = alert.service === undefined ? '' : ` - ${alert.service}`;
    return `[${alert.severity}] Cost anomaly in ${alert.accountId}: impact ${impactText(alert)}${about}`;
  }
  const budget = alert.budgetName ?? alert.budgetId ?? 'budget';
  const period = periodLabel(alert.period);
  if (alert.kind === 'budget-update')
    return `[${alert.severity}] ${budget}: spend ${money(alert.amount, alert.currency)}`;
  const verb = alert.kind === 'budget-forecast' ? 'forecast to exceed' : 'exceeded';
  return `[${alert.severity}] ${budget} ${verb} ${thresholdText(alert)}${period ? ` (${period})` : ''}`;
};

const linesOf = (alert: AlertEvent): [string, string | undefined][] =>
  alert.kind === 'anomaly'
    ? [
        ['Tenant', alert.tenant],
        ['Source', alert.source],
        ['Account', alert.accountId],
        ['Anomaly', alert.anomalyId],
        ['Started', alert.anomalyStart],
        ['Service', alert.service],
        ['Impact', impactText(alert)],
        ['Monitor', alert.monitorArn],
      ]
    : [
        ['Tenant', alert.tenant],
        ['Source', alert.source],
        ['Account', alert.accountId],
        ['Budget', alert.budgetName ?? alert.budgetId ?? 'budget'],
        ['Period', periodLabel(alert.period)],
        ['Type', alert.thresholdType],
        ['Threshold', thresholdText(alert)],
        ['Spend', money(alert.amount, alert.currency)],
        ['Budgeted', money(alert.budgetAmount, alert.currency)],
      ];

/**
 * The notification people read: a short subject and a plain-text body with the facts, one `Label: value`
 * per line (as e-mail and as a chat message), root causes as a list, the source's link, then the alert key.
 */
export const alertMessage = (alert: AlertEvent, key: string): AlertMessage => {
  const subject = plain(subjectOf(alert));
  const causes = alert.causes ?? [];
  const body = [
    subject,
    '',
    ...linesOf(alert)
      .filter(([, value]) => value !== undefined)
      .map(([label, value]) => `${label}: ${plain(value ?? '')}`),
    ...(causes.length > 0 ? ['Root causes:', ...causes.map((cause) => `- ${plain(cause)}`)] : []),
    ...(alert.link === undefined ? [] : [`Link: ${plain(alert.link)}`]),
    '',
    `Alert key: ${key}`,
  ].join('\n');
  return {
    subject: fitSubject(subject.replace(/[^\x20-\x7E]/g, '?')),
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
