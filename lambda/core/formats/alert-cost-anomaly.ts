/**
 * AWS Cost Anomaly Detection individual alert (SNS JSON): `anomalyId`, `accountId`, `anomalyStartDate`,
 * `impact.totalImpact`, `monitorArn`, `rootCauses[]`, `dimensionalValue`…
 *
 * kind `anomaly`, source `aws`, currency USD (Cost Explorer reports anomalies in USD).
 * amount = impact.totalImpact as an exact decimal (it arrives as a JSON number; read from its text, no arithmetic).
 * service = rootCauses[0].service, else dimensionalValue. anomalyStart = anomalyStartDate as an instant.
 * severity: `critical` when impact.totalImpactPercentage ≥ 50 (spend at least 1.5× the expected), else
 * `warning` (also when the percentage is absent). The alert key is (tenant, account, anomalyId): a later
 * message for the same anomaly with a larger impact is the same alert.
 * Required: anomalyId, accountId, anomalyStartDate, impact.totalImpact.
 */
import { fail } from '../errors';
import type { AlertEvent } from '../events';
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
import { finishAlertEvent, severityAtLeast } from './alert-common';
import { resolveTenant } from './scope';

/** Impact percentage at or above which an anomaly is critical. */
export const CRITICAL_IMPACT_PERCENTAGE = '50';

/** Keys only Cost Anomaly Detection sends (`anomalyId`/`monitorArn` are shared with the canonical alert). */
const MARKERS = [
  'anomalyStartDate',
  'impact',
  'rootCauses',
  'anomalyDetailsLink',
  'anomalyScore',
  'dimensionalValue',
];

export const looksCostAnomaly = (message: unknown): boolean =>
  isObject(message) && MARKERS.some((key) => hasOwn(message, key));

const firstRootCause = (message: JsonObject): JsonObject | undefined => {
  const causes = own(message, 'rootCauses');
  if (isBlank(causes)) return undefined;
  if (!Array.isArray(causes))
    return fail('invalid-field', 'rootCauses', `expected an array, got ${preview(causes)}`);
  const [first] = causes as unknown[];
  if (first === undefined) return undefined;
  return isObject(first)
    ? first
    : fail('invalid-field', 'rootCauses[0]', `expected an object, got ${preview(first)}`);
};

export const parseCostAnomaly = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const impactValue = own(message, 'impact');
  if (isBlank(impactValue)) fail('missing-field', 'impact.totalImpact', 'required');
  if (!isObject(impactValue))
    return fail('invalid-field', 'impact', `expected an object, got ${preview(impactValue)}`);
  const amount = requiredDecimal(own(impactValue, 'totalImpact'), 'impact.totalImpact');
  const percentage = optionalDecimal(
    own(impactValue, 'totalImpactPercentage'),
    'impact.totalImpactPercentage',
  );
  const cause = firstRootCause(message);
  return finishAlertEvent({
    kind: 'anomaly',
    format: 'cost-anomaly',
    tenant: resolveTenant(attributes),
    source: 'aws',
    accountId: requiredIdentifier(own(message, 'accountId'), 'accountId'),
    anomalyId: requiredIdentifier(own(message, 'anomalyId'), 'anomalyId'),
    anomalyStart: requiredInstant(own(message, 'anomalyStartDate'), 'anomalyStartDate'),
    monitorArn: optionalIdentifier(own(message, 'monitorArn'), 'monitorArn'),
    service:
      (cause && optionalString(own(cause, 'service'), 'rootCauses[0].service')) ??
      optionalString(own(message, 'dimensionalValue'), 'dimensionalValue'),
    amount,
    currency: 'USD',
    severity:
      percentage === undefined
        ? 'warning'
        : severityAtLeast(percentage, CRITICAL_IMPACT_PERCENTAGE),
  });
};
