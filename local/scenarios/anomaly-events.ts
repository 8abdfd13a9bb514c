/**
 * Cost Anomaly Detection as a new account sends it: each anomaly through the monitor's SNS subscription
 * and through the EventBridge rule (`local/emulators/eventbridge-rule.ts`), both without message attributes (so in the
 * `default` tenant), and again as its impact grows. One notification per anomaly.
 */
import { anomalyDetectedEvent, ruleTargetDelivery } from '../emulators/eventbridge-rule';
import { pad } from './calendar';
import type { SampleDraft } from './draft';
import { alertOnce } from './logical-alert';
import type { Rendered } from './sample';

/** The management account whose anomaly monitor reports (not one of the tenants' accounts). */
const MANAGEMENT_ACCOUNT = '100000000001';

export const anomalyEvents = (draft: SampleDraft): void => {
  const { rng } = draft;
  for (let n = 0; n < 2; n++) {
    const anomalyId = rng.uuid();
    const monitorArn = `arn:aws:ce::${MANAGEMENT_ACCOUNT}:anomalymonitor/${rng.uuid()}`;
    const anomaly = (impact: number): Record<string, unknown> => ({
      accountId: MANAGEMENT_ACCOUNT,
      anomalyId,
      anomalyStartDate: `2026-11-${pad(20 + n)}T00:00:00Z`,
      anomalyEndDate: `2026-11-${pad(21 + n)}T00:00:00Z`,
      anomalyDetailsLink: `https://console.aws.amazon.com/cost-management/home#/anomaly-detection/monitors/${monitorArn.split('/')[1]}/anomalies/${anomalyId}`,
      dimensionalValue: 'Amazon Simple Storage Service',
      impact: { totalImpact: impact, totalImpactPercentage: 40 + n * 30 },
      monitorArn,
      rootCauses: [{ region: 'us-east-1', service: 'Amazon Simple Storage Service' }],
    });
    const renders: Rendered[] = [];
    const updates = rng.int(1, 2);
    for (let update = 0; update < updates; update++) {
      const impact = 120 + n * 80 + update * 35;
      renders.push({ message: JSON.stringify(anomaly(impact)) });
      renders.push(
        ruleTargetDelivery(
          anomalyDetectedEvent(anomaly(impact), {
            id: rng.uuid(),
            account: MANAGEMENT_ACCOUNT,
            region: 'us-east-1',
            time: `2026-11-${pad(21 + n)}T0${update}:30:00Z`,
          }),
        ),
      );
    }
    alertOnce(draft, rng.shuffle(renders), 'cost anomaly by SNS and by EventBridge');
  }
};
