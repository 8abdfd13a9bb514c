/**
 * GCP budget notifications of one tenant and month, in the four shapes a forwarder may send (Pub/Sub
 * message with attributes and data, plain data with attributes, base64 data, push envelope): periodic
 * updates (observed, no notification), the 50 %, 90 % and 100 % thresholds re-sent with rising cost,
 * and the forecast.
 */
import { ALERT_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import { alertOnce } from './logical-alert';
import type { Rendered } from './sample';
import type { TenantSpec } from './tenants';

export const gcpBudgetNotifications = (
  draft: SampleDraft,
  spec: TenantSpec,
  month: string,
): void => {
  const { rng } = draft;
  const budgetId = rng.uuid();
  const budgetAmount = 5000 + rng.int(0, 20) * 250;
  const gcp = (data: Record<string, unknown>): Rendered => {
    const attributes = {
      billingAccountId: spec.gcpBillingAccount,
      budgetId,
      schemaVersion: '1.0',
      tenant: spec.tenant,
    };
    const payload = {
      budgetDisplayName: `${spec.tenant}-cloud-monthly`,
      costIntervalStart: `${month}-01T07:00:00Z`,
      budgetAmount,
      budgetAmountType: 'SPECIFIED_AMOUNT',
      currencyCode: spec.currency,
      ...data,
    };
    const style = rng.int(0, 3);
    if (style === 0) return { message: JSON.stringify({ attributes, data: payload }) };
    if (style === 1) return { message: JSON.stringify(payload), attributes };
    if (style === 2)
      return {
        message: JSON.stringify({
          attributes,
          data: Buffer.from(JSON.stringify(payload)).toString('base64'),
        }),
      };
    return {
      message: JSON.stringify({
        message: {
          attributes,
          data: Buffer.from(JSON.stringify(payload)).toString('base64'),
          messageId: String(rng.int(1e9, 9e9)),
        },
        subscription: 'projects/finops/subscriptions/budget-alerts',
      }),
    };
  };
  // Display figures of a notification, not money the ledger books: a float is what GCP sends.
  let cost = budgetAmount * 0.2;
  const rise = () => Number((cost += budgetAmount * (0.02 + rng.next() * 0.05)).toFixed(2));
  for (let update = 0; update < 4; update++)
    draft.place({
      topic: ALERT_STREAM,
      ...gcp({ costAmount: rise() }),
      note: 'GCP budget periodic update',
    });
  for (const threshold of [0.5, 0.9, 1]) {
    cost = Math.max(cost, budgetAmount * threshold);
    alertOnce(
      draft,
      Array.from({ length: rng.int(2, 5) }, (_, copy) =>
        gcp({
          alertThresholdExceeded: copy % 2 ? String(threshold) : threshold,
          costAmount: rise(),
        }),
      ),
      `GCP budget ${threshold} (re-sent with rising cost)`,
    );
  }
  alertOnce(
    draft,
    Array.from({ length: rng.int(1, 3) }, () =>
      gcp({ forecastThresholdExceeded: 1, costAmount: rise() }),
    ),
    'GCP budget forecast',
  );
};
