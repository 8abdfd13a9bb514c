/**
 * What the local run sends to the push endpoint (docs/push-endpoint.md), and what each request must be
 * answered: Google Pub/Sub pushes (a GCP budget notification and a billing watcher's cost event, each
 * delivered twice; a forged token, an expired one, another tenant's, one for another audience, one of a
 * service account no tenant is bound to), Azure action-group webhooks (both budget schemas, one delivered
 * twice; another tenant's token, none) and the usage ingest API (a retry with the same key and body, the
 * key reused with another body, a batch, another tenant's key, an unknown key, and a burst over the
 * per-key rate limit whose 429s are retried after `Retry-After`), and the same API for AWS callers
 * (`/v1/iam/events`: a SigV4 request of a bound role, one of an unbound role, one with a forged signature).
 *
 * Deterministic and drawn from no random stream: adding it moved no message of the sample. Credentials
 * are described, not held: the run signs the tokens and issues the keys (`local/phases/push.ts`). The
 * accepted requests add their alerts and charges to the truth, the refused ones nothing.
 */
import { parseAlert } from '../../lambda/core/alert-processor';
import type { TruthBuilder } from './truth';
import { TENANTS } from './tenants';

/** Who signs or holds the credential a request presents. */
export type PushCredential =
  | {
      readonly kind: 'google';
      /** The service account's tenant, or `nobody` (an account bound to no tenant). */
      readonly account: string;
      /** `forged`: signed by a key Google never published; `wrong-audience`: for another endpoint. */
      readonly token: 'valid' | 'forged' | 'expired' | 'wrong-audience';
    }
  | { readonly kind: 'azure-token'; readonly tenant: string }
  | { readonly kind: 'api-key'; readonly key: string }
  /** A SigV4 signature with a local session of the role; `forged`: with a secret that is not its. */
  | { readonly kind: 'iam'; readonly role: string; readonly signature: 'valid' | 'forged' }
  | { readonly kind: 'none' };

export type PushRouteName = 'pubsub' | 'azure' | 'ingest' | 'iam';

export interface PushSampleRequest {
  readonly name: string;
  readonly route: PushRouteName;
  readonly path: string;
  readonly credential: PushCredential;
  readonly idempotencyKey?: string;
  readonly body: string;
  /** The final answer: status, refusal reason, or a replay. */
  readonly expect: { readonly status: number; readonly reason?: string; readonly replayed?: true };
  /** Requests of one burst are sent at once; a 429 among them is sent again after its Retry-After. */
  readonly burst?: string;
  /** An accepted Azure AIP budget alert: its period is the month the endpoint received it. */
  readonly alertAtReceipt?: true;
}

export interface PushApiKey {
  readonly name: string;
  readonly tenant: string;
  readonly source: string;
}

/** An AWS role whose sessions sign `/v1/iam/events` requests; `bound`: its `iamCallers` binding. */
export interface PushIamRole {
  readonly name: string;
  readonly account: string;
  readonly bound?: { readonly tenant: string; readonly source: string };
}

export interface PushSample {
  /** Service account e-mail → tenant (`pushEndpoint.pubsub.serviceAccounts`). */
  readonly serviceAccounts: Readonly<Record<string, string>>;
  readonly azureTenants: readonly string[];
  readonly apiKeys: readonly PushApiKey[];
  readonly iamRoles: readonly PushIamRole[];
  /** `pushEndpoint.ingestPerMinute` of the local stack. */
  readonly ingestPerMinute: number;
  readonly requests: readonly PushSampleRequest[];
}

export const PUSH_MONTH = '2026-11';
/** Accounts no other scenario books: the push charges stay apart from exports, closing, reconciliation. */
export const PUSH_ACCOUNTS = { acme: '200000000091', initech: '400000000093' } as const;
export const PUSH_INGEST_PER_MINUTE = 6;
/** The AWS account the local IAM callers' roles live in. */
export const PUSH_CALLER_ACCOUNT = '777788889999';
/** Requests of the burst: more than two windows can hold, so at least one is throttled. */
export const PUSH_BURST_SIZE = 2 * PUSH_INGEST_PER_MINUTE + 1;

const serviceAccount = (tenant: string) => `billing-push@${tenant}-local.iam.gserviceaccount.com`;
export const UNBOUND_SERVICE_ACCOUNT = serviceAccount('nobody');

const pubsubPush = (data: object, attributes: Record<string, string>, messageId: string) =>
  JSON.stringify({
    message: {
      data: Buffer.from(JSON.stringify(data)).toString('base64'),
      attributes,
      messageId,
      publishTime: `${PUSH_MONTH}-20T10:00:00.000Z`,
    },
    subscription: 'projects/acme-billing/subscriptions/billing-dedup-push',
  });

const costEvent = (tenant: keyof typeof PUSH_ACCOUNTS, eventId: string, amount: string) => ({
  eventId,
  accountId: PUSH_ACCOUNTS[tenant],
  chargePeriodStart: `${PUSH_MONTH}-20T00:00:00Z`,
  chargeCategory: 'usage',
  service: 'Metering',
  amount,
  currency: 'USD',
});

/** The alert key the alert consumer computes for a message the endpoint publishes (lambda/core/keys.ts). */
export const pushedAlertKey = (message: string, attributes: Record<string, string>): string =>
  parseAlert({
    messageId: 'ground-truth',
    body: message,
    messageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String' },
      ]),
    ),
  }).key;

/** Microsoft's budget alert in the common alert schema (test/fixtures/alerts), for acme's subscription. */
const azureCommonBudgetAlert = {
  schemaId: 'azureMonitorCommonAlertSchema',
  data: {
    essentials: {
      monitoringService: 'CostAlerts',
      firedDateTime: `${PUSH_MONTH}-20T09:13:20.645Z`,
      description:
        'Your spend for budget acme-subscription-monthly is now $4,120.00 exceeding your specified threshold $4,000.00.',
      essentialsVersion: '1.0',
      alertContextVersion: '1.0',
      alertId:
        '/subscriptions/5a1c0e2b-8d44-4f0e-9c1a-7e3b2d6f9a01/providers/Microsoft.CostManagement/alerts/acme-80',
      alertRule: null,
      severity: null,
      signalType: null,
      monitorCondition: null,
      alertTargetIDs: null,
      configurationItems: ['budgets'],
      originAlertId: null,
    },
    alertContext: {
      AlertCategory: 'budgets',
      AlertData: {
        Scope: '/subscriptions/5a1c0e2b-8d44-4f0e-9c1a-7e3b2d6f9a01/',
        ThresholdType: 'Actual',
        BudgetType: 'Cost',
        BudgetThreshold: '$5,000.00',
        NotificationThresholdAmount: '$4,000.00',
        BudgetName: 'acme-subscription-monthly',
        BudgetId:
          '/subscriptions/5a1c0e2b-8d44-4f0e-9c1a-7e3b2d6f9a01/providers/Microsoft.Consumption/budgets/acme-subscription-monthly',
        BudgetStartDate: '2026-01-01',
        BudgetCreator: 'finops@acme.example',
        Unit: 'USD',
        SpentAmount: '$4,120.00',
      },
    },
  },
};

/** Microsoft's "AIP Budget Notification" (the schema without the common alert schema). */
const azureAipBudgetAlert = {
  schemaId: 'AIP Budget Notification',
  data: {
    SubscriptionName: 'acme-production',
    SubscriptionId: '5a1c0e2b-8d44-4f0e-9c1a-7e3b2d6f9a01',
    EnrollmentNumber: '',
    DepartmentName: '',
    AccountName: '',
    BillingAccountId: '',
    BillingProfileId: '',
    InvoiceSectionId: '',
    ResourceGroup: '',
    SpendingAmount: '9120.55',
    BudgetStartDate: '1/1/2026 12:00:00 AM -00:00',
    Budget: '10000',
    Unit: 'USD',
    BudgetCreator: 'finops@acme.example',
    BudgetName: 'acme-subscription-quarterly',
    BudgetType: 'Cost',
    NotificationThresholdAmount: '9000.0',
  },
};

/** The push sample; accepted requests book their charges and alerts in `truth`. */
export const pushSample = (truth: TruthBuilder): PushSample => {
  const [acme, globex] = TENANTS;
  const google = (account: string, token: 'valid' | 'forged' | 'expired' | 'wrong-audience') =>
    ({ kind: 'google', account, token }) as const;
  const requests: PushSampleRequest[] = [];

  // Pub/Sub: a GCP budget notification (50 %), delivered twice (same messageId, a fresh token each).
  const budgetData = {
    budgetDisplayName: 'acme-cloud-push-monthly',
    alertThresholdExceeded: 0.5,
    costAmount: 2612.4,
    costIntervalStart: `${PUSH_MONTH}-01T07:00:00Z`,
    budgetAmount: 5000,
    budgetAmountType: 'SPECIFIED_AMOUNT',
    currencyCode: 'USD',
  };
  const budgetAttributes = {
    billingAccountId: acme.gcpBillingAccount,
    budgetId: '6f0b6f63-3c52-4d2a-9f55-2e0f5c8a1b70',
    schemaVersion: '1.0',
    tenant: acme.tenant,
  };
  const budgetPush = pubsubPush(budgetData, budgetAttributes, '9100000000000001');
  truth.notify(pushedAlertKey(JSON.stringify(budgetData), budgetAttributes));
  requests.push(
    {
      name: 'GCP budget 50 % by Pub/Sub push',
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'valid'),
      body: budgetPush,
      expect: { status: 200 },
    },
    {
      name: 'the same push delivered again',
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'valid'),
      body: budgetPush,
      expect: { status: 200 },
    },
    {
      name: 'forged token (a key Google never published)',
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'forged'),
      body: budgetPush,
      expect: { status: 401, reason: 'bad-signature' },
    },
    {
      name: 'expired token',
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'expired'),
      body: budgetPush,
      expect: { status: 401, reason: 'expired' },
    },
    {
      name: "another tenant's token (globex's service account, acme's notification)",
      route: 'pubsub',
      path: '/pubsub',
      credential: google(globex.tenant, 'valid'),
      body: budgetPush,
      expect: { status: 403, reason: 'tenant-mismatch' },
    },
    {
      name: 'a token for another audience',
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'wrong-audience'),
      body: budgetPush,
      expect: { status: 403, reason: 'wrong-audience' },
    },
    {
      name: 'a service account bound to no tenant',
      route: 'pubsub',
      path: '/pubsub',
      credential: google('nobody', 'valid'),
      body: budgetPush,
      expect: { status: 403, reason: 'unknown-sender' },
    },
  );

  // Pub/Sub: a billing watcher's cost event, delivered twice: one charge.
  const watched = costEvent('acme', 'watcher-push-0001', '18.40');
  const watcherPush = pubsubPush(
    watched,
    { source: 'billing-watcher', tenant: acme.tenant },
    '9100000000000002',
  );
  truth.book(`event:${acme.tenant}:${watched.accountId}:${watched.eventId}`, {
    tenant: acme.tenant,
    accountId: watched.accountId,
    period: PUSH_MONTH,
    currency: 'USD',
    amount: watched.amount,
  });
  for (const copy of ['a billing watcher cost event by Pub/Sub push', 'the same push again'])
    requests.push({
      name: copy,
      route: 'pubsub',
      path: '/pubsub',
      credential: google(acme.tenant, 'valid'),
      body: watcherPush,
      expect: { status: 200 },
    });

  // Azure: the common-schema budget alert twice (one notification), the AIP one, refused tokens.
  const common = JSON.stringify(azureCommonBudgetAlert);
  truth.notify(pushedAlertKey(common, { tenant: acme.tenant }));
  requests.push(
    ...['Azure budget alert (common alert schema)', 'the same webhook again'].map(
      (name): PushSampleRequest => ({
        name,
        route: 'azure',
        path: `/azure/${acme.tenant}`,
        credential: { kind: 'azure-token', tenant: acme.tenant },
        body: common,
        expect: { status: 200 },
      }),
    ),
    {
      name: 'Azure budget alert (AIP Budget Notification)',
      route: 'azure',
      path: `/azure/${acme.tenant}`,
      credential: { kind: 'azure-token', tenant: acme.tenant },
      body: JSON.stringify(azureAipBudgetAlert),
      expect: { status: 200 },
      alertAtReceipt: true,
    },
    {
      name: "another tenant's webhook token",
      route: 'azure',
      path: `/azure/${acme.tenant}`,
      credential: { kind: 'azure-token', tenant: globex.tenant },
      body: common,
      expect: { status: 401, reason: 'wrong-secret' },
    },
    {
      name: 'a webhook without its token',
      route: 'azure',
      path: `/azure/${acme.tenant}`,
      credential: { kind: 'none' },
      body: common,
      expect: { status: 401, reason: 'missing-credential' },
    },
  );

  // The ingest API: acme's metering producer.
  const first = costEvent('acme', 'meter-push-0001', '3.10');
  const reordered = Object.fromEntries(Object.entries(first).reverse());
  const book = (tenant: keyof typeof PUSH_ACCOUNTS, event: ReturnType<typeof costEvent>) =>
    truth.book(`event:${tenant}:${event.accountId}:${event.eventId}`, {
      tenant,
      accountId: event.accountId,
      period: PUSH_MONTH,
      currency: 'USD',
      amount: event.amount,
    });
  book('acme', first);
  const batch = [
    costEvent('acme', 'meter-push-0002', '0.75'),
    costEvent('acme', 'meter-push-0003', '12.00'),
  ];
  for (const event of batch) book('acme', event);
  const ingest = (
    name: string,
    key: string,
    idempotencyKey: string,
    body: object,
    expect: PushSampleRequest['expect'],
  ): PushSampleRequest => ({
    name,
    route: 'ingest',
    path: '/v1/events',
    credential: { kind: 'api-key', key },
    idempotencyKey,
    body: JSON.stringify(body),
    expect,
  });
  requests.push(
    ingest('a usage event', 'acme-metering', 'acme-invoice-2026-11-line-1', first, {
      status: 202,
    }),
    ingest(
      'the retry: same key, same body (keys reordered)',
      'acme-metering',
      'acme-invoice-2026-11-line-1',
      reordered,
      { status: 200, replayed: true },
    ),
    ingest(
      'the key reused with another body',
      'acme-metering',
      'acme-invoice-2026-11-line-1',
      { ...first, amount: '9.99' },
      { status: 409, reason: 'key-reused' },
    ),
    ingest(
      'a batch of two events',
      'acme-metering',
      'acme-invoice-2026-11-line-2-3',
      {
        events: batch,
      },
      { status: 202 },
    ),
    ingest(
      "another tenant's key (globex's, an event naming acme)",
      'globex-metering',
      'globex-forged-1',
      { ...costEvent('acme', 'meter-push-forged', '500.00'), tenant: acme.tenant },
      { status: 403, reason: 'tenant-mismatch' },
    ),
    ingest(
      'an unknown API key',
      'unissued',
      'acme-invoice-2026-11-line-9',
      costEvent('acme', 'meter-push-unknown', '1.00'),
      { status: 401, reason: 'wrong-secret' },
    ),
  );

  // The same API for AWS callers: tenant and source from the signing role's binding.
  const signed = costEvent('acme', 'meter-iam-0001', '2.40');
  book('acme', signed);
  const iamRequest = (
    name: string,
    role: string,
    signature: 'valid' | 'forged',
    expect: PushSampleRequest['expect'],
  ): PushSampleRequest => ({
    name,
    route: 'iam',
    path: '/v1/iam/events',
    credential: { kind: 'iam', role, signature },
    idempotencyKey: `acme-iam-${role}-1`,
    body: JSON.stringify(signed),
    expect,
  });
  requests.push(
    iamRequest('a usage event signed by a bound role', 'metering-producer', 'valid', {
      status: 202,
    }),
    iamRequest('signed by a role bound to no tenant', 'unbound-producer', 'valid', {
      status: 403,
      reason: 'unknown-caller',
    }),
    iamRequest('a forged signature (refused by the gateway)', 'metering-producer', 'forged', {
      status: 403,
    }),
  );

  // A burst over initech's per-key limit: every event accepted in the end, once.
  for (let index = 1; index <= PUSH_BURST_SIZE; index++) {
    const event = costEvent('initech', `burst-${String(index).padStart(4, '0')}`, '0.05');
    book('initech', event);
    requests.push({
      ...ingest(`burst event ${index}`, 'initech-burst', `initech-burst-${index}`, event, {
        status: 202,
      }),
      burst: 'initech-burst',
    });
  }

  return {
    serviceAccounts: {
      [serviceAccount(acme.tenant)]: acme.tenant,
      [serviceAccount(globex.tenant)]: globex.tenant,
    },
    azureTenants: [acme.tenant, globex.tenant],
    apiKeys: [
      { name: 'acme-metering', tenant: acme.tenant, source: 'metering' },
      { name: 'globex-metering', tenant: globex.tenant, source: 'metering' },
      { name: 'initech-burst', tenant: 'initech', source: 'metering' },
    ],
    iamRoles: [
      {
        name: 'metering-producer',
        account: PUSH_CALLER_ACCOUNT,
        bound: { tenant: acme.tenant, source: 'metering' },
      },
      { name: 'unbound-producer', account: PUSH_CALLER_ACCOUNT },
    ],
    ingestPerMinute: PUSH_INGEST_PER_MINUTE,
    requests,
  };
};

/** The ARN of a sample role (what `iamCallers` binds) and of a session of it (what signs). */
export const iamRoleArn = (role: PushIamRole): string =>
  `arn:aws:iam::${role.account}:role/billing/${role.name}`;
export const iamSessionArn = (role: PushIamRole): string =>
  `arn:aws:sts::${role.account}:assumed-role/${role.name}/local-run`;

/** The service account of a tenant in the local stack (`nobody`: one bound to no tenant). */
export const localServiceAccount = serviceAccount;
