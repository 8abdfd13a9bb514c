/**
 * The sample stream of `npm start` (seeded, deterministic) and its ground truth.
 *
 * Several tenants and accounts over two months: FOCUS rows (AWS and Google Cloud, usage, credits and
 * corrections booked by BillingPeriodStart), canonical events with eventIds, restated line items (versions
 * published out of order), snake_case events of the original design; duplicate publishes with reordered
 * keys, reformatted numbers (`12.30` / `12.3` / `"12.3"`), new transport and export metadata, other
 * whitespace; publisher retries (same dedup id: dropped by the FIFO topic) and replays (new dedup id:
 * the consumer's dedup must catch them); eventId conflicts; poison messages; repeated GCP budget
 * notifications with rising cost, GCP periodic updates, AWS Budgets texts and cost anomalies; and the
 * hidden-state cases (a line item restated back to its first content, an SNS envelope inside a raw body,
 * NFC/NFD ids, a zero-width space, a JSON number longer than a double, a free-form account id, an amount
 * no total can hold followed by a normal charge).
 *
 * The truth of the ledger comes from the generator's own model of each charge (exact decimals with
 * big.js), not from the consumer's parsers. The expected notification keys are the alert keys of each
 * logical alert's first rendering (the one place that computes keys, lambda/core/keys.ts).
 */
import Big from 'big.js';
import { parseAlert } from '../lambda/core/alert-processor';
import { formatDecimal } from '../lambda/core/decimal';
import type { LedgerTotal } from '../lambda/adapters/ledger-reader';
import { Rng } from './rng';

export type Topic = 'cost-events' | 'budget-alerts';
export const TOPICS: readonly Topic[] = ['cost-events', 'budget-alerts'];

export interface SampleMessage {
  topic: Topic;
  /** The published message text (JSON text or plain text). */
  message: string;
  attributes?: Record<string, string>;
  groupId?: string;
  deduplicationId?: string;
  /** What this message is, for diagnostics. */
  note?: string;
  /** Line of the --input file it came from. */
  line?: number;
}

export interface ChargeEffect {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  amount: string;
}

/** Two charges with one eventId and different content: whichever the ledger books first wins. */
export interface ConflictPair {
  first: { message: string; effect: ChargeEffect };
  second: { message: string; effect: ChargeEffect };
}

export interface GroundTruth {
  ledger: LedgerTotal[];
  notificationKeys: string[];
  /** Messages each DLQ must hold at the end: poison messages and the losing copy of each conflict. */
  deadLetters: Record<Topic, number>;
  conflicts: ConflictPair[];
}

export interface Sample {
  messages: SampleMessage[];
  truth: GroundTruth;
}

export interface SampleOptions {
  seed: number;
  /** Logical charges per account and month (default 60: about 3,000 messages in all). */
  chargesPerAccountMonth?: number;
}

interface TenantSpec {
  tenant: string;
  awsAccounts: string[];
  gcpBillingAccount: string;
  gcpProjects: string[];
  currency: string;
}

const TENANTS: TenantSpec[] = [
  {
    tenant: 'acme',
    awsAccounts: ['200000000011', '200000000012'],
    gcpBillingAccount: '0A1B2C-3D4E5F-6A7B8C',
    gcpProjects: ['acme-analytics-prod'],
    currency: 'USD',
  },
  {
    tenant: 'globex',
    awsAccounts: ['300000000021', '300000000022'],
    gcpBillingAccount: '1B2C3D-4E5F6A-7B8C9D',
    gcpProjects: ['globex-data-lake'],
    currency: 'EUR',
  },
  {
    tenant: 'initech',
    awsAccounts: ['400000000031'],
    gcpBillingAccount: '2C3D4E-5F6A7B-8C9D0E',
    gcpProjects: ['initech-ml-4411', 'initech-web-7730'],
    currency: 'USD',
  },
];
const LEGACY_ACCOUNT = 'billing-9Z8Y7X-LEGACY';
const MONTHS = ['2026-10', '2026-11'] as const;
const AWS_SKUS = [
  'BoxUsage:m6i.large',
  'BoxUsage:c6i.xlarge',
  'TimedStorage-ByteHrs',
  'DataTransfer-Out-Bytes',
];
const GCP_SKUS = [
  'CP-COMPUTEENGINE-VMIMAGE-N2-STANDARD-4',
  'BQ-ANALYSIS-BYTES',
  'GCS-STANDARD-STORAGE',
];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const nextMonth = (month: string): string => {
  const [year, m] = month.split('-').map(Number);
  return m === 12 ? `${year + 1}-01` : `${year}-${pad(m + 1)}`;
};
const previousMonth = (month: string): string => {
  const [year, m] = month.split('-').map(Number);
  return m === 1 ? `${year - 1}-12` : `${year}-${pad(m - 1)}`;
};
const hourOf = (month: string, index: number): { start: string; end: string } => {
  const day = 1 + (index % 27);
  const hour = Math.floor(index / 27) % 24;
  const start = `${month}-${pad(day)}T${pad(hour)}:00:00Z`;
  const end =
    hour === 23
      ? `${month}-${pad(day + 1)}T00:00:00Z`
      : `${month}-${pad(day)}T${pad(hour + 1)}:00:00Z`;
  return { start, end };
};

/**
 * The same decimal in another spelling: trailing zeros, an exponent, a JSON number, or as is. A JSON
 * number is used only when its shortest text is exactly the decimal, as a real producer's would be.
 */
const respell = (rng: Rng, amount: string): string | number => {
  const choice = rng.int(0, 3);
  if (choice === 0) return amount.includes('.') ? `${amount}00` : `${amount}.0`;
  if (choice === 1 && String(Number(amount)) === amount) return Number(amount);
  if (choice === 2) return `${amount}e0`;
  return amount;
};

/** The same JSON object with its keys in another order. */
const reorder = (rng: Rng, object: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(rng.shuffle(Object.entries(object)));

/**
 * An SNS notification envelope around a message, published as the message itself. Under raw message
 * delivery that is just a body: poison, never unwrapped (its attributes must not stand in for the real ones).
 */
const snsWrap = (rng: Rng, message: string, attributes: Record<string, string> = {}): string =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: rng.uuid(),
    TopicArn: 'arn:aws:sns:us-east-1:111122223333:upstream-forwarder',
    Message: message,
    Timestamp: `2026-12-0${rng.int(1, 9)}T0${rng.int(0, 9)}:00:00.000Z`,
    SignatureVersion: '1',
    Signature: 'EXAMPLE',
    MessageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [name, { Type: 'String', Value: value }]),
    ),
  });

interface Rendered {
  message: string;
  attributes?: Record<string, string>;
}

interface LogicalCharge {
  identity: string;
  effect: ChargeEffect;
  /** Renders one publish of this charge; `variant` > 0 are duplicates (other spellings, same content). */
  render: (variant: number) => Rendered;
}

interface Placed {
  position: number;
  message: SampleMessage;
}

export const generateSample = (options: SampleOptions): Sample => {
  const rng = new Rng(options.seed);
  const perAccountMonth = options.chargesPerAccountMonth ?? 60;
  const placed: Placed[] = [];
  const charges = new Map<string, ChargeEffect>();
  const conflicts: ConflictPair[] = [];
  const deadLetters: Record<Topic, number> = { 'cost-events': 0, 'budget-alerts': 0 };
  const notificationKeys = new Set<string>();
  let resourceCounter = 0;

  const place = (message: SampleMessage, position = rng.next()) => {
    placed.push({ position, message });
    return position;
  };

  /** One logical charge: its first publish plus duplicates (publisher retries and replays). */
  const publishCharge = (charge: LogicalCharge, note: string): number => {
    charges.set(charge.identity, charge.effect);
    const first = place({ topic: 'cost-events', ...charge.render(0), note });
    if (rng.chance(0.35)) {
      for (let copy = 1; copy <= rng.int(1, 2); copy++) {
        const replay = rng.chance(0.5);
        place(
          {
            topic: 'cost-events',
            ...charge.render(copy),
            ...(replay ? { deduplicationId: `replay-${rng.uuid()}` } : {}),
            note: `${note} (${replay ? 'replay' : 'publisher retry'})`,
          },
          first + (1 - first) * rng.next(),
        );
      }
    }
    return first;
  };

  const amountText = (min: number, max: number, digits: number): string =>
    formatDecimal(new Big(min + rng.next() * (max - min)).round(digits, Big.roundHalfEven));

  const focusRow = (
    spec: TenantSpec,
    provider: 'AWS' | 'Google Cloud',
    accountId: string,
    billingAccountId: string,
    month: string,
    index: number,
    kind: 'usage' | 'credit' | 'correction',
  ): LogicalCharge => {
    const amount =
      kind === 'credit'
        ? `-${amountText(1, 40, 4)}`
        : kind === 'correction'
          ? amountText(0.01, 5, 6)
          : amountText(0.001, 250, 6);
    const chargeMonth = kind === 'correction' ? previousMonth(month) : month;
    const { start, end } = hourOf(chargeMonth, index);
    const sku = rng.pick(provider === 'AWS' ? AWS_SKUS : GCP_SKUS);
    const resource = `res-${++resourceCounter}`;
    const base: Record<string, unknown> = {
      ProviderName: provider,
      BillingAccountId: billingAccountId,
      SubAccountId: accountId,
      SubAccountName: `${spec.tenant}-${accountId.slice(-4)}`,
      InvoiceId: provider === 'AWS' ? `INV-${month}-${spec.tenant}` : '',
      BillingPeriodStart: `${month}-01T00:00:00Z`,
      BillingPeriodEnd: `${nextMonth(month)}-01T00:00:00Z`,
      ChargePeriodStart: start,
      ChargePeriodEnd: end,
      ChargeCategory: kind === 'credit' ? 'Credit' : 'Usage',
      ChargeClass: kind === 'correction' ? 'Correction' : '',
      ChargeDescription: `${sku} ${kind}`,
      BilledCost: amount,
      EffectiveCost: amount,
      ListCost: amount,
      BillingCurrency: spec.currency,
      ConsumedQuantity: kind === 'usage' ? String(rng.int(1, 24)) : '',
      ConsumedUnit: kind === 'usage' ? 'Hours' : '',
      ServiceName: provider === 'AWS' ? 'AmazonEC2' : 'Compute Engine',
      SkuId: sku,
      SkuPriceId: `SPRICE-${resource}`,
      ResourceId: `${provider === 'AWS' ? 'arn:aws:ec2:eu-west-1' : 'projects'}:${accountId}:${resource}`,
      RegionId: provider === 'AWS' ? 'eu-west-1' : 'europe-west1',
      Tags: JSON.stringify({ team: rng.pick(['payments', 'data', 'web']), env: 'prod' }),
      x_ExportDateTime: `${nextMonth(month)}-02T02:10:00Z`,
    };
    return {
      identity: `focus:${resource}`,
      effect: { tenant: spec.tenant, accountId, period: month, currency: spec.currency, amount },
      render: (variant) => {
        const row =
          variant === 0
            ? base
            : reorder(rng, {
                ...base,
                BilledCost: respell(rng, amount),
                EffectiveCost: respell(rng, amount),
                x_ExportDateTime: `${nextMonth(month)}-0${rng.int(3, 9)}T0${rng.int(0, 9)}:00:00Z`,
              });
        const text = JSON.stringify(row);
        const attributes = { tenant: spec.tenant };
        return variant > 0 && rng.chance(0.5)
          ? { message: JSON.stringify(row, null, 2), attributes }
          : { message: text, attributes };
      },
    };
  };

  const canonicalEvent = (
    spec: TenantSpec,
    accountId: string,
    month: string,
    index: number,
  ): LogicalCharge => {
    const amount = amountText(0.01, 120, 4);
    const { start, end } = hourOf(month, index);
    const eventId = `evt-${rng.uuid()}`;
    const base = {
      tenant: spec.tenant,
      source: 'aws',
      eventId,
      accountId,
      chargePeriodStart: start,
      chargePeriodEnd: end,
      chargeCategory: 'usage',
      service: 'AmazonS3',
      skuId: rng.pick(AWS_SKUS),
      resourceId: `bucket-${++resourceCounter}`,
      amount,
      currency: spec.currency,
    };
    return {
      identity: `event:${spec.tenant}:${accountId}:${eventId}`,
      effect: { tenant: spec.tenant, accountId, period: month, currency: spec.currency, amount },
      render: (variant) => {
        if (variant === 0) return { message: JSON.stringify(base) };
        const copy = reorder(rng, {
          ...base,
          amount: respell(rng, amount),
          currency: spec.currency.toLowerCase(),
          chargeCategory: 'Usage',
          chargePeriodStart: start.replace('Z', '.000Z'),
        });
        return { message: JSON.stringify(copy, null, rng.chance(0.5) ? 2 : undefined) };
      },
    };
  };

  const lineItem = (spec: TenantSpec, accountId: string, month: string, index: number) => {
    const { start } = hourOf(month, index);
    const lineItemId = `li-${rng.uuid().slice(0, 13)}-${start.slice(0, 13)}`;
    const versions = rng.int(1, 3);
    const amounts = Array.from({ length: versions }, () => amountText(0.001, 60, 6));
    const render = (version: number) => {
      const event = {
        tenant: spec.tenant,
        source: 'aws',
        lineItemId,
        version,
        accountId,
        chargePeriodStart: start,
        chargeCategory: 'usage',
        service: 'AmazonEC2',
        skuId: rng.pick(AWS_SKUS),
        amount: respell(rng, amounts[version - 1]),
        currency: spec.currency,
      };
      return JSON.stringify(version === 1 ? event : reorder(rng, event));
    };
    charges.set(`line:${spec.tenant}:${accountId}:${lineItemId}`, {
      tenant: spec.tenant,
      accountId,
      period: month,
      currency: spec.currency,
      amount: amounts[versions - 1],
    });
    // Versions land in random order: an older version after a newer one is `superseded`.
    for (let version = 1; version <= versions; version++) {
      const text = render(version);
      place({ topic: 'cost-events', message: text, note: `restatement v${version}/${versions}` });
      if (rng.chance(0.15))
        place({
          topic: 'cost-events',
          message: text,
          deduplicationId: `replay-${rng.uuid()}`,
          note: `restatement v${version} (replay)`,
        });
    }
  };

  const snakeCase = (
    tenant: string | undefined,
    billingAccount: string,
    project: string | undefined,
    month: string,
    index: number,
    currency: string,
  ): LogicalCharge => {
    const amount = amountText(0.0001, 80, 6);
    const { start, end } = hourOf(month, index);
    const costType = rng.pick(['regular', 'regular', 'regular', 'tax', 'adjustment']);
    const base: Record<string, unknown> = {
      account_id: billingAccount,
      ...(project ? { project_id: project } : {}),
      sku_id: rng.pick(GCP_SKUS),
      usage_start_time: start,
      usage_end_time: end,
      cost_type: costType,
      resource_id: `vm-${++resourceCounter}`,
      amount,
      currency,
      message_id: String(rng.int(1e9, 9e9)),
      publish_time: `${nextMonth(month)}-01T03:00:00.000Z`,
    };
    const attributes: Record<string, string> = tenant ? { tenant, source: 'gcp' } : {};
    return {
      identity: `snake:${base.resource_id}`,
      effect: {
        tenant: tenant ?? 'default',
        accountId: project ?? billingAccount,
        period: month,
        currency,
        amount,
      },
      render: (variant) => {
        const row =
          variant === 0
            ? base
            : reorder(rng, {
                ...base,
                amount: respell(rng, amount),
                message_id: String(rng.int(1e9, 9e9)),
                publish_time: `${nextMonth(month)}-01T0${rng.int(4, 9)}:00:00.000Z`,
              });
        return { message: JSON.stringify(row), ...(tenant ? { attributes } : {}) };
      },
    };
  };

  // ---------------- cost events
  for (const spec of TENANTS) {
    for (const month of MONTHS) {
      for (const account of spec.awsAccounts) {
        for (let i = 0; i < perAccountMonth; i++) {
          const roll = rng.next();
          if (roll < 0.4)
            publishCharge(
              focusRow(spec, 'AWS', account, '100000000001', month, i, 'usage'),
              'FOCUS AWS row',
            );
          else if (roll < 0.45)
            publishCharge(
              focusRow(spec, 'AWS', account, '100000000001', month, i, 'credit'),
              'FOCUS credit',
            );
          else if (roll < 0.5 && month === MONTHS[1])
            publishCharge(
              focusRow(spec, 'AWS', account, '100000000001', month, i, 'correction'),
              'FOCUS correction (late, earlier charge period)',
            );
          else if (roll < 0.75)
            publishCharge(canonicalEvent(spec, account, month, i), 'canonical event');
          else lineItem(spec, account, month, i);
        }
      }
      for (const project of spec.gcpProjects) {
        for (let i = 0; i < perAccountMonth; i++) {
          if (rng.chance(0.5))
            publishCharge(
              focusRow(
                spec,
                'Google Cloud',
                project,
                spec.gcpBillingAccount,
                month,
                i,
                rng.chance(0.1) ? 'credit' : 'usage',
              ),
              'FOCUS GCP row',
            );
          else
            publishCharge(
              snakeCase(spec.tenant, spec.gcpBillingAccount, project, month, i, spec.currency),
              'snake_case event',
            );
        }
      }
    }
  }
  for (const month of MONTHS)
    for (let i = 0; i < Math.ceil(perAccountMonth / 3); i++)
      publishCharge(
        snakeCase(undefined, LEGACY_ACCOUNT, undefined, month, i, 'USD'),
        'snake_case event, no tenant (default)',
      );

  // eventId conflicts: the same eventId again with another amount, later in the same message group.
  for (const spec of TENANTS) {
    const account = spec.awsAccounts[0];
    const original = canonicalEvent(spec, account, MONTHS[1], 500 + conflicts.length);
    // No duplicates of these two: the truth allows exactly one of them in the DLQ.
    charges.set(original.identity, original.effect);
    const text = original.render(0).message;
    const position = place({
      topic: 'cost-events',
      message: text,
      note: 'canonical event (conflict original)',
    });
    const changedAmount = formatDecimal(new Big(original.effect.amount).plus('1.5'));
    const conflicting = JSON.stringify({ ...JSON.parse(text), amount: changedAmount });
    place(
      { topic: 'cost-events', message: conflicting, note: 'canonical event (conflicting copy)' },
      position + (1 - position) * rng.next(),
    );
    conflicts.push({
      first: { message: text, effect: original.effect },
      second: { message: conflicting, effect: { ...original.effect, amount: changedAmount } },
    });
    deadLetters['cost-events']++;
  }

  // Poison: never retried, never dropped; each lands in the DLQ once with its reason.
  const costPoison: Rendered[] = [
    { message: 'not json at all {' },
    { message: '[1, 2, 3]' },
    { message: JSON.stringify({ hello: 'world' }) },
    {
      message: JSON.stringify({
        ProviderName: 'AWS',
        SubAccountId: '200000000011',
        ChargePeriodStart: '2026-11-03T00:00:00Z',
        ChargeCategory: 'Usage',
        BillingCurrency: 'USD',
      }),
      attributes: { tenant: 'acme' },
    },
    {
      message: JSON.stringify({
        tenant: 'globex',
        source: 'aws',
        accountId: '300000000021',
        chargePeriodStart: '2026-11-04T00:00:00Z',
        chargeCategory: 'usage',
        amount: 'twelve',
        currency: 'EUR',
      }),
    },
    {
      message: JSON.stringify({
        tenant: 'acme',
        source: 'aws',
        accountId: '200000000012',
        chargePeriodStart: '2026-10-04T00:00:00Z',
        chargeCategory: 'usage',
        amount: '1.0000000000000000001',
        currency: 'USD',
      }),
    },
    {
      message: JSON.stringify({
        account_id: 'billing-1',
        sku_id: 'X',
        usage_start_time: '2026-11-02T10:00:00Z',
        cost_type: 'bogus',
        amount: 1,
        currency: 'USD',
      }),
      attributes: { tenant: 'initech' },
    },
    {
      message: JSON.stringify({
        tenant: 'acme',
        source: 'aws',
        accountId: '200000000011',
        chargePeriodStart: '2026-11-05T00:00:00Z',
        chargeCategory: 'usage',
        amount: '3',
        currency: 'DOLLARS',
      }),
    },
  ];
  costPoison.push({
    // A body shaped like an SNS envelope claiming another tenant: never booked to globex (nor to acme).
    message: snsWrap(
      rng,
      JSON.stringify({
        source: 'aws',
        accountId: '300000000021',
        chargePeriodStart: '2026-11-06T00:00:00Z',
        chargeCategory: 'usage',
        amount: '5',
        currency: 'EUR',
      }),
      { tenant: 'globex' },
    ),
    attributes: { tenant: 'acme' },
  });
  for (const poison of costPoison) {
    place({ topic: 'cost-events', ...poison, note: 'poison' });
    deadLetters['cost-events']++;
  }

  // ---------------- hidden-state cases: what only exact keys and exact decimals get right
  const event = (fields: Record<string, unknown>) =>
    JSON.stringify({
      tenant: 'acme',
      source: 'aws',
      chargePeriodStart: '2026-11-07T00:00:00Z',
      chargeCategory: 'usage',
      currency: 'USD',
      ...fields,
    });
  /** Consecutive positions: published within moments of each other, in this order. */
  const sequence = (messages: SampleMessage[]) => {
    const start = rng.next() * 0.9;
    messages.forEach((message, index) => place(message, start + index * 1e-9));
  };
  const book = (identity: string, effect: Omit<ChargeEffect, 'period'>) =>
    charges.set(identity, { period: '2026-11', ...effect });

  // A line item restated back to its first content (v1 = 10, v2 = 20, v3 = 10): v3 is not a copy of v1.
  const restatedBack = (version: number, amount: string) =>
    event({ lineItemId: 'li-restated-back', version, accountId: '200000000011', amount });
  sequence([
    { topic: 'cost-events', message: restatedBack(1, '10'), note: 'restated back v1 = 10' },
    { topic: 'cost-events', message: restatedBack(2, '20'), note: 'restated back v2 = 20' },
    { topic: 'cost-events', message: restatedBack(3, '10'), note: 'restated back v3 = 10' },
  ]);
  book('hidden:restated-back', {
    tenant: 'acme',
    accountId: '200000000011',
    currency: 'USD',
    amount: '10',
  });

  // One invoice id spelled in NFC and in NFD (a replay with its own dedup id): one charge.
  const invoice = 'inv-Müller-Café-0042';
  const invoiceCharge = (eventId: string) =>
    event({ eventId, accountId: '200000000012', resourceId: 'invoice-0042', amount: '42.5' });
  place({
    topic: 'cost-events',
    message: invoiceCharge(invoice.normalize('NFC')),
    note: 'invoice id in NFC',
  });
  place({
    topic: 'cost-events',
    message: invoiceCharge(invoice.normalize('NFD')),
    deduplicationId: `replay-${rng.uuid()}`,
    note: 'the same invoice id in NFD',
  });
  book('hidden:unicode-invoice', {
    tenant: 'acme',
    accountId: '200000000012',
    currency: 'USD',
    amount: '42.5',
  });

  // An account id with a zero-width space looks like a real one: rejected, never a second account.
  place({
    topic: 'cost-events',
    message: event({ eventId: 'evt-zero-width', accountId: '200000000011\u200b', amount: '7' }),
    note: 'poison: account id with U+200B',
  });
  deadLetters['cost-events']++;

  // A JSON number with more digits than a double holds: booked exactly as written.
  const longNumber = '123.4567890123456789';
  place({
    topic: 'cost-events',
    message: event({
      eventId: 'evt-long-number',
      accountId: '200000000012',
      amount: '__AMOUNT__',
    }).replace('"__AMOUNT__"', longNumber),
    note: 'JSON number amount with 19 significant digits',
  });
  book('hidden:long-number', {
    tenant: 'acme',
    accountId: '200000000012',
    currency: 'USD',
    amount: longNumber,
  });

  // A free-form account id (a space, non-ASCII letters): booked normally under a derived FIFO group.
  place({
    topic: 'cost-events',
    message: event({
      tenant: 'initech',
      eventId: 'evt-free-form',
      accountId: 'Compte Général 7',
      amount: '8.75',
    }),
    note: 'account id with a space and non-ASCII letters',
  });
  book('hidden:free-form-account', {
    tenant: 'initech',
    accountId: 'Compte Général 7',
    currency: 'USD',
    amount: '8.75',
  });

  // 38 nines cannot be a charge (no total could hold it): rejected with its reason, and the next
  // charge of the same ledger partition is still applied.
  sequence([
    {
      topic: 'cost-events',
      message: event({
        eventId: 'evt-38-nines',
        accountId: '200000000019',
        amount: '9'.repeat(38),
      }),
      note: 'poison: amount of 38 nines',
    },
    {
      topic: 'cost-events',
      message: event({ eventId: 'evt-after-nines', accountId: '200000000019', amount: '19.99' }),
      note: 'charge after the 38 nines, same partition',
    },
  ]);
  deadLetters['cost-events']++;
  book('hidden:after-nines', {
    tenant: 'acme',
    accountId: '200000000019',
    currency: 'USD',
    amount: '19.99',
  });

  // ---------------- alerts
  const alertOnce = (renders: Rendered[], note: string) => {
    const [first] = renders;
    const { key } = parseAlert({
      messageId: 'ground-truth',
      body: first.message,
      messageAttributes: Object.fromEntries(
        Object.entries(first.attributes ?? {}).map(([name, value]) => [
          name,
          { stringValue: value, dataType: 'String' },
        ]),
      ),
    });
    notificationKeys.add(key);
    for (const render of renders) place({ topic: 'budget-alerts', ...render, note });
  };

  for (const spec of TENANTS) {
    for (const month of MONTHS) {
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
      let cost = budgetAmount * 0.2;
      const rise = () => Number((cost += budgetAmount * (0.02 + rng.next() * 0.05)).toFixed(2));
      for (let update = 0; update < 4; update++)
        place({
          topic: 'budget-alerts',
          ...gcp({ costAmount: rise() }),
          note: 'GCP budget periodic update',
        });
      for (const threshold of [0.5, 0.9, 1]) {
        cost = Math.max(cost, budgetAmount * threshold);
        alertOnce(
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
        Array.from({ length: rng.int(1, 3) }, () =>
          gcp({ forecastThresholdExceeded: 1, costAmount: rise() }),
        ),
        'GCP budget forecast',
      );

      for (const account of spec.awsAccounts) {
        const [year, m] = month.split('-').map(Number);
        const budgeted = 10_000 + rng.int(0, 10) * 1000;
        const money = (value: number) =>
          `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
        const text = (type: 'ACTUAL' | 'FORECASTED', day: number, spend: number) =>
          [
            `AWS Budget Notification ${MONTH_NAMES[m - 1]} ${day}, ${year}`,
            `AWS Account ${account}`,
            '',
            'Dear AWS Customer,',
            '',
            `You requested that we alert you when the ${type} Cost associated with your ${spec.tenant}-${account.slice(-4)}-monthly budget is greater than ${money(budgeted * 0.8)} for the current month. The ${type} Cost associated with this budget is ${money(spend)}. You can find additional details below and by accessing the AWS Budgets dashboard [1].`,
            '',
            `Budget Name: ${spec.tenant}-${account.slice(-4)}-monthly`,
            'Budget Type: Cost',
            `Budgeted Amount: ${money(budgeted)}`,
            `Alert Type: ${type}`,
            `Alert Threshold: > ${money(budgeted * 0.8)}`,
            `${type} Amount: ${money(spend)}`,
            '',
            '[1] https://console.aws.amazon.com/billing/home#/budgets',
            '',
          ].join('\n');
        for (const type of ['ACTUAL', 'FORECASTED'] as const) {
          alertOnce(
            Array.from({ length: rng.int(1, 3) }, (_, copy) => {
              const body = text(
                type,
                20 + copy,
                budgeted * (0.8 + copy * 0.03 + rng.next() * 0.02),
              );
              return { message: body, attributes: { tenant: spec.tenant } };
            }),
            `AWS Budgets ${type}`,
          );
        }
      }
    }
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
        Array.from({ length: rng.int(1, 3) }, (_, copy) => anomaly(300 + n * 50 + copy * 40)),
        'cost anomaly (updated impact re-sent)',
      );
    }
  }
  const alertPoison: Rendered[] = [
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
  ];
  for (const poison of alertPoison) {
    place({ topic: 'budget-alerts', ...poison, note: 'poison' });
    deadLetters['budget-alerts']++;
  }

  return {
    messages: placed.sort((a, b) => a.position - b.position).map((entry) => entry.message),
    truth: {
      ledger: ledgerOf([...charges.values()]),
      notificationKeys: [...notificationKeys].sort(),
      deadLetters,
      conflicts,
    },
  };
};

/** Expected ledger totals from charge effects: exact sums per tenant, account, period and currency. */
export const ledgerOf = (effects: ChargeEffect[]): LedgerTotal[] => {
  const totals = new Map<string, { effect: ChargeEffect; total: Big; charges: number }>();
  for (const effect of effects) {
    const key = `${effect.tenant}|${effect.accountId}|${effect.period}|${effect.currency}`;
    const entry = totals.get(key) ?? { effect, total: new Big(0), charges: 0 };
    entry.total = entry.total.plus(effect.amount);
    entry.charges++;
    totals.set(key, entry);
  }
  return [...totals.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { effect, total, charges }]) => ({
      tenant: effect.tenant,
      accountId: effect.accountId,
      period: effect.period,
      currency: effect.currency,
      total: formatDecimal(total),
      charges,
    }));
};
