/**
 * GCP Cloud Billing budget notification (Pub/Sub, schemaVersion 1.0). Accepted as:
 * (a) the data object itself (`budgetDisplayName`, `costAmount`, `costIntervalStart`, …), with
 *     `billingAccountId`, `budgetId`, `schemaVersion` as message attributes (a forwarder that keeps them);
 * (b) `{attributes, data}` where data is the object, a base64 string (as Pub/Sub delivers it) or JSON text;
 * (c) a Pub/Sub push body `{message: {attributes, data: base64, messageId, …}, subscription}`.
 * Attributes inside the message win over the SQS/SNS message attributes.
 *
 * kind: `budget-threshold` with `alertThresholdExceeded`, `budget-forecast` with
 * `forecastThresholdExceeded` (the actual threshold wins when both are present), else `budget-update`
 * (periodic update: no threshold crossed). period = costIntervalStart as an instant; threshold = the
 * ratio (`0.9`); amount = costAmount (rises between re-sends of the same alert). severity: `info` for
 * updates, `critical` when the threshold ratio ≥ 1 (actual or forecast), else `warning`.
 * Required: billingAccountId, budgetDisplayName, costAmount, costIntervalStart, currencyCode.
 * budgetId is optional (budgets are always sent with one, but the name identifies it too).
 * A schemaVersion other than 1.x is rejected (its meaning is unknown).
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
  requiredCurrency,
  requiredDecimal,
  requiredIdentifier,
  requiredInstant,
  requiredName,
  type JsonObject,
} from './fields';
import { parseJsonExact } from '../json';
import { finishAlertEvent, severityAtLeast } from './alert-common';
import { resolveTenant } from './scope';

const DATA_MARKERS = [
  'budgetDisplayName',
  'costIntervalStart',
  'alertThresholdExceeded',
  'forecastThresholdExceeded',
];
const ATTRIBUTE_NAMES = ['billingAccountId', 'budgetId', 'schemaVersion', 'tenant'] as const;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const isBudgetData = (value: unknown): value is JsonObject =>
  isObject(value) && DATA_MARKERS.some((key) => hasOwn(value, key));

const isPushBody = (value: JsonObject): boolean => {
  const message = own(value, 'message');
  return isObject(message) && hasOwn(message, 'data');
};

const isWrapper = (value: JsonObject): boolean =>
  hasOwn(value, 'data') && (isObject(own(value, 'attributes')) || isBudgetData(own(value, 'data')));

export const looksGcpBudget = (message: unknown): boolean =>
  isObject(message) && (isBudgetData(message) || isPushBody(message) || isWrapper(message));

/** Pub/Sub `data`: an object, JSON text, or base64 of UTF-8 JSON. */
const decodeData = (data: unknown, field: string): JsonObject => {
  if (isObject(data)) return data;
  if (typeof data !== 'string' || data.trim() === '') {
    return fail('malformed-body', field, `expected base64 JSON or an object, got ${preview(data)}`);
  }
  let text = data.trim();
  if (!text.startsWith('{')) {
    const compactText = text.replace(/\s+/g, '');
    if (!BASE64.test(compactText)) return fail('malformed-body', field, 'not base64');
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compactText, 'base64'));
    } catch {
      return fail('malformed-body', field, 'base64 payload is not UTF-8');
    }
  }
  let parsed: unknown;
  try {
    parsed = parseJsonExact(text);
  } catch {
    return fail('malformed-body', field, 'payload is not JSON');
  }
  return isObject(parsed)
    ? parsed
    : fail('malformed-body', field, `payload is ${preview(parsed)}, not an object`);
};

const unwrap = (message: JsonObject): { data: JsonObject; inner: unknown } => {
  if (isBudgetData(message)) return { data: message, inner: undefined };
  if (isPushBody(message)) {
    const pubsub = own(message, 'message') as JsonObject;
    return {
      data: decodeData(own(pubsub, 'data'), 'message.data'),
      inner: own(pubsub, 'attributes'),
    };
  }
  return { data: decodeData(own(message, 'data'), 'data'), inner: own(message, 'attributes') };
};

/** The GCP attributes, those inside the message first; only known names are read. */
const gcpAttributes = (inner: unknown, outer: Record<string, string>): Record<string, unknown> => {
  const source = isObject(inner) ? inner : {};
  return Object.fromEntries(
    ATTRIBUTE_NAMES.map((name) => [
      name,
      isBlank(own(source, name)) ? own(outer, name) : own(source, name),
    ]),
  );
};

export const parseGcpBudget = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const { data, inner } = unwrap(message);
  const attrs = gcpAttributes(inner, attributes);
  const schemaVersion = optionalString(attrs.schemaVersion, 'schemaVersion', 32);
  if (schemaVersion !== undefined && !/^1(\.\d+)*$/.test(schemaVersion)) {
    fail(
      'invalid-field',
      'schemaVersion',
      `unsupported GCP budget schema version ${preview(schemaVersion)}`,
    );
  }
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
  // A non-string tenant reaches the slug reader and is rejected there, not silently defaulted.
  const tenantAttributes = (isBlank(attrs.tenant) ? {} : { tenant: attrs.tenant }) as Record<
    string,
    string
  >;
  return finishAlertEvent({
    kind:
      actual !== undefined
        ? 'budget-threshold'
        : forecast !== undefined
          ? 'budget-forecast'
          : 'budget-update',
    format: 'gcp-budget',
    tenant: resolveTenant(tenantAttributes),
    source: 'gcp',
    accountId: requiredIdentifier(attrs.billingAccountId, 'billingAccountId'),
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
