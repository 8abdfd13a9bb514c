import type { DecodedRecord } from './events';

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
    return { ok: true, value: JSON.parse(text) };
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
 * SQS record body → message + attributes. The body is either the raw published message (raw message
 * delivery) or an SNS notification envelope; detected per record. Non-JSON text is kept as a string.
 */
export const decodeRecord = (record: SqsRecordLike): DecodedRecord => {
  const attributes = sqsAttributes(record.messageAttributes);
  const body = parseJson(record.body);
  if (body.ok && isSnsEnvelope(body.value)) {
    const inner = parseJson(body.value.Message);
    return {
      message: inner.ok ? inner.value : body.value.Message,
      attributes: { ...attributes, ...snsAttributes(body.value.MessageAttributes) },
      snsWrapped: true,
    };
  }
  return { message: body.ok ? body.value : record.body, attributes, snsWrapped: false };
};
