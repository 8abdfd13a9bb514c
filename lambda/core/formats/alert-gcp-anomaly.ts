/**
 * GCP Cloud Billing cost anomaly notification (Pub/Sub), in any of the wrappings of `alert-gcp-pubsub.ts`.
 * The data fields read (test/fixtures/alerts/README.md says which of them a public sample confirms):
 *
 * ```jsonc
 * { "anomalyName": "billingAccounts/01D4EE-079462-DFD6EC/anomalies/3f5e…",  // required: the anomaly id
 *   "detectionTime": "2026-11-26T08:00:00Z",   // optional instant
 *   "resourceDisplayName": "analytics-prod",   // optional: what the anomaly is about
 *   "actualSpendAmount": 1843.27,              // required
 *   "expectedSpendAmount": 912.5,              // optional
 *   "deviationAmount": 930.77,                 // optional; impact (amount) = this, else actual − expected
 *   "deviationPercentage": 102.0,              // optional; ≥ 50 → critical
 *   "currencyCode": "USD",                     // required
 *   "rootCauses": [{"service": "BigQuery", "project": "…", "region": "…", "deviationAmount": 880.1}] }
 * ```
 * kind `anomaly`, source `gcp`. accountId = the billing account of `anomaly_name`
 * (`billingAccounts/<id>/…`), else the `billingAccountId` attribute (the two must agree when both are
 * there). The alert key is (tenant, account, anomalyName): re-sends with a grown impact are duplicates.
 */
import { fail } from '../errors';
import { subtractDecimals } from '../decimal';
import type { AlertEvent } from '../events';
import {
  hasOwn,
  isBlank,
  isObject,
  optionalDecimal,
  optionalInstant,
  optionalString,
  own,
  preview,
  requiredCurrency,
  requiredDecimal,
  requiredIdentifier,
  type JsonObject,
} from './fields';
import { MAX_CAUSES, finishAlertEvent, severityAtLeast } from './alert-common';
import { CRITICAL_IMPACT_PERCENTAGE } from './alert-cost-anomaly';
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

const DATA_MARKERS = ['anomalyName', 'actualSpendAmount', 'expectedSpendAmount'];
const BILLING_ACCOUNT_NAME = /^billingAccounts\/([^/]+)\//;

export const isGcpAnomalyData = (value: unknown): value is JsonObject =>
  isObject(value) && DATA_MARKERS.some((key) => hasOwn(value, key));

export const looksGcpAnomaly = (message: unknown): boolean =>
  isObject(message) &&
  (isGcpAnomalyData(message) ||
    (isPubSubEnvelope(message, isGcpAnomalyData) && isGcpAnomalyData(peekPubSubData(message))));

const accountOf = (anomalyName: string, attribute: unknown): string => {
  const fromName = BILLING_ACCOUNT_NAME.exec(anomalyName)?.[1];
  const fromAttribute = isBlank(attribute)
    ? undefined
    : requiredIdentifier(attribute, 'billingAccountId');
  if (fromName !== undefined && fromAttribute !== undefined && fromName !== fromAttribute) {
    return fail(
      'invalid-field',
      'billingAccountId',
      `the attribute says ${preview(fromAttribute)} but anomalyName is of ${preview(fromName)}`,
    );
  }
  return (
    fromName ?? fromAttribute ?? fail('missing-field', 'billingAccountId', MISSING_BILLING_ACCOUNT)
  );
};

const describeCauses = (data: JsonObject, currency: string): string[] | undefined => {
  const causes = own(data, 'rootCauses');
  if (isBlank(causes)) return undefined;
  if (!Array.isArray(causes))
    return fail('invalid-field', 'rootCauses', `expected an array, got ${preview(causes)}`);
  const lines = (causes as unknown[]).slice(0, MAX_CAUSES).map((cause, i) => {
    const field = `rootCauses[${i}]`;
    if (!isObject(cause))
      return fail('invalid-field', field, `expected an object, got ${preview(cause)}`);
    const text = (key: string) => optionalString(own(cause, key), `${field}.${key}`, 256);
    const amount = optionalDecimal(own(cause, 'deviationAmount'), `${field}.deviationAmount`);
    return [
      text('service'),
      text('sku'),
      text('project'),
      text('region'),
      amount && `${amount} ${currency}`,
    ]
      .filter((part): part is string => Boolean(part))
      .join(' · ');
  });
  const kept = lines.filter((line) => line !== '');
  return kept.length > 0 ? kept : undefined;
};

export const parseGcpAnomaly = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const { data, inner } = unwrapPubSub(message, isGcpAnomalyData);
  const attrs = gcpAttributes(inner, attributes);
  requireSchemaVersion1(attrs);
  const anomalyName = requiredIdentifier(own(data, 'anomalyName'), 'anomalyName');
  const currency = requiredCurrency(own(data, 'currencyCode'), 'currencyCode');
  const actual = requiredDecimal(own(data, 'actualSpendAmount'), 'actualSpendAmount');
  const expected = optionalDecimal(own(data, 'expectedSpendAmount'), 'expectedSpendAmount');
  const impact =
    optionalDecimal(own(data, 'deviationAmount'), 'deviationAmount') ??
    (expected === undefined ? undefined : subtractDecimals(actual, expected));
  const percentage = optionalDecimal(own(data, 'deviationPercentage'), 'deviationPercentage');
  return finishAlertEvent({
    kind: 'anomaly',
    format: 'gcp-anomaly',
    tenant: resolveTenant(tenantAttributes(attrs)),
    source: 'gcp',
    accountId: accountOf(anomalyName, attrs.billingAccountId),
    anomalyId: anomalyName,
    anomalyStart: optionalInstant(own(data, 'detectionTime'), 'detectionTime'),
    service: optionalString(own(data, 'resourceDisplayName'), 'resourceDisplayName', 256),
    amount: impact,
    currency,
    impactPercentage: percentage,
    causes: describeCauses(data, currency),
    severity:
      percentage === undefined
        ? 'warning'
        : severityAtLeast(percentage, CRITICAL_IMPACT_PERCENTAGE),
  });
};
