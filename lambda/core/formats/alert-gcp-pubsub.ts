/**
 * Google Cloud Pub/Sub messages of Cloud Billing (budget and anomaly notifications), in the three ways a
 * forwarder relays them to SNS:
 * (a) the data object itself, with the Pub/Sub attributes as SNS message attributes (or none at all,
 *     as Google's "publish a test message" sends it);
 * (b) `{attributes, data}` where data is the object, JSON text, or base64 of it (as Pub/Sub delivers it);
 * (c) a Pub/Sub push body `{message: {attributes, data: base64, messageId, …}, subscription}`.
 * Attributes inside the message win over the SQS/SNS message attributes; only known names are read.
 */
import { fail } from '../errors';
import { parseJsonExact } from '../json';
import { hasOwn, isBlank, isObject, optionalString, own, preview, type JsonObject } from './fields';

export const GCP_ATTRIBUTE_NAMES = [
  'billingAccountId',
  'budgetId',
  'schemaVersion',
  'tenant',
] as const;
export type GcpAttributes = Record<(typeof GCP_ATTRIBUTE_NAMES)[number], unknown>;

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const isPushBody = (value: JsonObject): boolean => {
  const message = own(value, 'message');
  return isObject(message) && hasOwn(message, 'data');
};

/** `{attributes, data}` or a push body: a Pub/Sub message around the data. */
export const isPubSubEnvelope = (value: JsonObject, isData: (data: unknown) => boolean): boolean =>
  isPushBody(value) ||
  (hasOwn(value, 'data') && (isObject(own(value, 'attributes')) || isData(own(value, 'data'))));

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

/** The data and the attributes that travel inside the message (if any). */
export const unwrapPubSub = (
  message: JsonObject,
  isData: (data: unknown) => boolean,
): { data: JsonObject; inner: unknown } => {
  if (isData(message)) return { data: message, inner: undefined };
  if (isPushBody(message)) {
    const pubsub = own(message, 'message') as JsonObject;
    return {
      data: decodeData(own(pubsub, 'data'), 'message.data'),
      inner: own(pubsub, 'attributes'),
    };
  }
  return { data: decodeData(own(message, 'data'), 'data'), inner: own(message, 'attributes') };
};

/** The data of an envelope for format detection, or undefined when it cannot be decoded. */
export const peekPubSubData = (message: JsonObject): JsonObject | undefined => {
  try {
    return unwrapPubSub(message, () => false).data;
  } catch {
    return undefined;
  }
};

/** The GCP attributes, those inside the message first. */
export const gcpAttributes = (inner: unknown, outer: Record<string, string>): GcpAttributes => {
  const source = isObject(inner) ? inner : {};
  return Object.fromEntries(
    GCP_ATTRIBUTE_NAMES.map((name) => [
      name,
      isBlank(own(source, name)) ? own(outer, name) : own(source, name),
    ]),
  ) as GcpAttributes;
};

/** A schemaVersion other than 1.x is rejected: its meaning is unknown. */
export const requireSchemaVersion1 = (attrs: GcpAttributes): void => {
  const schemaVersion = optionalString(attrs.schemaVersion, 'schemaVersion', 32);
  if (schemaVersion !== undefined && !/^1(\.\d+)*$/.test(schemaVersion)) {
    fail(
      'invalid-field',
      'schemaVersion',
      `unsupported GCP schema version ${preview(schemaVersion)}`,
    );
  }
};

/** The tenant attribute as the slug reader sees it (a non-string is rejected there, not defaulted). */
export const tenantAttributes = (attrs: GcpAttributes): Record<string, string> =>
  (isBlank(attrs.tenant) ? {} : { tenant: attrs.tenant }) as Record<string, string>;

/**
 * GCP publishes the billing account only as the Pub/Sub attribute `billingAccountId`, never in the
 * data; a forwarder that drops the attributes must pass it on.
 */
export const MISSING_BILLING_ACCOUNT =
  'GCP sends the billing account only as the Pub/Sub attribute "billingAccountId": the forwarder must pass it on, as the SNS message attribute billingAccountId or inside the message as {"attributes": {"billingAccountId": "…"}, "data": …}';
