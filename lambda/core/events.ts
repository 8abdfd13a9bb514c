/** Normalized events: what every accepted input format becomes. Amounts are canonical decimal strings. */

export const CHARGE_CATEGORIES = ['usage', 'purchase', 'tax', 'credit', 'adjustment'] as const;
export type ChargeCategory = (typeof CHARGE_CATEGORIES)[number];

export type CostFormat = 'canonical' | 'focus' | 'snake-case';

export interface CostEvent {
  tenant: string;
  /** Provider or producer slug, lower-case: `aws`, `gcp`, `azure`, `legacy`, … */
  source: string;
  /** Producer-assigned idempotency key (identity rule 1). */
  eventId?: string;
  /** Restatement stream identity (rule 2), with `version`. */
  lineItemId?: string;
  /** Not part of the content hash. Positive integer. */
  version?: number;
  billingAccountId?: string;
  accountId: string;
  /** Instants are UTC ISO-8601 with milliseconds. */
  billingPeriodStart?: string;
  chargePeriodStart: string;
  chargePeriodEnd?: string;
  chargeCategory: ChargeCategory;
  /** FOCUS ChargeClass, lower-case (`correction`). */
  chargeClass?: string;
  /** Original design's cost_type (`regular`, `tax`, `adjustment`, `rounding_error`). */
  costType?: string;
  service?: string;
  skuId?: string;
  skuPriceId?: string;
  resourceId?: string;
  region?: string;
  invoiceId?: string;
  description?: string;
  /** FOCUS PricingCategory, ChargeFrequency and CommitmentDiscountId: rows differing only here are different charges. */
  pricingCategory?: string;
  chargeFrequency?: string;
  commitmentDiscountId?: string;
  amount: string;
  /** ISO 4217, upper-case. */
  currency: string;
  usageQuantity?: string;
  usageUnit?: string;
  tags?: Record<string, string>;
}

export type AlertKind = 'budget-threshold' | 'budget-forecast' | 'budget-update' | 'anomaly';
export type AlertFormat =
  | 'gcp-budget'
  | 'gcp-anomaly'
  | 'aws-budgets'
  | 'cost-anomaly'
  | 'cost-anomaly-event'
  | 'azure-budget'
  | 'azure-cost-alert'
  | 'canonical';
export type Severity = 'info' | 'warning' | 'critical';

export interface AlertEvent {
  kind: AlertKind;
  format: AlertFormat;
  tenant: string;
  source: string;
  accountId: string;
  /** Budget alerts: budget id or name, the period it covers, actual/forecasted and the threshold crossed. */
  budgetId?: string;
  budgetName?: string;
  period?: string;
  thresholdType?: 'actual' | 'forecasted';
  /** Decimal string; a ratio (`0.9`) for GCP, an amount or a percent (`80%`) for AWS Budgets. */
  threshold?: string;
  budgetAmount?: string;
  /** Spend at the time of the notification (rises between re-sends; not part of the alert key). */
  amount?: string;
  currency?: string;
  /** Anomalies. */
  anomalyId?: string;
  anomalyStart?: string;
  monitorArn?: string;
  service?: string;
  /** Anomalies: impact as a percentage of the expected spend. */
  impactPercentage?: string;
  /** Anomalies: root causes as readable one-line descriptions, most significant first. */
  causes?: string[];
  /** Where the source's console shows this alert, when the message gives one. */
  link?: string;
  severity: Severity;
}

/** What decoding one SQS record yields, before format detection. */
export interface DecodedRecord {
  /** Parsed JSON value, or the raw text when the message is not JSON (AWS Budgets sends plain text). */
  message: unknown;
  /** String message attributes: the SQS record's (raw delivery) or the SNS envelope's, never both. */
  attributes: Record<string, string>;
  /** True when the body was an SNS notification envelope. */
  snsWrapped: boolean;
  /** The envelope's `TopicArn` (envelope mode only): which topic SNS delivered the message from. */
  topicArn?: string;
}
