/** Pub/Sub push bodies and Azure webhooks → the publication (topic, message, attributes) or a 400/403. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { secretHash, verifyAzureSecret } from '../../../lambda/core/push/azure-secret';
import { planAzureWebhook } from '../../../lambda/core/push/azure-body';
import { planPubSubPush } from '../../../lambda/core/push/pubsub-body';

const ALERTS = path.resolve(__dirname, '../../fixtures/alerts');
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(ALERTS, name), 'utf8')) as Record<string, unknown>;

const gcpBudget = fixture('gcp-budget-with-attributes.json') as {
  attributes: Record<string, string>;
  data: unknown;
};
const pushBody = (data: unknown, attributes: Record<string, string> = {}) => ({
  message: {
    data: Buffer.from(JSON.stringify(data)).toString('base64'),
    attributes,
    messageId: '2070443601311540',
    publishTime: '2026-11-28T09:00:00.000Z',
  },
  subscription: 'projects/acme-billing/subscriptions/billing-dedup-push',
});

const costEvent = {
  eventId: 'evt-1',
  source: 'gcp-watcher',
  accountId: '01D4EE-079462-DFD6EC',
  chargePeriodStart: '2026-11-27T00:00:00Z',
  chargeCategory: 'usage',
  amount: '12.50',
  currency: 'USD',
};

describe('Pub/Sub push bodies', () => {
  it('a GCP budget notification goes to the alerts topic with its attributes and the bound tenant', () => {
    const plan = planPubSubPush(pushBody(gcpBudget.data, gcpBudget.attributes), 'acme');
    expect(plan).toMatchObject({
      ok: true,
      topic: 'alerts',
      tenant: 'acme',
      attributes: {
        ...gcpBudget.attributes,
        tenant: 'acme',
        pubsubMessageId: '2070443601311540',
      },
    });
    expect(JSON.parse((plan as { message: string }).message)).toEqual(gcpBudget.data);
  });

  it('a GCP anomaly notification goes to the alerts topic', () => {
    const anomaly = fixture('gcp-anomaly-constructed.json');
    const data = (anomaly.data ?? anomaly) as object;
    expect(planPubSubPush(pushBody(data), 'acme')).toMatchObject({ ok: true, topic: 'alerts' });
  });

  it('a cost event goes to the cost-events topic with its FIFO ids', () => {
    const plan = planPubSubPush(pushBody(costEvent), 'acme');
    expect(plan).toMatchObject({
      ok: true,
      topic: 'cost-events',
      attributes: { tenant: 'acme' },
      messageGroupId: 'acme#01D4EE-079462-DFD6EC',
    });
    expect((plan as { messageDeduplicationId: string }).messageDeduplicationId).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it('a budget notification without billingAccountId is 400 naming the attribute', () => {
    expect(planPubSubPush(pushBody(gcpBudget.data), 'acme')).toMatchObject({
      ok: false,
      status: 400,
      detail: expect.stringContaining('billingAccountId'),
    });
  });

  it('a body naming another tenant is 403 tenant-mismatch: the tenant is the credential’s', () => {
    const attributes = { ...gcpBudget.attributes, tenant: 'globex' };
    expect(planPubSubPush(pushBody(gcpBudget.data, attributes), 'acme')).toMatchObject({
      status: 403,
      reason: 'tenant-mismatch',
    });
    expect(planPubSubPush(pushBody({ ...costEvent, tenant: 'globex' }), 'acme')).toMatchObject({
      status: 403,
      reason: 'tenant-mismatch',
    });
  });

  it.each([
    ['not an object', 'hello'],
    ['no message', { subscription: 's' }],
    ['data not base64', { message: { data: '%%%', messageId: '1' } }],
    ['no messageId', { message: { data: 'e30=' } }],
    [
      'data not JSON',
      { message: { data: Buffer.from('nope').toString('base64'), messageId: '1' } },
    ],
  ])('%s → 400 malformed-body', (_name, body) => {
    expect(planPubSubPush(body, 'acme')).toMatchObject({
      ok: false,
      status: 400,
      reason: 'malformed-body',
    });
  });
});

describe('Azure webhooks', () => {
  const RECEIVED = new Date('2026-11-28T09:15:00Z');

  it('an AIP budget notification goes to the alerts topic with receivedAt and the tenant', () => {
    expect(
      planAzureWebhook(fixture('azure-budget-aip-test-action.json'), 'acme', RECEIVED),
    ).toMatchObject({
      ok: true,
      topic: 'alerts',
      attributes: { tenant: 'acme', receivedAt: '2026-11-28T09:15:00.000Z' },
    });
  });

  it('a common-schema cost alert goes to the alerts topic', () => {
    expect(
      planAzureWebhook(fixture('azure-common-forecasted-budget.json'), 'acme', RECEIVED),
    ).toMatchObject({ ok: true, topic: 'alerts' });
  });

  it('another payload is 400 with its schemaId', () => {
    expect(
      planAzureWebhook({ schemaId: 'Microsoft.Insights/activityLogs' }, 'acme', RECEIVED),
    ).toMatchObject({ status: 400, detail: expect.stringContaining('activityLogs') });
  });

  it('a budget alert missing its threshold is 400 naming the field', () => {
    const body = fixture('azure-budget-aip-test-action.json') as { data: Record<string, unknown> };
    delete body.data.NotificationThresholdAmount;
    expect(planAzureWebhook(body, 'acme', RECEIVED)).toMatchObject({
      status: 400,
      detail: expect.stringContaining('NotificationThresholdAmount'),
    });
  });
});

describe('Azure secret token', () => {
  const hashes: Record<string, string> = {
    acme: secretHash('s3cret-acme'),
    globex: secretHash('s3cret-globex'),
  };
  const secretOf = (tenant: string): string | undefined => hashes[tenant];

  it('the tenant’s token is accepted', () => {
    expect(verifyAzureSecret('acme', 's3cret-acme', secretOf('acme'))).toMatchObject({
      ok: true,
      tenant: 'acme',
    });
  });

  it.each([
    ['no token', 'acme', undefined, 'missing-credential'],
    ['a wrong token', 'acme', 's3cret-acmf', 'wrong-secret'],
    ['a prefix of the token', 'acme', 's3cret', 'wrong-secret'],
    ['another tenant’s token', 'acme', 's3cret-globex', 'wrong-secret'],
    ['an unknown tenant', 'initech', 's3cret-acme', 'wrong-secret'],
  ])('%s → 401', (_name, tenant, token, reason) => {
    expect(verifyAzureSecret(tenant, token, secretOf(tenant))).toMatchObject({
      ok: false,
      status: 401,
      reason,
    });
  });
});
