/**
 * GCP Cloud Billing cost anomaly notification (Pub/Sub), in any of the wrappings of `alert-gcp-pubsub.ts`.
 * The data fields read (test/fixtures/alerts/README.md says which of them a public sample confirms):
 *
 * ```jsonc
 * { "anomalyName": "billingAccounts/01D4EE-079462-DFD6EC/anomalies/3f5e…",  // required: the anomaly id
 *   "detectionTime": "2026-11-26T08:00:00Z",   // optional instant (also read as `detectionDate`)
 *   "resourceDisplayName": "analytics-prod",   // optional: what the anomaly is about
 *   "actualSpendAmount": 1843.27,              // required
 *   "expectedSpendAmount": {"currencyCode": "USD", "units": "912", "nanos": 500000000}, // optional
 *   "deviationAmount": 930.77,                 // optional; impact (amount) = this, else actual − expected
 *   "deviationPercentage": 102.0,              // optional; ≥ 50 → critical
 *   "currencyCode": "USD",                     // else the currencyCode of any Money amount
 *   "rootCauses": [{"service": "BigQuery", "project": "…", "region": "…", "deviationAmount": 880.1}] }
 * ```
 * Each amount is a plain number or a `google.type.Money` object (`gcp-money.ts`); the currency may sit
 * only inside one of them. kind `anomaly`, source `gcp`. accountId = the billing account of `anomaly_name`
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
  optionalCurrency,
  requiredIdentifier,
  type JsonObject,
} from './fields';
import { optionalGcpAmount, requiredGcpAmount, type GcpAmount } from './gcp-money';
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
    const amount = optionalGcpAmount(
      own(cause, 'deviationAmount'),
      `${field}.deviationAmount`,
    )?.amount;
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

/**
 * The one currency of the notification: `currencyCode`, else the `currencyCode` of whichever Money
 * amount carries one (Google's documented example has it only in `expectedSpendAmount`). Two that
 * differ are rejected rather than one of them believed.
 */
const currencyOf = (data: JsonObject, amounts: [string, GcpAmount | undefined][]): string => {
  const stated: [string, string][] = [];
  const top = optionalCurrency(own(data, 'currencyCode'), 'currencyCode');
  if (top !== undefined) stated.push(['currencyCode', top]);
  for (const [field, amount] of amounts)
    if (amount?.currency !== undefined) stated.push([`${field}.currencyCode`, amount.currency]);
  if (stated.length === 0)
    return fail(
      'missing-field',
      'currencyCode',
      'required (as currencyCode or in a Money amount such as expectedSpendAmount)',
    );
  const other = stated.find(([, currency]) => currency !== stated[0][1]);
  if (other)
    return fail(
      'invalid-field',
      other[0],
      `${other[1]} differs from ${stated[0][0]} ${stated[0][1]}: one notification, one currency`,
    );
  return stated[0][1];
};

export const parseGcpAnomaly = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const { data, inner } = unwrapPubSub(message, isGcpAnomalyData);
  const attrs = gcpAttributes(inner, attributes);
  requireSchemaVersion1(attrs);
  const anomalyName = requiredIdentifier(own(data, 'anomalyName'), 'anomalyName');
  const actual = requiredGcpAmount(own(data, 'actualSpendAmount'), 'actualSpendAmount');
  const expected = optionalGcpAmount(own(data, 'expectedSpendAmount'), 'expectedSpendAmount');
  const deviation = optionalGcpAmount(own(data, 'deviationAmount'), 'deviationAmount');
  const currency = currencyOf(data, [
    ['actualSpendAmount', actual],
    ['expectedSpendAmount', expected],
    ['deviationAmount', deviation],
  ]);
  const impact =
    deviation?.amount ??
    (expected === undefined ? undefined : subtractDecimals(actual.amount, expected.amount));
  const percentage = optionalDecimal(own(data, 'deviationPercentage'), 'deviationPercentage');
  const detected = hasOwn(data, 'detectionTime') ? 'detectionTime' : 'detectionDate';
  return finishAlertEvent({
    kind: 'anomaly',
    format: 'gcp-anomaly',
    tenant: resolveTenant(tenantAttributes(attrs)),
    source: 'gcp',
    accountId: accountOf(anomalyName, attrs.billingAccountId),
    anomalyId: anomalyName,
    anomalyStart: optionalInstant(own(data, detected), detected),
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
