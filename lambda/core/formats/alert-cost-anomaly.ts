/**
 * AWS Cost Anomaly Detection individual alert (SNS JSON): `anomalyId`, `accountId`, `anomalyStartDate`,
 * `impact.totalImpact`, `monitorArn`, `rootCauses[]`, `dimensionalValue`, `anomalyDetailsLink`…
 *
 * kind `anomaly`, source `aws`, currency USD (Cost Explorer reports anomalies in USD).
 * amount = impact.totalImpact as an exact decimal (it arrives as a JSON number; read from its text, no arithmetic).
 * service = rootCauses[0].service, else dimensionalValue (dimensionValue in the EventBridge event).
 * anomalyStart = anomalyStartDate as an instant. causes = up to five root causes, one line each.
 * link = anomalyDetailsLink when it is an https link of the AWS console.
 * severity: `critical` when impact.totalImpactPercentage ≥ 50 (spend at least 1.5× the expected), else
 * `warning` (also when the percentage is absent). The alert key is (tenant, account, anomalyId): a later
 * message for the same anomaly with a larger impact is the same alert, and so is the same anomaly
 * delivered as an EventBridge event (`alert-cost-anomaly-event.ts`).
 * Required: anomalyId, accountId, anomalyStartDate, impact.totalImpact.
 */
import { fail } from '../errors';
import type { AlertEvent, AlertFormat } from '../events';
import {
  hasOwn,
  isBlank,
  isObject,
  optionalDecimal,
  optionalIdentifier,
  optionalString,
  own,
  preview,
  requiredDecimal,
  requiredIdentifier,
  requiredInstant,
  type JsonObject,
} from './fields';
import {
  AWS_CONSOLE_HOST,
  MAX_CAUSES,
  consoleLink,
  finishAlertEvent,
  severityAtLeast,
} from './alert-common';
import { resolveTenant } from './scope';

/** Impact percentage at or above which an anomaly is critical. */
export const CRITICAL_IMPACT_PERCENTAGE = '50';

/**
 * Keys only Cost Anomaly Detection sends (`anomalyId`/`monitorArn` are shared with the canonical alert,
 * `rootCauses` with the GCP anomaly).
 */
const MARKERS = [
  'anomalyStartDate',
  'impact',
  'anomalyDetailsLink',
  'anomalyScore',
  'dimensionalValue',
];

export const looksCostAnomaly = (message: unknown): boolean =>
  isObject(message) && MARKERS.some((key) => hasOwn(message, key));

const rootCauses = (message: JsonObject): JsonObject[] => {
  const causes = own(message, 'rootCauses');
  if (isBlank(causes)) return [];
  if (!Array.isArray(causes))
    return fail('invalid-field', 'rootCauses', `expected an array, got ${preview(causes)}`);
  return (causes as unknown[])
    .slice(0, MAX_CAUSES)
    .map((cause, i) =>
      isObject(cause)
        ? cause
        : fail('invalid-field', `rootCauses[${i}]`, `expected an object, got ${preview(cause)}`),
    );
};

const text = (cause: JsonObject, key: string, field: string): string | undefined =>
  optionalString(own(cause, key), `${field}.${key}`, 256);

/** `Amazon EC2 · us-east-1 · BoxUsage:c5.2xlarge · account 123456789012 (prod) · 601 USD`. */
const describeCause = (cause: JsonObject, i: number): string => {
  const field = `rootCauses[${i}]`;
  const account = text(cause, 'linkedAccount', field);
  const accountName = text(cause, 'linkedAccountName', field);
  const impact = own(cause, 'impact');
  const contribution = isObject(impact)
    ? optionalDecimal(own(impact, 'contribution'), `${field}.impact.contribution`)
    : undefined;
  return [
    text(cause, 'service', field),
    text(cause, 'region', field),
    text(cause, 'usageType', field),
    account && `account ${account}${accountName ? ` (${accountName})` : ''}`,
    contribution && `${contribution} USD`,
  ]
    .filter((part): part is string => Boolean(part))
    .join(' · ');
};

export interface AnomalyContext {
  format: AlertFormat;
  /** Where the account id comes from when the anomaly object carries none (the event's `account`). */
  fallbackAccountId?: unknown;
  /** Field-name prefix of the anomaly object in the message (`detail.` for the EventBridge event). */
  prefix?: string;
}

/** The anomaly object common to the SNS message and the EventBridge event's `detail`. */
export const anomalyFrom = (
  anomaly: JsonObject,
  attributes: Record<string, string>,
  { format, fallbackAccountId, prefix = '' }: AnomalyContext,
): AlertEvent => {
  const impactValue = own(anomaly, 'impact');
  if (isBlank(impactValue)) fail('missing-field', `${prefix}impact.totalImpact`, 'required');
  if (!isObject(impactValue))
    return fail(
      'invalid-field',
      `${prefix}impact`,
      `expected an object, got ${preview(impactValue)}`,
    );
  const amount = requiredDecimal(own(impactValue, 'totalImpact'), `${prefix}impact.totalImpact`);
  const percentage = optionalDecimal(
    own(impactValue, 'totalImpactPercentage'),
    `${prefix}impact.totalImpactPercentage`,
  );
  const causes = rootCauses(anomaly);
  const accountId = isBlank(own(anomaly, 'accountId'))
    ? fallbackAccountId
    : own(anomaly, 'accountId');
  const descriptions = causes.map(describeCause).filter((line) => line !== '');
  return finishAlertEvent({
    kind: 'anomaly',
    format,
    tenant: resolveTenant(attributes),
    source: 'aws',
    accountId: requiredIdentifier(accountId, `${prefix}accountId`),
    anomalyId: requiredIdentifier(own(anomaly, 'anomalyId'), `${prefix}anomalyId`),
    anomalyStart: requiredInstant(own(anomaly, 'anomalyStartDate'), `${prefix}anomalyStartDate`),
    monitorArn: optionalIdentifier(own(anomaly, 'monitorArn'), `${prefix}monitorArn`),
    service:
      (causes[0] && text(causes[0], 'service', 'rootCauses[0]')) ??
      optionalString(own(anomaly, 'dimensionalValue'), `${prefix}dimensionalValue`) ??
      optionalString(own(anomaly, 'dimensionValue'), `${prefix}dimensionValue`),
    amount,
    currency: 'USD',
    impactPercentage: percentage,
    causes: descriptions.length > 0 ? descriptions : undefined,
    link: consoleLink(own(anomaly, 'anomalyDetailsLink'), AWS_CONSOLE_HOST),
    severity:
      percentage === undefined
        ? 'warning'
        : severityAtLeast(percentage, CRITICAL_IMPACT_PERCENTAGE),
  });
};

export const parseCostAnomaly = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => anomalyFrom(message, attributes, { format: 'cost-anomaly' });
