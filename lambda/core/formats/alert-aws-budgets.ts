/**
 * AWS Budgets plain-text notification, as SNS delivers it:
 *
 *   AWS Budget Notification November 28, 2026
 *   AWS Account 200000000011
 *   …You requested that we alert you when the ACTUAL Cost … for the current month…
 *   Budget Name: prod-platform-monthly
 *   Budgeted Amount: $10,000.00
 *   Alert Type: ACTUAL
 *   Alert Threshold: > $8,000.00        (or `> 80.00%`)
 *   ACTUAL Amount: $8,214.55
 *
 * Tolerates CRLF/CR line ends, blank lines, a `Label:` whose value is on the next line, and rewrapped prose.
 * - accountId: `AWS Account 200000000011` (12 digits; dashes allowed). budgetName: `Budget Name:`, NFC,
 *   visible text only (`invalid-field` otherwise). Either missing → `missing-field` (`accountId`, `budgetName`).
 * - thresholdType/kind: `Alert Type:` ACTUAL → actual/budget-threshold, FORECASTED → forecasted/budget-forecast
 *   (else the `ACTUAL Cost`/`FORECASTED Cost` wording of the prose).
 * - threshold: an amount → its decimal (`8000`); a percent → `80%`.
 * - amount: `ACTUAL Amount:` / `FORECASTED Amount:`; budgetAmount: `Budgeted Amount:`.
 * - currency: `$`/`US$` → USD, `€` → EUR, `£` → GBP, `¥` → JPY, `₹` → INR, or a 3-letter code before or after the
 *   number; amounts in different currencies are rejected; no symbol at all (usage budgets) → no currency.
 * - period: the budget period the alert is about, from the date in the heading line and the budget's time
 *   unit in the prose ("… for the current month|quarter|year", "… per day|month|quarter|year"): `yyyy-mm`
 *   (also when the prose names none), `yyyy-Qn` (calendar quarter), `yyyy`, or `yyyy-mm-dd` for a daily
 *   budget — the day before the heading's date when the prose says "Yesterday" (AWS reports a daily
 *   budget the morning after, in UTC), else that date. So each day's crossing of a daily budget is
 *   its own alert, and a repeat on the same day is a duplicate.
 * - link: the first https link of the AWS console in the text (the Budgets dashboard).
 * - severity: `critical` when the threshold is ≥ 100% or ≥ the budgeted amount, else `warning`.
 * source `aws`; tenant = `tenant` attribute, else `default`.
 */
import { fail } from '../errors';
import type { AlertEvent } from '../events';
import { toDecimal } from '../decimal';
import { requiredIdentifier, requiredName } from './fields';
import { AWS_CONSOLE_HOST, consoleLink, finishAlertEvent, severityAtLeast } from './alert-common';
import { resolveTenant } from './scope';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const SYMBOLS = new Map<string, string>([
  ['US$', 'USD'],
  ['$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
]);
const LABEL_LINE = /^([A-Za-z][A-Za-z ]{0,40}?)\s*:\s*(.*)$/;
const MONEY =
  /^(?<pre>US\$|[$€£¥₹]|[A-Z]{3}(?![A-Za-z]))?\s*(?<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*(?<post>[A-Z]{3}(?![A-Za-z])|[$€£¥₹]|[A-Za-z][A-Za-z/-]*)?$/;
const PERCENT = /^(?<num>[-+]?\d+(?:\.\d+)?)\s*%$/;
const COMPARATOR = /^(?:>=|≥|>|greater than(?: or equal to)?)\s*/i;
// Leading blanks may not cross a line end: `^\s*` under /m rescans every following blank line from
// each line start, quadratic on a body of blank lines.
const BUDGET_NAME_LINE = /^[^\S\n\r\u2028\u2029]*Budget Name[^\S\n\r\u2028\u2029]*:/im;

export const looksAwsBudgets = (message: unknown): message is string =>
  typeof message === 'string' &&
  (/AWS Budget Notification/i.test(message) || BUDGET_NAME_LINE.test(message));

/**
 * `Label: value` lines, label lower-cased; the first occurrence wins. A label with nothing after it
 * takes the next non-blank line unless that line is a label itself. One pass, each line read once.
 */
export const readLabels = (lines: readonly string[]): Map<string, string> => {
  const labels = new Map<string, string>();
  let awaitingValue: string | undefined;
  for (const line of lines) {
    if (line === '') continue;
    const match = LABEL_LINE.exec(line);
    if (awaitingValue !== undefined) {
      if (!match && !labels.has(awaitingValue)) labels.set(awaitingValue, line);
      awaitingValue = undefined;
    }
    if (!match) continue;
    const label = match[1].toLowerCase().replace(/\s+/g, ' ');
    const value = match[2].trim();
    if (value === '') awaitingValue = label;
    else if (!labels.has(label)) labels.set(label, value);
  }
  return labels;
};

export interface Money {
  value: string;
  currency?: string;
}

/** `$1,234.50`, `1234.5 USD`, `€12`: the decimal and the currency its symbol or code names. */
export const parseMoney = (text: string, field: string): Money => {
  const match = MONEY.exec(text.trim());
  if (!match?.groups)
    return fail('invalid-field', field, `not an amount: ${JSON.stringify(text.slice(0, 40))}`);
  const { pre, num, post } = match.groups;
  const symbols = [pre, post].filter((s): s is string => s !== undefined);
  const currencies = symbols
    .map((s) => SYMBOLS.get(s) ?? (/^[A-Z]{3}$/.test(s) ? s : undefined))
    .filter((c): c is string => c !== undefined);
  if (new Set(currencies).size > 1) return fail('invalid-field', field, 'two different currencies');
  return { value: toDecimal(num.replace(/,/g, ''), field), currency: currencies[0] };
};

const parseThreshold = (text: string): Money & { percent: boolean } => {
  const bare = text.trim().replace(COMPARATOR, '');
  const percent = PERCENT.exec(bare);
  if (percent?.groups)
    return { value: `${toDecimal(percent.groups.num, 'threshold')}%`, percent: true };
  return { ...parseMoney(bare, 'threshold'), percent: false };
};

const parseDate = (text: string): { year: number; month: number; day: number } | undefined => {
  let year: number;
  let month: number;
  let day: number;
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);
  const monthFirst = /\b([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})\b/.exec(text);
  const dayFirst = /\b(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b/.exec(text);
  if (iso) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (monthFirst) {
    [year, month, day] = [
      Number(monthFirst[3]),
      MONTHS.indexOf(monthFirst[1].slice(0, 3).toLowerCase()) + 1,
      Number(monthFirst[2]),
    ];
  } else if (dayFirst) {
    [year, month, day] = [
      Number(dayFirst[3]),
      MONTHS.indexOf(dayFirst[2].slice(0, 3).toLowerCase()) + 1,
      Number(dayFirst[1]),
    ];
  } else {
    return undefined;
  }
  const date = new Date(Date.UTC(year, month - 1, day));
  const valid =
    month >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day;
  return valid ? { year, month, day } : undefined;
};

const BUDGET_UNIT = /\b(?:for the current|per) (day|month|quarter|year)\b/i;

const periodOf = (heading: string | undefined, prose: string): string => {
  const date = heading === undefined ? undefined : parseDate(heading);
  if (!date)
    return fail(
      'missing-field',
      'notificationDate',
      'no valid date in the "AWS Budget Notification" line',
    );
  const pad = (n: number): string => String(n).padStart(2, '0');
  const unit = BUDGET_UNIT.exec(prose)?.[1].toLowerCase() ?? 'month';
  if (unit === 'day') {
    const day = new Date(Date.UTC(date.year, date.month - 1, date.day));
    if (/\bYesterday\b/i.test(prose)) day.setUTCDate(day.getUTCDate() - 1);
    return day.toISOString().slice(0, 10);
  }
  if (unit === 'quarter') return `${date.year}-Q${Math.ceil(date.month / 3)}`;
  if (unit === 'year') return String(date.year);
  return `${date.year}-${pad(date.month)}`;
};

const accountOf = (text: string): string => {
  const match = /\bAWS Account(?: ID)?:?[ \t]+(\d[\d-]*)/.exec(text);
  if (!match) return fail('missing-field', 'accountId', 'no "AWS Account <id>" line');
  const digits = match[1].replace(/-/g, '');
  if (!/^\d{12}$/.test(digits)) {
    return fail('invalid-field', 'accountId', 'not a 12-digit AWS account id');
  }
  return digits;
};

const thresholdTypeOf = (labels: Map<string, string>, prose: string): 'actual' | 'forecasted' => {
  const stated = labels.get('alert type');
  if (stated !== undefined) {
    const upper = stated.toUpperCase();
    if (upper === 'ACTUAL') return 'actual';
    if (upper === 'FORECASTED' || upper === 'FORECAST') return 'forecasted';
    return fail(
      'invalid-field',
      'alertType',
      `${JSON.stringify(stated.slice(0, 40))} is not ACTUAL or FORECASTED`,
    );
  }
  const wording = /\b(ACTUAL|FORECASTED) (?:Cost|Usage)\b/.exec(prose)?.[1];
  if (wording === undefined) return fail('missing-field', 'alertType', 'no "Alert Type:" line');
  return wording === 'ACTUAL' ? 'actual' : 'forecasted';
};

export const parseAwsBudgets = (
  message: string,
  attributes: Record<string, string>,
): AlertEvent => {
  const text = message.replace(/\r\n?/g, '\n');
  const lines = text.split('\n').map((line) => line.trim());
  const prose = text.replace(/\s+/g, ' ');
  const labels = readLabels(lines);
  // The date follows the heading, possibly wrapped onto the next line.
  const heading = /AWS Budget Notification\s+(.{0,40})/i.exec(prose)?.[1];

  const accountId = requiredIdentifier(accountOf(text), 'accountId');
  const budgetName = requiredName(labels.get('budget name'), 'budgetName');
  const thresholdType = thresholdTypeOf(labels, prose);
  const thresholdText =
    labels.get('alert threshold') ??
    fail('missing-field', 'threshold', 'no "Alert Threshold:" line');
  const threshold = parseThreshold(thresholdText);
  const amountText = labels.get(`${thresholdType === 'actual' ? 'actual' : 'forecasted'} amount`);
  const amount = amountText === undefined ? undefined : parseMoney(amountText, 'amount');
  const budgetedText = labels.get('budgeted amount');
  const budgeted =
    budgetedText === undefined ? undefined : parseMoney(budgetedText, 'budgetAmount');

  const currencies = new Set(
    [threshold.currency, amount?.currency, budgeted?.currency].filter(
      (c): c is string => c !== undefined,
    ),
  );
  if (currencies.size > 1) {
    fail(
      'invalid-field',
      'currency',
      `amounts in different currencies: ${[...currencies].join(', ')}`,
    );
  }

  const severity = threshold.percent
    ? severityAtLeast(threshold.value.slice(0, -1), '100')
    : budgeted !== undefined
      ? severityAtLeast(threshold.value, budgeted.value)
      : 'warning';

  return finishAlertEvent({
    kind: thresholdType === 'actual' ? 'budget-threshold' : 'budget-forecast',
    format: 'aws-budgets',
    tenant: resolveTenant(attributes),
    source: 'aws',
    accountId,
    budgetName,
    period: periodOf(heading, prose),
    thresholdType,
    threshold: threshold.value,
    budgetAmount: budgeted?.value,
    amount: amount?.value,
    currency: [...currencies][0],
    link: consoleLink(/\bhttps:\/\/[^\s\]>)]+/.exec(text)?.[0], AWS_CONSOLE_HOST),
    severity,
  });
};
