/** Real (and, where named so, constructed) alert messages of test/fixtures/alerts: kind, account, period, key. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAlertEvent } from '../../../lambda/core/formats';
import { alertKey } from '../../../lambda/core/keys';
import { record, rejection, rejectionOf } from './helpers';

const ALERTS = path.resolve(__dirname, '../../fixtures/alerts');
const sample = (name: string): string => readFileSync(path.join(ALERTS, name), 'utf8');
const json = (name: string): Record<string, unknown> =>
  JSON.parse(sample(name)) as Record<string, unknown>;

const parse = (body: string, attributes: Record<string, string> = {}) =>
  parseAlertEvent(record(body, attributes));
const keyOf = (body: string, attributes: Record<string, string> = {}): string =>
  alertKey(parse(body, attributes));

describe('AWS Budgets notifications as AWS sends them', () => {
  const dayOne = sample('aws-budgets-daily-2023-03-04.txt');
  const dayTwo = sample('aws-budgets-daily-2023-03-05.txt');

  it('a daily budget ("per day. Yesterday, …") is about the day before the notification', () => {
    expect(parse(dayOne)).toMatchObject({
      kind: 'budget-threshold',
      format: 'aws-budgets',
      accountId: '265627204426',
      budgetName: 'killswitch',
      period: '2023-03-03',
      threshold: '0',
      amount: '2.15',
      currency: 'USD',
      link: 'https://console.aws.amazon.com/billing/home#/budgets',
    });
    expect(parse(dayTwo)).toMatchObject({ period: '2023-03-04', threshold: '0.75' });
  });

  it('one daily budget crossing the same threshold on two days is two alerts', () => {
    const sameThreshold = dayTwo
      .replace('greater than $0.75 per day', 'greater than $0.00 per day')
      .replace('Alert Threshold: > $0.75', 'Alert Threshold: > $0.00')
      .replace('Budgeted Amount: $5.00', 'Budgeted Amount: $70.00');
    expect(parse(sameThreshold)).toMatchObject({ threshold: '0', budgetAmount: '70' });
    expect(keyOf(sameThreshold)).not.toBe(keyOf(dayOne));
  });

  it('a repeat within the same day (re-sent, higher spend, CRLF) is the same alert', () => {
    const resent = dayOne.replace(/\$2\.15/g, '$2.90').replace(/\n/g, '\r\n');
    expect(keyOf(resent)).toBe(keyOf(dayOne));
  });

  it('monthly ACTUAL and FORECASTED of one budget: two alerts of period 2024-05', () => {
    const actual = parse(sample('aws-budgets-monthly-actual.txt'));
    const forecast = parse(sample('aws-budgets-monthly-forecasted.txt'));
    expect(actual).toMatchObject({
      kind: 'budget-threshold',
      accountId: '123456789012',
      period: '2024-05',
      amount: '0.5',
    });
    expect(forecast).toMatchObject({ kind: 'budget-forecast', period: '2024-05' });
    expect(alertKey(actual)).not.toBe(alertKey(forecast));
  });

  it('quarterly and annual budgets (constructed texts) are keyed by quarter and year', () => {
    const quarterly = parse(sample('aws-budgets-quarterly-constructed.txt'));
    const annual = parse(sample('aws-budgets-annual-constructed.txt'));
    expect([quarterly.period, annual.period]).toEqual(['2024-Q2', '2024']);
    const keys = new Set(
      [quarterly, annual, parse(sample('aws-budgets-monthly-actual.txt'))].map(alertKey),
    );
    expect(keys.size).toBe(3);
  });

  it('a link that is not the AWS console is left out', () => {
    const phishing = dayOne.replace(
      'https://console.aws.amazon.com/billing/home#/budgets',
      'https://console.aws.amazon.com.evil.example/budgets',
    );
    expect(parse(phishing)).not.toHaveProperty('link');
  });
});

describe('Cost Anomaly Detection by SNS and by EventBridge', () => {
  const sns = sample('aws-cost-anomaly-sns.json');
  const event = sample('aws-cost-anomaly-eventbridge.json');

  it('the SNS alert of the documentation', () => {
    expect(parse(sns)).toMatchObject({
      kind: 'anomaly',
      format: 'cost-anomaly',
      accountId: '123456789012',
      anomalyId: '12345678-abcd-ef12-3456-987654321a12',
      amount: '1001',
      impactPercentage: '333.67',
      severity: 'critical',
      service: 'AnomalousServiceName',
      link: expect.stringMatching(/^https:\/\/console\.aws\.amazon\.com\/cost-management\//),
    });
  });

  it('the "Anomaly Detected" event of the documentation', () => {
    expect(parse(event)).toMatchObject({
      kind: 'anomaly',
      format: 'cost-anomaly-event',
      accountId: '123456789012',
      anomalyId: '12345678-abcd-ef12-3456-987654321a12',
      amount: '1001',
      severity: 'critical',
      service: 'Amazon Elastic Compute Cloud - Compute',
      causes: [
        'Amazon Elastic Compute Cloud - Compute · us-east-1 · BoxUsage:c5.2xlarge · account 123456789012 (management) · 601 USD',
      ],
    });
  });

  it('one anomaly by SNS and by EventBridge, and its growing impact, is one alert key', () => {
    const grown = JSON.stringify({
      ...json('aws-cost-anomaly-eventbridge.json'),
      detail: {
        ...(json('aws-cost-anomaly-eventbridge.json').detail as object),
        impact: { totalImpact: 1450.5, totalImpactPercentage: 400 },
      },
    });
    expect(new Set([keyOf(sns), keyOf(event), keyOf(grown)]).size).toBe(1);
  });

  it('an event without detail.accountId takes the event account', () => {
    const base = json('aws-cost-anomaly-eventbridge.json');
    const { accountId: _dropped, ...detail } = base.detail as Record<string, unknown>;
    expect(keyOf(JSON.stringify({ ...base, detail }))).toBe(keyOf(event));
  });

  it('any other EventBridge event is rejected naming its detail-type', () => {
    const other = JSON.stringify({
      ...json('aws-cost-anomaly-eventbridge.json'),
      source: 'aws.health',
    });
    const error = rejection(() => parse(other));
    expect({ code: error.code, field: error.field }).toEqual({
      code: 'unknown-format',
      field: 'detail-type',
    });
    expect(error.reason).toContain('"aws.health"');
  });

  it('an event whose detail has no anomalyId names detail.anomalyId', () => {
    const base = json('aws-cost-anomaly-eventbridge.json');
    const { anomalyId: _dropped, ...detail } = base.detail as Record<string, unknown>;
    expect(rejectionOf(() => parse(JSON.stringify({ ...base, detail })))).toEqual({
      code: 'missing-field',
      field: 'detail.anomalyId',
    });
  });
});

describe('GCP budget notifications with and without their Pub/Sub attributes', () => {
  const testMessage = sample('gcp-budget-test-message.json');

  it('with attributes: billing account, budget id, period = costIntervalStart', () => {
    expect(parse(sample('gcp-budget-with-attributes.json'))).toMatchObject({
      kind: 'budget-threshold',
      format: 'gcp-budget',
      accountId: '01D4EE-079462-DFD6EC',
      budgetId: 'de72f49d-779b-4945-a127-4d6ce8def0bb',
      period: '2019-01-01T00:00:00.000Z',
      threshold: '1',
      severity: 'critical',
    });
  });

  it("Google's test message without attributes → DLQ reason names the attribute to pass", () => {
    const error = rejection(() => parse(testMessage));
    expect({ code: error.code, field: error.field }).toEqual({
      code: 'missing-field',
      field: 'billingAccountId',
    });
    expect(error.reason).toContain('SNS message attribute billingAccountId');
  });

  it('the same data with billingAccountId as an SNS message attribute is the same alert', () => {
    const forwarded = parse(testMessage, { billingAccountId: '01D4EE-079462-DFD6EC' });
    const wrapped = parse(sample('gcp-budget-with-attributes.json'));
    expect(alertKey({ ...forwarded })).toBe(alertKey({ ...wrapped, budgetId: undefined }));
    expect(forwarded.accountId).toBe('01D4EE-079462-DFD6EC');
  });
});

describe('GCP cost anomaly notifications (constructed sample)', () => {
  const anomaly = sample('gcp-anomaly-constructed.json');
  const base = json('gcp-anomaly-constructed.json') as {
    attributes: Record<string, string>;
    data: Record<string, unknown>;
  };
  const base64 = (value: unknown): string =>
    Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

  it('parses to an anomaly keyed by its name, account from the name', () => {
    expect(parse(anomaly)).toMatchObject({
      kind: 'anomaly',
      format: 'gcp-anomaly',
      source: 'gcp',
      accountId: '01D4EE-079462-DFD6EC',
      anomalyId: base.data.anomalyName,
      amount: '930.77',
      currency: 'USD',
      impactPercentage: '102',
      severity: 'critical',
      causes: ['BigQuery · analytics-prod · us-central1 · 880.1 USD'],
    });
  });

  it('every wrapping, and a re-send with a grown deviation, is the same alert', () => {
    const push = JSON.stringify({
      message: { attributes: base.attributes, data: base64(base.data), messageId: '1' },
      subscription: 'projects/p/subscriptions/s',
    });
    const plain = JSON.stringify(base.data);
    const grown = JSON.stringify({ ...base, data: { ...base.data, deviationAmount: 1200.5 } });
    expect(new Set([keyOf(anomaly), keyOf(push), keyOf(plain), keyOf(grown)]).size).toBe(1);
  });

  it('impact is actual − expected when the deviation is absent', () => {
    const { deviationAmount: _d, ...data } = base.data;
    expect(parse(JSON.stringify({ ...base, data })).amount).toBe('930.77');
  });

  it('a project anomaly needs the billingAccountId attribute', () => {
    const data = { ...base.data, anomalyName: 'projects/analytics-prod/anomalies/3f5e' };
    expect(rejectionOf(() => parse(JSON.stringify(data)))).toEqual({
      code: 'missing-field',
      field: 'billingAccountId',
    });
    expect(
      parse(JSON.stringify(data), { billingAccountId: 'AAAAAA-BBBBBB-CCCCCC' }).accountId,
    ).toBe('AAAAAA-BBBBBB-CCCCCC');
  });

  it('an attribute that contradicts the name is rejected', () => {
    const contradicting = JSON.stringify({
      ...base,
      attributes: { ...base.attributes, billingAccountId: 'AAAAAA-BBBBBB-CCCCCC' },
    });
    expect(rejectionOf(() => parse(contradicting))).toEqual({
      code: 'invalid-field',
      field: 'billingAccountId',
    });
  });

  it('a wrapped budget notification is still a budget, a wrapped anomaly never one', () => {
    expect(parse(sample('gcp-budget-with-attributes.json')).format).toBe('gcp-budget');
    const wrappedAnomaly = JSON.stringify({ attributes: base.attributes, data: base64(base.data) });
    expect(parse(wrappedAnomaly).format).toBe('gcp-anomaly');
  });
});

describe('GCP cost anomaly notifications in the documented shape (currency only in a Money amount)', () => {
  const documented = sample('gcp-anomaly-documented-shape.json');
  const data = json('gcp-anomaly-documented-shape.json');
  const variant = (changes: Record<string, unknown>, drop: string[] = []) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries({ ...data, ...changes }).filter(([key]) => !drop.includes(key)),
      ),
    );

  it('takes the currency from expectedSpendAmount while the other amounts are plain numbers', () => {
    expect(parse(documented)).toMatchObject({
      kind: 'anomaly',
      format: 'gcp-anomaly',
      accountId: '01D4EE-079462-DFD6EC',
      anomalyId: data.anomalyName,
      anomalyStart: '2024-02-01T08:00:00.000Z',
      service: 'My project',
      amount: '1.511893168',
      currency: 'USD',
      impactPercentage: '76.04',
      severity: 'critical',
    });
  });

  it('reads Money as units + nanos exactly, and plain numbers from their JSON text', () => {
    const digits = '1234567890.123456789';
    const withoutDeviation = variant({ actualSpendAmount: digits }, ['deviationAmount']).replace(
      `"${digits}"`,
      digits,
    );
    expect(withoutDeviation).toContain(`"actualSpendAmount":${digits}`);
    expect(parse(withoutDeviation).amount).toBe('1234567888.135349957');
    const negative = variant({
      deviationAmount: { units: '-1', nanos: -750000000, currencyCode: 'USD' },
    });
    expect(parse(negative)).toMatchObject({ amount: '-1.75', currency: 'USD' });
  });

  it('every amount may be Money; the currency may sit in any of them', () => {
    const money = (units: string, nanos: number) => ({ currencyCode: 'EUR', units, nanos });
    const allMoney = variant({
      expectedSpendAmount: { units: '1', nanos: 988106832 },
      actualSpendAmount: money('3', 500000000),
      deviationAmount: { units: '1', nanos: 511893168 },
    });
    expect(parse(allMoney)).toMatchObject({ amount: '1.511893168', currency: 'EUR' });
  });

  it('no currency anywhere, two different ones, or a Money with nanos against its units are rejected', () => {
    const expectedWithout = { units: '1', nanos: 988106832 };
    expect(rejectionOf(() => parse(variant({ expectedSpendAmount: expectedWithout })))).toEqual({
      code: 'missing-field',
      field: 'currencyCode',
    });
    expect(rejectionOf(() => parse(variant({ currencyCode: 'EUR' })))).toEqual({
      code: 'invalid-field',
      field: 'expectedSpendAmount.currencyCode',
    });
    const wrongSign = { currencyCode: 'USD', units: '1', nanos: -5 };
    expect(rejectionOf(() => parse(variant({ expectedSpendAmount: wrongSign })))).toEqual({
      code: 'invalid-field',
      field: 'expectedSpendAmount.nanos',
    });
  });
});
