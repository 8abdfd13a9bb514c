/**
 * The local run has no EventBridge. An EventBridge rule whose target is an SNS topic (no input
 * transformer) publishes the whole event JSON as the SNS Message, with no message attributes; publishing
 * that JSON to the alerts topic is therefore exactly what the deployed rule delivers.
 */
import type { Rendered } from '../scenarios/sample';

export interface EventBridgeEvent {
  version: '0';
  id: string;
  source: string;
  'detail-type': string;
  account: string;
  region: string;
  time: string;
  resources: string[];
  detail: Record<string, unknown>;
}

/** Cost Anomaly Detection's `Anomaly Detected` event around an anomaly (the SNS alert's fields). */
export const anomalyDetectedEvent = (
  anomaly: Record<string, unknown>,
  envelope: { id: string; account: string; region: string; time: string },
): EventBridgeEvent => {
  const { dimensionalValue, subscriptionId: _id, subscriptionName: _name, ...rest } = anomaly;
  return {
    version: '0',
    ...envelope,
    source: 'aws.ce',
    'detail-type': 'Anomaly Detected',
    resources: typeof anomaly.monitorArn === 'string' ? [anomaly.monitorArn] : [],
    // The event spells the SNS alert's `dimensionalValue` as `dimensionValue`.
    detail: {
      ...rest,
      ...(dimensionalValue === undefined ? {} : { dimensionValue: dimensionalValue }),
    },
  };
};

/** What the rule's SNS target publishes for `event`. */
export const ruleTargetDelivery = (event: EventBridgeEvent): Rendered => ({
  message: JSON.stringify(event),
});
