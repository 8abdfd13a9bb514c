/**
 * Alerts: detect the format of one decoded message by its shape and normalize it.
 * Plain text is an AWS Budgets notification or nothing; a JSON object is a GCP budget or anomaly
 * notification (any of their three wrappings), an Azure budget alert (AIP or common alert schema), an AWS Cost Anomaly Detection alert (SNS) or event
 * (EventBridge) or our canonical alert, detected by shape (`dispatch.ts`). A message over its format's size cap is
 * rejected (`too-large`) before it is parsed; text is measured before detection, JSON once its format
 * is known.
 */
import { fail } from '../errors';
import type { AlertEvent, AlertFormat, DecodedRecord } from '../events';
import { looksAwsBudgets, parseAwsBudgets } from './alert-aws-budgets';
import {
  looksAzureBudget,
  looksAzureCostAlert,
  parseAzureBudget,
  parseAzureCostAlert,
} from './alert-azure-budget';
import { looksCanonicalAlert, parseCanonicalAlert } from './alert-canonical';
import { looksCostAnomaly, parseCostAnomaly } from './alert-cost-anomaly';
import { looksCostAnomalyEvent, parseCostAnomalyEvent } from './alert-cost-anomaly-event';
import { looksGcpAnomaly, parseGcpAnomaly } from './alert-gcp-anomaly';
import { looksGcpBudget, parseGcpBudget } from './alert-gcp-budget';
import { detectFormat, type FormatParser } from './dispatch';
import { isObject, preview } from './fields';

const JSON_FORMATS: readonly FormatParser<AlertFormat, AlertEvent>[] = [
  { format: 'gcp-budget', looks: looksGcpBudget, parse: parseGcpBudget },
  { format: 'gcp-anomaly', looks: looksGcpAnomaly, parse: parseGcpAnomaly },
  { format: 'cost-anomaly', looks: looksCostAnomaly, parse: parseCostAnomaly },
  { format: 'cost-anomaly-event', looks: looksCostAnomalyEvent, parse: parseCostAnomalyEvent },
  { format: 'azure-budget', looks: looksAzureBudget, parse: parseAzureBudget },
  { format: 'azure-cost-alert', looks: looksAzureCostAlert, parse: parseAzureCostAlert },
  { format: 'canonical', looks: looksCanonicalAlert, parse: parseCanonicalAlert },
];

/**
 * UTF-8 bytes of the message (the SNS `Message`, or the raw body), per format: at least 16 times the
 * largest real notification, far below SNS's 256 KiB.
 */
export const ALERT_MAX_BYTES: Readonly<Record<AlertFormat, number>> = {
  'aws-budgets': 32 * 1024,
  'gcp-budget': 32 * 1024,
  'gcp-anomaly': 64 * 1024,
  'cost-anomaly': 64 * 1024,
  'cost-anomaly-event': 64 * 1024,
  'azure-budget': 32 * 1024,
  'azure-cost-alert': 64 * 1024,
  canonical: 32 * 1024,
};

const FORMAT_NAMES: Readonly<Record<AlertFormat, string>> = {
  'aws-budgets': 'an AWS Budgets notification',
  'gcp-budget': 'a GCP budget notification',
  'gcp-anomaly': 'a GCP cost anomaly notification',
  'cost-anomaly': 'a Cost Anomaly Detection alert',
  'cost-anomaly-event': 'a Cost Anomaly Detection EventBridge event',
  'azure-budget': 'an Azure budget notification',
  'azure-cost-alert': 'an Azure common-schema cost alert',
  canonical: 'a canonical alert',
};

const requireWithinCap = (format: AlertFormat, bytes: number): void => {
  const cap = ALERT_MAX_BYTES[format];
  if (bytes > cap) {
    fail('too-large', '$', `${bytes} bytes; ${FORMAT_NAMES[format]} is at most ${cap} bytes`);
  }
};

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const UNKNOWN =
  'not a GCP budget or anomaly notification, Azure budget alert, AWS Budgets notification, Cost Anomaly Detection alert or event, or canonical alert';

export const parseAlertEvent = (decoded: DecodedRecord): AlertEvent => {
  const { message, attributes } = decoded;
  if (typeof message === 'string') {
    requireWithinCap('aws-budgets', utf8Bytes(message));
    return looksAwsBudgets(message)
      ? parseAwsBudgets(message, attributes)
      : fail('unknown-format', '$', UNKNOWN);
  }
  if (!isObject(message))
    return fail('unknown-format', '$', `expected a JSON object or text, got ${preview(message)}`);
  const { format, parse } = detectFormat(JSON_FORMATS, message, UNKNOWN);
  requireWithinCap(format, utf8Bytes(JSON.stringify(message)));
  return parse(message, attributes);
};
