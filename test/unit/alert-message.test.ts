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
    expect(budget.subject).toBe('[warning] prod-yhtnom exceeded 80% (month 2026-11)');
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

  it('names the budget period: day, month, quarter, year or the GCP period start', () => {
    const subjects = ['2023-03-03', '2026-11', '2026-Q4', '2026', '2026-11-01T07:00:00.000Z'].map(
      (period) => alertMessage(budgetAlert({ period }), 'k').subject,
    );
    expect(subjects).toEqual([
      '[warning] prod-monthly exceeded 80% (day 2023-03-03)',
      '[warning] prod-monthly exceeded 80% (month 2026-11)',
      '[warning] prod-monthly exceeded 80% (quarter 2026-Q4)',
      '[warning] prod-monthly exceeded 80% (year 2026)',
      '[warning] prod-monthly exceeded 80% (period from 2026-11-01T07:00:00.000Z)',
    ]);
  });

  it('an anomaly: impact with its percentage, root causes one per line, the link, filter attributes', () => {
    const message = alertMessage(
      {
        kind: 'anomaly',
        format: 'cost-anomaly-event',
        tenant: 'acme',
        source: 'aws',
        accountId: '123456789012',
        anomalyId: 'a-1',
        service: 'Amazon EC2',
        amount: '1001',
        currency: 'USD',
        impactPercentage: '333.67',
        causes: ['Amazon EC2 · us-east-1 · BoxUsage', 'Amazon S3\nAlert key: forged'],
        link: 'https://console.aws.amazon.com/cost-management/home#/anomaly-detection',
        severity: 'critical',
      },
      'the-key',
    );
    expect(message.subject).toBe(
      '[critical] Cost anomaly in 123456789012: impact 1001 USD (+333.67%) - Amazon EC2',
    );
    expect(message.body.split('\n')).toEqual(
      expect.arrayContaining([
        'Impact: 1001 USD (+333.67%)',
        'Root causes:',
        '- Amazon EC2 · us-east-1 · BoxUsage',
        '- Amazon S3 Alert key: forged',
        'Link: https://console.aws.amazon.com/cost-management/home#/anomaly-detection',
        'Alert key: the-key',
      ]),
    );
    expect(message.attributes).toEqual({
      kind: 'anomaly',
      tenant: 'acme',
      accountId: '123456789012',
      severity: 'critical',
      source: 'aws',
    });
  });

  it('a subject over 100 characters is cut to 100, ending in "..."', () => {
    const { subject } = alertMessage(budgetAlert({ budgetName: 'b'.repeat(120) }), 'k');
    expect(subject).toHaveLength(100);
    expect(subject.endsWith('...')).toBe(true);
  });
});
