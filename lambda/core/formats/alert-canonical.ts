/**
 * Canonical alert JSON: our own format, for custom producers (forwarders, other clouds, internal tools).
 *
 * ```jsonc
 * {
 *   "alertKind": "budget-threshold",   // required: budget-threshold | budget-forecast | budget-update | anomaly
 *   "tenant": "acme",                  // slug; else the `tenant` message attribute; else "default"
 *   "source": "datadog",               // slug; else the `source` message attribute; required
 *   "accountId": "200000000011",       // required
 *
 *   // budget-threshold, budget-forecast, budget-update
 *   "budgetId": "b-123",               // budgetId or budgetName: at least one required
 *   "budgetName": "prod-monthly",
 *   "period": "2026-11",               // required: yyyy | yyyy-Qn | yyyy-mm | yyyy-mm-dd | ISO date-time (→ UTC instant)
 *   "thresholdType": "actual",         // actual | forecasted; defaults from alertKind and must agree with it
 *   "threshold": "0.9",                // required for threshold/forecast: a decimal (ratio or amount) or "80%"
 *   "budgetAmount": "10000",           // optional decimal
 *
 *   // anomaly
 *   "anomalyId": "a-123",              // required
 *   "anomalyStart": "2026-11-25",      // optional ISO date(-time)
 *   "monitorArn": "…", "service": "…", // optional
 *
 *   // any kind
 *   "amount": "8214.55",               // optional decimal (current spend / impact)
 *   "currency": "USD",                 // optional ISO 4217
 *   "severity": "warning"              // info | warning | critical; default info for budget-update, else warning
 * }
 * ```
 * Numbers may be JSON numbers or numeric strings; enums are case-insensitive. Fields of the other family
 * (budget fields on an anomaly, anomaly fields on a budget alert) and unknown fields are ignored.
 */
import { fail } from '../errors';
import type { AlertEvent, AlertKind, Severity } from '../events';
import { toDecimal } from '../decimal';
import { toInstant } from '../instant';
import {
  hasOwn,
  isObject,
  optionalCurrency,
  optionalDecimal,
  optionalEnum,
  optionalIdentifier,
  optionalInstant,
  optionalName,
  optionalString,
  own,
  requiredEnum,
  requiredIdentifier,
  requiredString,
  type JsonObject,
} from './fields';
import { finishAlertEvent } from './alert-common';
import { resolveSource, resolveTenant } from './scope';

export const ALERT_KINDS: readonly AlertKind[] = [
  'budget-threshold',
  'budget-forecast',
  'budget-update',
  'anomaly',
];
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical'];
const THRESHOLD_TYPES = ['actual', 'forecasted'] as const;
const PERIOD = /^(\d{4})(?:-Q([1-4])|-(\d{2})(?:-(\d{2}))?)?$/i;

export const looksCanonicalAlert = (message: unknown): boolean =>
  isObject(message) && hasOwn(message, 'alertKind');

const readPeriod = (value: unknown): string => {
  const text = requiredString(value, 'period', 64);
  if (/T|\d:\d/.test(text)) return toInstant(text, 'period');
  const match = PERIOD.exec(text);
  if (!match)
    return fail(
      'invalid-field',
      'period',
      'expected yyyy, yyyy-Qn, yyyy-mm, yyyy-mm-dd or an ISO date-time',
    );
  const [, year, quarter, month, day] = match;
  if (quarter !== undefined) return `${year}-Q${quarter}`;
  if (month === undefined) return year;
  if (Number(month) < 1 || Number(month) > 12)
    return fail('invalid-field', 'period', 'month out of range');
  if (day === undefined) return `${year}-${month}`;
  return toInstant(text, 'period').slice(0, 10);
};

const readThreshold = (value: unknown): string | undefined => {
  if (typeof value === 'string' && value.trim().endsWith('%')) {
    return `${toDecimal(value.trim().slice(0, -1), 'threshold')}%`;
  }
  return optionalDecimal(value, 'threshold');
};

const budgetFields = (message: JsonObject, kind: AlertKind): Partial<AlertEvent> => {
  const budgetId = optionalIdentifier(own(message, 'budgetId'), 'budgetId');
  const budgetName = optionalName(own(message, 'budgetName'), 'budgetName');
  if (budgetId === undefined && budgetName === undefined) {
    fail('missing-field', 'budgetId', 'budgetId or budgetName is required');
  }
  const implied =
    kind === 'budget-threshold' ? 'actual' : kind === 'budget-forecast' ? 'forecasted' : undefined;
  const thresholdType =
    optionalEnum(own(message, 'thresholdType'), 'thresholdType', THRESHOLD_TYPES) ?? implied;
  if (implied !== undefined && thresholdType !== implied) {
    fail('invalid-field', 'thresholdType', `${thresholdType} does not match alertKind ${kind}`);
  }
  const threshold = readThreshold(own(message, 'threshold'));
  if (threshold === undefined && kind !== 'budget-update')
    fail('missing-field', 'threshold', 'required');
  return {
    budgetId,
    budgetName,
    period: readPeriod(own(message, 'period')),
    thresholdType,
    threshold,
    budgetAmount: optionalDecimal(own(message, 'budgetAmount'), 'budgetAmount'),
  };
};

const anomalyFields = (message: JsonObject): Partial<AlertEvent> => ({
  anomalyId: requiredIdentifier(own(message, 'anomalyId'), 'anomalyId'),
  anomalyStart: optionalInstant(own(message, 'anomalyStart'), 'anomalyStart'),
  monitorArn: optionalIdentifier(own(message, 'monitorArn'), 'monitorArn'),
  service: optionalString(own(message, 'service'), 'service'),
});

export const parseCanonicalAlert = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const kind = requiredEnum(own(message, 'alertKind'), 'alertKind', ALERT_KINDS);
  const tenant = resolveTenant(attributes, own(message, 'tenant'));
  const source = resolveSource(attributes, own(message, 'source'));
  const accountId = requiredIdentifier(own(message, 'accountId'), 'accountId');
  const specific = kind === 'anomaly' ? anomalyFields(message) : budgetFields(message, kind);
  return finishAlertEvent({
    kind,
    format: 'canonical',
    tenant,
    source,
    accountId,
    ...specific,
    amount: optionalDecimal(own(message, 'amount'), 'amount'),
    currency: optionalCurrency(own(message, 'currency'), 'currency'),
    severity:
      optionalEnum(own(message, 'severity'), 'severity', SEVERITIES) ??
      (kind === 'budget-update' ? 'info' : 'warning'),
  });
};
