/** Alert-stream poison: each lands in the DLQ once with its reason. */
import { ALERT_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import type { Rendered } from './sample';

const ALERT_POISON: readonly Rendered[] = [
  { message: 'hello, is this the budget team?' },
  { message: JSON.stringify({ foo: 1 }) },
  {
    message: JSON.stringify({
      attributes: { billingAccountId: 'X', schemaVersion: '2.0' },
      data: {
        budgetDisplayName: 'b',
        costAmount: 1,
        costIntervalStart: '2026-11-01T00:00:00Z',
        currencyCode: 'USD',
        alertThresholdExceeded: 0.5,
      },
    }),
  },
  { message: JSON.stringify({ anomalyId: 'a-1', accountId: '200000000011', impact: {} }) },
  {
    message:
      'AWS Budget Notification November 28, 2026\n\nBudget Name: orphan\nAlert Type: ACTUAL\nAlert Threshold: > $1.00\n',
  },
  // Google's "send test message": budget data without the billingAccountId attribute.
  {
    message: JSON.stringify({
      budgetDisplayName: 'name-of-budget',
      alertThresholdExceeded: 1.0,
      costAmount: 100.01,
      costIntervalStart: '2019-01-01T00:00:00Z',
      budgetAmount: 100.0,
      budgetAmountType: 'SPECIFIED_AMOUNT',
      currencyCode: 'USD',
    }),
  },
  // An EventBridge event that is not an anomaly (a rule routed too much).
  {
    message: JSON.stringify({
      version: '0',
      id: 'e-1',
      source: 'aws.health',
      'detail-type': 'AWS Health Event',
      account: '100000000001',
      region: 'us-east-1',
      time: '2026-11-20T00:00:00Z',
      resources: [],
      detail: {},
    }),
  },
];

export const alertPoison = (draft: SampleDraft): void => {
  for (const poison of ALERT_POISON) {
    draft.place({ topic: ALERT_STREAM, ...poison, note: 'poison' });
    draft.truth.deadLetter(ALERT_STREAM);
  }
};
