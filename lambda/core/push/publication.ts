/**
 * What the endpoint publishes for an accepted message: the alerts topic (budget and anomaly
 * notifications, as the alert consumer reads them) or the cost-events topic (with the FIFO group and
 * deduplication ids every publisher sets). The message is validated here with the consumers' own
 * parsers, so a body they would reject is answered 400 to its sender instead of reaching a DLQ; the
 * `tenant` attribute is always the credential's, and a body naming another tenant is refused (403).
 */
import { ValidationError } from '../errors';
import type { DecodedRecord } from '../events';
import { parseAlertEvent, parseCostEvent } from '../formats';
import { isObject, type JsonObject } from '../formats/fields';
import { bindTenant } from '../formats/scope';
import { fifoPublishIds } from '../keys';
import { refuse, type Refusal } from './refusal';

export type PushTopic = 'alerts' | 'cost-events';

export interface Publication {
  readonly ok: true;
  readonly topic: PushTopic;
  readonly tenant: string;
  /** The SNS message: the notification or event as its producer wrote it. */
  readonly message: string;
  /** SNS string message attributes (at most 10). */
  readonly attributes: Readonly<Record<string, string>>;
  readonly messageGroupId?: string;
  readonly messageDeduplicationId?: string;
  /** The alert key or charge identity digest, for the response and the logs. */
  readonly summary: string;
}

/** A ValidationError of the consumers' parsers as the sender's answer. */
export const refusalOf = (error: unknown): Refusal => {
  if (!(error instanceof ValidationError)) throw error;
  return error.code === 'tenant-mismatch'
    ? refuse(403, 'tenant-mismatch', error.reason)
    : refuse(400, 'malformed-body', `${error.code}: ${error.field}: ${error.reason}`);
};

const decoded = (message: unknown, attributes: Record<string, string>): DecodedRecord => ({
  message,
  attributes,
  snsWrapped: false,
});

const bound = (tenant: string, message: unknown, attributes: Record<string, string>) => {
  bindTenant(tenant, message, attributes);
  return { ...attributes, tenant };
};

export const alertPublication = (
  message: JsonObject | string,
  attributes: Record<string, string>,
  tenant: string,
): Publication | Refusal => {
  try {
    const withTenant = bound(tenant, message, attributes);
    const alert = parseAlertEvent(decoded(message, withTenant));
    return {
      ok: true,
      topic: 'alerts',
      tenant,
      message: typeof message === 'string' ? message : JSON.stringify(message),
      attributes: withTenant,
      summary:
        `${alert.format} ${alert.kind} ${alert.accountId} ${alert.budgetName ?? alert.anomalyId ?? ''}`.trim(),
    };
  } catch (error) {
    return refusalOf(error);
  }
};

export const costPublication = (
  message: unknown,
  attributes: Record<string, string>,
  tenant: string,
): Publication | Refusal => {
  try {
    if (!isObject(message)) throw new ValidationError('malformed-body', '$', 'not a JSON object');
    const withTenant = bound(tenant, message, attributes);
    const { event } = parseCostEvent(decoded(message, withTenant));
    return {
      ok: true,
      topic: 'cost-events',
      tenant,
      message: JSON.stringify(message),
      attributes: withTenant,
      ...fifoPublishIds(event),
      summary: `${event.source} ${event.accountId} ${event.amount} ${event.currency}`,
    };
  } catch (error) {
    return refusalOf(error);
  }
};
