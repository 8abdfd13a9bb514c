/** Every shared fixture parses to its exact normalized event. */
import { readdirSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { decodeRecord } from '../../../lambda/core/envelope';
import type { AlertEvent, CostEvent } from '../../../lambda/core/events';
import { parseAlertEvent, parseCostEvent } from '../../../lambda/core/formats';
import { fifoGroupId } from '../../../lambda/core/keys';
import { FIXTURES, fixtureText, record } from './helpers';

const CANONICAL_EVENT: CostEvent = {
  tenant: 'acme',
  source: 'aws',
  lineItemId: 'li-7f3a9c2e-2026-11-03T14',
  version: 1,
  billingAccountId: '100000000001',
  accountId: '200000000011',
  chargePeriodStart: '2026-11-03T14:00:00.000Z',
  chargePeriodEnd: '2026-11-03T15:00:00.000Z',
  chargeCategory: 'usage',
  service: 'AmazonEC2',
  skuId: 'BoxUsage:m6i.large',
  resourceId: 'arn:aws:ec2:eu-west-1:200000000011:instance/i-0a1b2c3d4e5f60718',
  region: 'eu-west-1',
  amount: '0.107',
  currency: 'USD',
  usageQuantity: '1',
  usageUnit: 'Hours',
  tags: { team: 'payments', env: 'prod' },
};

const SNAKE_EVENT: CostEvent = {
  tenant: 'default',
  source: 'legacy',
  accountId: 'billing-0A1B2C-3D4E5F',
  chargePeriodStart: '2026-11-02T10:00:00.000Z',
  chargeCategory: 'usage',
  costType: 'regular',
  skuId: 'CP-COMPUTEENGINE-VMIMAGE-N2-STANDARD-4',
  amount: '0.194236',
  currency: 'EUR',
};

const FOCUS_EVENTS: CostEvent[] = [
  {
    tenant: 'default',
    source: 'aws',
    billingAccountId: '100000000001',
    accountId: '200000000011',
    billingPeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodStart: '2026-11-03T14:00:00.000Z',
    chargePeriodEnd: '2026-11-03T15:00:00.000Z',
    chargeCategory: 'usage',
    service: 'AmazonEC2',
    skuId: 'SKU-EC2-M6I-LARGE',
    skuPriceId: 'SPRICE-4b1c9e20',
    resourceId: 'arn:aws:ec2:eu-west-1:200000000011:instance/i-0a1b2c3d4e5f60718',
    region: 'eu-west-1',
    invoiceId: 'INV-2026-11-0001',
    description: 'm6i.large Linux on-demand',
    amount: '0.096',
    currency: 'USD',
    usageQuantity: '1',
    usageUnit: 'Hours',
    tags: { team: 'payments', env: 'prod' },
  },
  {
    tenant: 'default',
    source: 'gcp',
    billingAccountId: '0A1B2C-3D4E5F-6A7B8C',
    accountId: 'analytics-prod-4411',
    billingPeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodStart: '2026-11-03T00:00:00.000Z',
    chargePeriodEnd: '2026-11-04T00:00:00.000Z',
    chargeCategory: 'usage',
    service: 'BigQuery',
    skuId: '3362-E469-6BEF',
    region: 'europe-west1',
    description: 'Analysis bytes processed',
    amount: '12.41875',
    currency: 'USD',
    usageQuantity: '1.987',
    usageUnit: 'TiB',
  },
  {
    tenant: 'default',
    source: 'azure',
    billingAccountId: '8611537',
    accountId: '9b2e1f6a-3c44-4d1b-9e0a-55f1d0c2aa10',
    billingPeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodStart: '2026-11-02T00:00:00.000Z',
    chargePeriodEnd: '2026-11-03T00:00:00.000Z',
    chargeCategory: 'usage',
    service: 'Virtual Machines',
    skuId: 'DZH318Z0BQ4L',
    skuPriceId: 'DZH318Z0BQ4L-0011',
    resourceId:
      '/subscriptions/9b2e1f6a-3c44-4d1b-9e0a-55f1d0c2aa10/resourceGroups/rg-data/providers/Microsoft.Compute/virtualMachines/vm-etl-01',
    region: 'westeurope',
    invoiceId: 'G045591234',
    description: 'D4s v5 compute hours',
    amount: '4.608',
    currency: 'EUR',
    usageQuantity: '24',
    usageUnit: 'Hours',
    tags: { 'cost-center': 'cc-2087' },
  },
  {
    tenant: 'default',
    source: 'aws',
    billingAccountId: '100000000001',
    accountId: '200000000011',
    billingPeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodEnd: '2026-12-01T00:00:00.000Z',
    chargeCategory: 'credit',
    service: 'AmazonEC2',
    invoiceId: 'INV-2026-11-0001',
    description: 'Promotional credit',
    amount: '-25',
    currency: 'USD',
  },
  {
    tenant: 'default',
    source: 'aws',
    billingAccountId: '100000000001',
    accountId: '200000000011',
    billingPeriodStart: '2026-11-01T00:00:00.000Z',
    chargePeriodStart: '2026-10-30T00:00:00.000Z',
    chargePeriodEnd: '2026-10-30T01:00:00.000Z',
    chargeCategory: 'usage',
    chargeClass: 'correction',
    service: 'AmazonEC2',
    skuId: 'USG-123',
    skuPriceId: 'USG-123-01',
    region: 'us-east-1',
    invoiceId: 'INV-2026-11-0001',
    description: 'Post invoice correction - late-arriving usage',
    amount: '1500',
    currency: 'USD',
    usageQuantity: '1000',
    usageUnit: 'Hours',
  },
];

const GCP_ALERT: AlertEvent = {
  kind: 'budget-threshold',
  format: 'gcp-budget',
  tenant: 'default',
  source: 'gcp',
  accountId: '0A1B2C-3D4E5F-6A7B8C',
  budgetId: '9a7c3e10-5b21-4f6e-8d44-1c2b3a4d5e6f',
  budgetName: 'analytics-monthly',
  period: '2026-11-01T07:00:00.000Z',
  thresholdType: 'actual',
  threshold: '0.9',
  budgetAmount: '5000',
  amount: '4512.37',
  currency: 'USD',
  severity: 'warning',
};

const GCP_UPDATE: AlertEvent = {
  kind: 'budget-update',
  format: 'gcp-budget',
  tenant: 'default',
  source: 'gcp',
  accountId: '0A1B2C-3D4E5F-6A7B8C',
  budgetId: '9a7c3e10-5b21-4f6e-8d44-1c2b3a4d5e6f',
  budgetName: 'analytics-monthly',
  period: '2026-11-01T07:00:00.000Z',
  budgetAmount: '5000',
  amount: '4498.02',
  currency: 'USD',
  severity: 'info',
};

const AWS_BUDGETS_ALERT: AlertEvent = {
  kind: 'budget-threshold',
  format: 'aws-budgets',
  tenant: 'default',
  source: 'aws',
  accountId: '200000000011',
  budgetName: 'prod-platform-monthly',
  period: '2026-11',
  thresholdType: 'actual',
  threshold: '8000',
  budgetAmount: '10000',
  amount: '8214.55',
  currency: 'USD',
  link: 'https://console.aws.amazon.com/billing/home#/budgets',
  severity: 'warning',
};

const ANOMALY_ALERT: AlertEvent = {
  kind: 'anomaly',
  format: 'cost-anomaly',
  tenant: 'default',
  source: 'aws',
  accountId: '100000000001',
  anomalyId: '4c8e2f10-77a1-4e3b-b5d2-9a0c1e2f3a4b',
  anomalyStart: '2026-11-25T00:00:00.000Z',
  monitorArn: 'arn:aws:ce::100000000001:anomalymonitor/6f1d2c3b-0a9e-4b8c-9d7e-1f2a3b4c5d6e',
  service: 'Amazon Elastic Compute Cloud - Compute',
  amount: '531.68',
  currency: 'USD',
  impactPercentage: '33.02',
  causes: [
    'Amazon Elastic Compute Cloud - Compute · eu-west-1 · EU-BoxUsage:c6i.4xlarge · account 200000000011 (prod-platform)',
  ],
  link: 'https://console.aws.amazon.com/cost-management/home#/anomaly-detection/monitors/6f1d2c3b-0a9e-4b8c-9d7e-1f2a3b4c5d6e/anomalies/4c8e2f10-77a1-4e3b-b5d2-9a0c1e2f3a4b',
  severity: 'warning',
};

describe('shared fixtures', () => {
  it('are all covered here', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual([
      'README.md',
      'aws-budgets-notification.txt',
      'aws-cost-anomaly.json',
      'canonical-cost-event.json',
      'canonical-cost-restatement.json',
      'focus-rows.jsonl',
      'gcp-budget-notification.json',
      'gcp-budget-update.json',
      'snake-case-event.json',
      'sns-envelope.json',
      'sqs-event-fifo.json',
    ]);
  });

  it('canonical-cost-event.json → canonical CostEvent', () => {
    expect(parseCostEvent(record(fixtureText('canonical-cost-event.json')))).toStrictEqual({
      event: CANONICAL_EVENT,
      format: 'canonical',
    });
  });

  it('canonical-cost-restatement.json → the same line item, version 2, new amount', () => {
    expect(parseCostEvent(record(fixtureText('canonical-cost-restatement.json')))).toStrictEqual({
      event: { ...CANONICAL_EVENT, version: 2, amount: '0.0749' },
      format: 'canonical',
    });
  });

  it('snake-case-event.json → CostEvent without message_id / publish_time', () => {
    expect(parseCostEvent(record(fixtureText('snake-case-event.json')))).toStrictEqual({
      event: SNAKE_EVENT,
      format: 'snake-case',
    });
  });

  const rows = fixtureText('focus-rows.jsonl')
    .split('\n')
    .filter((line) => line.trim() !== '');
  it('focus-rows.jsonl has one expectation per row', () =>
    expect(rows).toHaveLength(FOCUS_EVENTS.length));
  it.each(rows.map((row, index) => [index, row] as const))(
    'focus-rows.jsonl row %i → CostEvent',
    (index, row) => {
      expect(parseCostEvent(record(row))).toStrictEqual({
        event: FOCUS_EVENTS[index],
        format: 'focus',
      });
    },
  );

  it('gcp-budget-notification.json → budget-threshold', () => {
    expect(parseAlertEvent(record(fixtureText('gcp-budget-notification.json')))).toStrictEqual(
      GCP_ALERT,
    );
  });

  it('gcp-budget-update.json → budget-update (observed, no notification)', () => {
    expect(parseAlertEvent(record(fixtureText('gcp-budget-update.json')))).toStrictEqual(
      GCP_UPDATE,
    );
  });

  it('aws-budgets-notification.txt (raw delivery) → budget-threshold', () => {
    const decoded = record(fixtureText('aws-budgets-notification.txt'));
    expect(decoded.snsWrapped).toBe(false);
    expect(parseAlertEvent(decoded)).toStrictEqual(AWS_BUDGETS_ALERT);
  });

  it('sns-envelope.json (AWS Budgets text inside an SNS envelope) → the same event', () => {
    const decoded = decodeRecord({ body: fixtureText('sns-envelope.json') }, 'envelope');
    expect(decoded.snsWrapped).toBe(true);
    expect(parseAlertEvent(decoded)).toStrictEqual(AWS_BUDGETS_ALERT);
  });

  it('aws-cost-anomaly.json → anomaly', () => {
    expect(parseAlertEvent(record(fixtureText('aws-cost-anomaly.json')))).toStrictEqual(
      ANOMALY_ALERT,
    );
  });

  it('sqs-event-fifo.json: every record of the Lambda event', () => {
    const event = JSON.parse(fixtureText('sqs-event-fifo.json')) as SQSEvent;
    // The fixture holds a record of a raw-delivery subscription, then one of an envelope subscription.
    const modes = ['raw', 'envelope'] as const;
    const parsed = event.Records.map((sqsRecord, index) =>
      parseCostEvent(decodeRecord(sqsRecord, modes[index])),
    );
    expect(
      parsed.map(({ event: { tenant, accountId } }) => fifoGroupId(tenant, accountId)),
    ).toEqual(event.Records.map((sqsRecord) => sqsRecord.attributes.MessageGroupId));
    expect(parsed).toStrictEqual([
      {
        event: {
          tenant: 'acme',
          source: 'aws',
          accountId: '200000000011',
          chargePeriodStart: '2026-11-03T14:00:00.000Z',
          chargeCategory: 'usage',
          skuId: 'BoxUsage:m6i.large',
          amount: '0.096',
          currency: 'USD',
        },
        format: 'canonical',
      },
      { event: SNAKE_EVENT, format: 'snake-case' },
    ]);
  });
});
