/** The notification people read: no text can reorder or forge what they see. */
import { alertMessage } from '../../lambda/core/alert-message';
import type { AlertEvent } from '../../lambda/core/events';

const budgetAlert = (overrides: Partial<AlertEvent> = {}): AlertEvent => ({
  kind: 'budget-threshold',
  format: 'canonical',
  tenant: 'acme',
  source: 'datadog',
  accountId: '200000000011',
  budgetName: 'prod-monthly',
  period: '2026-11',
  thresholdType: 'actual',
  threshold: '80%',
  amount: '8214.55',
  currency: 'USD',
  severity: 'warning',
  ...overrides,
});

const BIDI = [
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];

describe('alertMessage', () => {
  it('strips every bidi control from subject and body', () => {
    const anomaly = alertMessage(
      {
        kind: 'anomaly',
        format: 'canonical',
        tenant: 'acme',
        source: 'aws',
        accountId: '200000000011',
        anomalyId: 'a-1',
        service: `Amazon EC2 ${BIDI.join('')}(fdsa)`,
        monitorArn: 'arn:aws:ce::1:anomalymonitor/m',
        amount: '12.5',
        currency: 'USD',
        severity: 'critical',
      },
      'k',
    );
    const budget = alertMessage(budgetAlert({ budgetName: `prod\u202e-yhtnom` }), 'k');
    for (const message of [anomaly, budget]) {
      for (const char of BIDI) {
        expect(message.subject).not.toContain(char);
        expect(message.body).not.toContain(char);
      }
    }
    expect(anomaly.body).toContain('Service: Amazon EC2 (fdsa)');
    expect(budget.subject).toBe('[warning] prod-yhtnom exceeded 80%');
  });

  it('a value cannot add a line to the body', () => {
    const message = alertMessage(
      budgetAlert({ budgetName: 'prod\nAlert key: forged', service: 'x' }),
      'the-key',
    );
    expect(message.body.split('\n').filter((line) => line.startsWith('Alert key:'))).toEqual([
      'Alert key: the-key',
    ]);
  });

  it('keeps readable non-ASCII text in the body', () => {
    expect(alertMessage(budgetAlert({ budgetName: 'café' }), 'k').body).toContain('Budget: café');
  });
});
