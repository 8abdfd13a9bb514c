/**
 * AWS Cost Anomaly Detection as an EventBridge event (`source` `aws.ce`, `detail-type` `Anomaly Detected`),
 * as an EventBridge rule whose target is the alerts topic delivers it: the whole event is the SNS message.
 *
 * ```jsonc
 * { "version": "0", "id": "…", "source": "aws.ce", "detail-type": "Anomaly Detected",
 *   "account": "123456789012", "region": "us-east-1", "time": "…", "resources": ["<monitor ARN>"],
 *   "detail": { "anomalyId": "…", "accountId": "…", "anomalyStartDate": "…", "impact": {…},
 *               "rootCauses": […], "dimensionValue": "…", "monitorArn": "…", "anomalyDetailsLink": "…" } }
 * ```
 * `detail` is the anomaly of the SNS alert (`alert-cost-anomaly.ts`) with `dimensionValue` for
 * `dimensionalValue`; its `accountId`, else the event's `account`, is the account. The alert key is the
 * SNS alert's, so one anomaly that arrives both ways is notified once.
 * Any other EventBridge event is rejected (`unknown-format`), naming its source and detail-type.
 */
import { fail } from '../errors';
import type { AlertEvent } from '../events';
import { hasOwn, isObject, own, preview, type JsonObject } from './fields';
import { anomalyFrom } from './alert-cost-anomaly';

export const ANOMALY_EVENT_SOURCE = 'aws.ce';
export const ANOMALY_DETAIL_TYPE = 'Anomaly Detected';

/** Any EventBridge event: `detail-type` and `detail` are what every event has and no other format uses. */
export const looksCostAnomalyEvent = (message: unknown): boolean =>
  isObject(message) && hasOwn(message, 'detail-type') && hasOwn(message, 'detail');

export const parseCostAnomalyEvent = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const source = own(message, 'source');
  const detailType = own(message, 'detail-type');
  if (source !== ANOMALY_EVENT_SOURCE || detailType !== ANOMALY_DETAIL_TYPE) {
    return fail(
      'unknown-format',
      'detail-type',
      `an EventBridge event from ${preview(source)} of type ${preview(detailType)}; only ${ANOMALY_EVENT_SOURCE} "${ANOMALY_DETAIL_TYPE}" events are alerts`,
    );
  }
  const detail = own(message, 'detail');
  if (!isObject(detail))
    return fail('invalid-field', 'detail', `expected an object, got ${preview(detail)}`);
  return anomalyFrom(detail, attributes, {
    format: 'cost-anomaly-event',
    fallbackAccountId: own(message, 'account'),
    prefix: 'detail.',
  });
};
