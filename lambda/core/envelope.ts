import type { DeliveryMode } from '../../contract/environment';
import { fail } from './errors';
import type { DecodedRecord } from './events';
import { parseJsonExact } from './json';

/** The mode's one definition is the contract's; re-exported for modules that import it from here. */
export type { DeliveryMode };

/** The parts of an SQS record that decoding reads (matches aws-lambda's SQSRecord). */
export interface SqsRecordLike {
  body: string;
  messageAttributes?: Record<string, { stringValue?: string; dataType?: string } | undefined>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[' && first !== '"') return { ok: false };
  try {
    return { ok: true, value: parseJsonExact(text) };
  } catch {
    return { ok: false };
  }
};

const isSnsEnvelope = (value: unknown): value is Record<string, unknown> & { Message: string } =>
  isObject(value) &&
  value.Type === 'Notification' &&
  typeof value.Message === 'string' &&
  (typeof value.TopicArn === 'string' || typeof value.MessageId === 'string');

const SAFE_KEY = /^[A-Za-z0-9_.\-:]{1,256}$/;

const snsAttributes = (raw: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (!isObject(raw)) return out;
  for (const [name, attribute] of Object.entries(raw)) {
    if (!SAFE_KEY.test(name) || name === '__proto__' || !isObject(attribute)) continue;
    const type = typeof attribute.Type === 'string' ? attribute.Type : '';
    if ((type === 'String' || type === 'Number') && typeof attribute.Value === 'string')
      out[name] = attribute.Value;
  }
  return out;
};

const sqsAttributes = (raw: SqsRecordLike['messageAttributes']): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, attribute] of Object.entries(raw ?? {})) {
    if (!SAFE_KEY.test(name) || name === '__proto__') continue;
    if (attribute && typeof attribute.stringValue === 'string') out[name] = attribute.stringValue;
  }
  return out;
};

/**
 * SQS record → message + attributes.
 * `raw`: the body is the published message and the attributes are the SQS record's; a body shaped like
 * an SNS envelope is just a body (its embedded attributes must never stand in for the real ones).
 * `envelope`: the body must be an SNS notification; message, attributes and the delivering topic's ARN
 * come from it alone (with raw delivery off, only a direct SQS sender could have set record attributes).
 * Non-JSON text is kept as a string. The mode comes from the subscription's raw message delivery
 * setting (the consumer's DELIVERY_MODE variable); it is never guessed from the body.
 */
export const decodeRecord = (record: SqsRecordLike, mode: DeliveryMode = 'raw'): DecodedRecord => {
  const body = parseJson(record.body);
  if (mode === 'raw') {
    return {
      message: body.ok ? body.value : record.body,
      attributes: sqsAttributes(record.messageAttributes),
      snsWrapped: false,
    };
  }
  if (!body.ok || !isSnsEnvelope(body.value)) {
    return fail(
      'malformed-body',
      '$',
      'not an SNS notification envelope; this queue is subscribed without raw message delivery ' +
        '(DELIVERY_MODE=envelope), so every body must be one',
    );
  }
  const inner = parseJson(body.value.Message);
  const { TopicArn: topicArn } = body.value;
  return {
    message: inner.ok ? inner.value : body.value.Message,
    attributes: snsAttributes(body.value.MessageAttributes),
    snsWrapped: true,
    ...(typeof topicArn === 'string' ? { topicArn } : {}),
  };
};
