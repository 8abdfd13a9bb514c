/**
 * GCP Cloud Billing budget notification (Pub/Sub, schemaVersion 1.0), in any of the wrappings of
 * `alert-gcp-pubsub.ts`.
 *
 * kind: `budget-threshold` with `alertThresholdExceeded`, `budget-forecast` with
 * `forecastThresholdExceeded` (the actual threshold wins when both are present), else `budget-update`
 * (periodic update: no threshold crossed). period = costIntervalStart as an instant: the start of the
 * budget's current period (month, quarter, year or custom range), so every period is its own alert.
 * threshold = the ratio (`0.9`); amount = costAmount (rises between re-sends of the same alert).
 * severity: `info` for updates, `critical` when the threshold ratio ≥ 1 (actual or forecast), else `warning`.
 * Required: billingAccountId (attribute; the reason says how a forwarder passes it), budgetDisplayName,
 * costAmount, costIntervalStart, currencyCode. budgetId is optional (budgets are always sent with one,
 * but the name identifies it within its billing account).
 */
import { fail } from '../errors';
import type { AlertEvent } from '../events';
import {
  hasOwn,
  isBlank,
  isObject,
  optionalDecimal,
  optionalIdentifier,
  own,
  requiredCurrency,
  requiredDecimal,
  requiredIdentifier,
  requiredInstant,
  requiredName,
  type JsonObject,
} from './fields';
import { finishAlertEvent, severityAtLeast } from './alert-common';
import { isGcpAnomalyData } from './alert-gcp-anomaly';
import {
  MISSING_BILLING_ACCOUNT,
  gcpAttributes,
  isPubSubEnvelope,
  peekPubSubData,
  requireSchemaVersion1,
  tenantAttributes,
  unwrapPubSub,
} from './alert-gcp-pubsub';
import { resolveTenant } from './scope';

const DATA_MARKERS = [
  'budgetDisplayName',
  'costIntervalStart',
  'alertThresholdExceeded',
  'forecastThresholdExceeded',
];

export const isGcpBudgetData = (value: unknown): value is JsonObject =>
  isObject(value) && DATA_MARKERS.some((key) => hasOwn(value, key));

/** Budget data, or a Pub/Sub envelope whose data is not an anomaly (undecodable data included). */
export const looksGcpBudget = (message: unknown): boolean =>
  isObject(message) &&
  (isGcpBudgetData(message) ||
    (!isGcpAnomalyData(message) &&
      isPubSubEnvelope(message, isGcpBudgetData) &&
      !isGcpAnomalyData(peekPubSubData(message))));

export const parseGcpBudget = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const { data, inner } = unwrapPubSub(message, isGcpBudgetData);
  const attrs = gcpAttributes(inner, attributes);
  requireSchemaVersion1(attrs);
  const actual = optionalDecimal(own(data, 'alertThresholdExceeded'), 'alertThresholdExceeded');
  const forecast = optionalDecimal(
    own(data, 'forecastThresholdExceeded'),
    'forecastThresholdExceeded',
  );
  const threshold = actual ?? forecast;
  if (threshold !== undefined && threshold.startsWith('-')) {
    fail(
      'invalid-field',
      actual !== undefined ? 'alertThresholdExceeded' : 'forecastThresholdExceeded',
      'negative',
    );
  }
  return finishAlertEvent({
    kind:
      actual !== undefined
        ? 'budget-threshold'
        : forecast !== undefined
          ? 'budget-forecast'
          : 'budget-update',
    format: 'gcp-budget',
    tenant: resolveTenant(tenantAttributes(attrs)),
    source: 'gcp',
    accountId: isBlank(attrs.billingAccountId)
      ? fail('missing-field', 'billingAccountId', MISSING_BILLING_ACCOUNT)
      : requiredIdentifier(attrs.billingAccountId, 'billingAccountId'),
    budgetId: optionalIdentifier(attrs.budgetId, 'budgetId'),
    budgetName: requiredName(own(data, 'budgetDisplayName'), 'budgetDisplayName'),
    period: requiredInstant(own(data, 'costIntervalStart'), 'costIntervalStart'),
    thresholdType:
      actual !== undefined ? 'actual' : forecast !== undefined ? 'forecasted' : undefined,
    threshold,
    budgetAmount: optionalDecimal(own(data, 'budgetAmount'), 'budgetAmount'),
    amount: requiredDecimal(own(data, 'costAmount'), 'costAmount'),
    currency: requiredCurrency(own(data, 'currencyCode'), 'currencyCode'),
    severity: threshold === undefined ? 'info' : severityAtLeast(threshold, '1'),
  });
};
