/**
 * Alerts: detect the format of one decoded message by its shape and normalize it.
 * Plain text is an AWS Budgets notification or nothing; a JSON object is a GCP budget notification
 * (any of its three wrappings), an AWS Cost Anomaly Detection alert or our canonical alert; a message
 * that matches more than one shape is rejected as ambiguous.
 */
import { fail } from '../errors';
import type { AlertEvent, AlertFormat, DecodedRecord } from '../events';
import { looksAwsBudgets, parseAwsBudgets } from './alert-aws-budgets';
import { looksCanonicalAlert, parseCanonicalAlert } from './alert-canonical';
import { looksCostAnomaly, parseCostAnomaly } from './alert-cost-anomaly';
import { looksGcpBudget, parseGcpBudget } from './alert-gcp-budget';
import { isObject, preview, type JsonObject } from './fields';

interface AlertFormatParser {
  format: AlertFormat;
  looks: (message: JsonObject) => boolean;
  parse: (message: JsonObject, attributes: Record<string, string>) => AlertEvent;
}

const JSON_FORMATS: readonly AlertFormatParser[] = [
  { format: 'gcp-budget', looks: looksGcpBudget, parse: parseGcpBudget },
  { format: 'cost-anomaly', looks: looksCostAnomaly, parse: parseCostAnomaly },
  { format: 'canonical', looks: looksCanonicalAlert, parse: parseCanonicalAlert },
];

const UNKNOWN =
  'not a GCP budget notification, AWS Budgets notification, Cost Anomaly Detection alert or canonical alert';

export const parseAlertEvent = (decoded: DecodedRecord): AlertEvent => {
  const { message, attributes } = decoded;
  if (typeof message === 'string') {
    return looksAwsBudgets(message)
      ? parseAwsBudgets(message, attributes)
      : fail('unknown-format', '$', UNKNOWN);
  }
  if (!isObject(message))
    return fail('unknown-format', '$', `expected a JSON object or text, got ${preview(message)}`);
  const matches = JSON_FORMATS.filter((candidate) => candidate.looks(message));
  if (matches.length === 0) return fail('unknown-format', '$', UNKNOWN);
  if (matches.length > 1) {
    return fail(
      'unknown-format',
      '$',
      `ambiguous: has fields of ${matches.map((m) => m.format).join(' and ')}`,
    );
  }
  return matches[0].parse(message, attributes);
};
