/**
 * Anomaly notifications of one tenant: three Cost Anomaly Detection anomalies and one GCP cost anomaly,
 * each re-sent with a grown impact.
 */
import { pad } from './calendar';
import type { SampleDraft } from './draft';
import { alertOnce } from './logical-alert';
import type { Rendered } from './sample';
import { reorder } from './spelling';
import type { TenantSpec } from './tenants';

export const costAnomalies = (draft: SampleDraft, spec: TenantSpec): void => {
  const { rng } = draft;
  for (let n = 0; n < 3; n++) {
    const anomalyId = rng.uuid();
    const account = rng.pick(spec.awsAccounts);
    const monitor = rng.uuid();
    const anomaly = (impact: number): Rendered => ({
      message: JSON.stringify(
        reorder(rng, {
          accountId: account,
          anomalyId,
          anomalyStartDate: `2026-11-${pad(10 + n)}T00:00:00Z`,
          anomalyEndDate: `2026-11-${pad(12 + n)}T00:00:00Z`,
          dimensionalValue: 'Amazon Elastic Compute Cloud - Compute',
          impact: {
            maxImpact: impact / 2,
            totalImpact: impact,
            totalImpactPercentage: 20 + n * 10,
            totalActualSpend: impact * 4,
            totalExpectedSpend: impact * 3,
          },
          monitorArn: `arn:aws:ce::${account}:anomalymonitor/${monitor}`,
          rootCauses: [
            {
              linkedAccount: account,
              region: 'eu-west-1',
              service: 'Amazon Elastic Compute Cloud - Compute',
              usageType: 'EU-BoxUsage:c6i.4xlarge',
            },
          ],
          subscriptionName: 'finops-daily-anomalies',
        }),
      ),
      attributes: { tenant: spec.tenant },
    });
    alertOnce(
      draft,
      Array.from({ length: rng.int(1, 3) }, (_, copy) => anomaly(300 + n * 50 + copy * 40)),
      'cost anomaly (updated impact re-sent)',
    );
  }
};

/** One GCP cost anomaly of the tenant's billing account, re-sent with a grown deviation, in any wrapping. */
export const gcpAnomalies = (draft: SampleDraft, spec: TenantSpec): void => {
  const { rng } = draft;
  const anomalyName = `billingAccounts/${spec.gcpBillingAccount}/anomalies/${rng.uuid()}`;
  const attributes = {
    billingAccountId: spec.gcpBillingAccount,
    schemaVersion: '1.0',
    tenant: spec.tenant,
  };
  const render = (deviation: number): Rendered => {
    const data = {
      anomalyName,
      detectionTime: '2026-11-18T08:00:00Z',
      resourceDisplayName: rng.pick(spec.gcpProjects),
      actualSpendAmount: 500 + deviation,
      expectedSpendAmount: 500,
      deviationAmount: deviation,
      deviationPercentage: Number(((deviation / 500) * 100).toFixed(2)),
      currencyCode: spec.currency,
    };
    if (rng.chance(0.5)) return { message: JSON.stringify(data), attributes };
    return {
      message: JSON.stringify({
        attributes,
        data: Buffer.from(JSON.stringify(data)).toString('base64'),
      }),
    };
  };
  alertOnce(
    draft,
    Array.from({ length: rng.int(1, 3) }, (_, copy) => render(180 + copy * 45)),
    'GCP cost anomaly (grown deviation re-sent)',
  );
};
