/**
 * A Pub/Sub push body, `{"message": {"data": <base64>, "attributes": {…}, "messageId": "…"},
 * "subscription": "projects/…/subscriptions/…"}`: unwrapped into the data and its attributes and routed
 * to the alerts topic (GCP budget and anomaly notifications) or the cost-events topic (anything else:
 * a billing watcher's cost events). The Pub/Sub attributes the alert consumer reads (`billingAccountId`,
 * `budgetId`, `schemaVersion`) travel as SNS message attributes, with the message id for tracing.
 * https://cloud.google.com/pubsub/docs/push#receive_push
 */
import { ValidationError } from '../errors';
import { isGcpAnomalyData } from '../formats/alert-gcp-anomaly';
import { isGcpBudgetData } from '../formats/alert-gcp-budget';
import { GCP_ATTRIBUTE_NAMES, unwrapPubSub } from '../formats/alert-gcp-pubsub';
import { isObject, own } from '../formats/fields';
import { alertPublication, costPublication, refusalOf, type Publication } from './publication';
import { refuse, type Refusal } from './refusal';

export const PUBSUB_MESSAGE_ID_ATTRIBUTE = 'pubsubMessageId';

const stringAttributes = (value: unknown): Record<string, string> => {
  if (value === undefined) return {};
  if (!isObject(value))
    throw new ValidationError('malformed-body', 'message.attributes', 'not an object');
  const kept: Record<string, string> = {};
  for (const name of [...GCP_ATTRIBUTE_NAMES, 'source']) {
    const attribute = own(value, name);
    if (typeof attribute === 'string' && attribute !== '') kept[name] = attribute;
  }
  return kept;
};

export const planPubSubPush = (body: unknown, tenant: string): Publication | Refusal => {
  if (!isObject(body) || !isObject(own(body, 'message')))
    return refuse(400, 'malformed-body', 'not a Pub/Sub push body: no "message" object');
  const pubsub = own(body, 'message') as Record<string, unknown>;
  const messageId = own(pubsub, 'messageId') ?? own(pubsub, 'message_id');
  if (typeof messageId !== 'string' || messageId === '')
    return refuse(400, 'malformed-body', 'message.messageId: required');
  try {
    const { data } = unwrapPubSub(body, () => false);
    const attributes = {
      ...stringAttributes(own(pubsub, 'attributes')),
      [PUBSUB_MESSAGE_ID_ATTRIBUTE]: messageId,
    };
    return isGcpBudgetData(data) || isGcpAnomalyData(data)
      ? alertPublication(data, attributes, tenant)
      : costPublication(data, attributes, tenant);
  } catch (error) {
    return refusalOf(error);
  }
};
