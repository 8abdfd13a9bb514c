import fc from 'fast-check';
import type { DeliveryMode } from '../../contract/environment';
import { decodeRecord } from '../../lambda/core/envelope';
import { parseCostEvent } from '../../lambda/core/formats';
import {
  alertKey,
  costContentHash,
  costIdentity,
  fifoGroupId,
  fifoPublishIds,
  isValidFifoId,
} from '../../lambda/core/keys';
import { parseAlertEvent } from '../../lambda/core/formats';
import { snsEnvelope } from '../support/sqs-events';

const hashOf = (body: string, mode: DeliveryMode = 'raw') =>
  costContentHash(parseCostEvent(decodeRecord({ body }, mode)).event);

const shuffle = <T>(items: T[], seed: number): T[] => {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
};
const reorder = (value: Record<string, unknown>, seed: number) =>
  Object.fromEntries(shuffle(Object.entries(value), seed));

const slug = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
const id = fc.stringMatching(/^[A-Za-z0-9:._-]{1,24}$/);
const amountParts = fc.tuple(
  fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
  fc.integer({ min: 0, max: 10 }),
);
const formatAmount = ([units, scale]: [bigint, number]): string => {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale ? '.' + digits.slice(-scale) : ''}`;
};
const instant = fc
  .date({
    min: new Date('2020-01-01T00:00:00Z'),
    max: new Date('2030-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((date) =>
    new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  );

const canonicalEvent = fc.record({
  tenant: slug,
  source: fc.constantFrom('aws', 'gcp', 'azure'),
  accountId: id,
  chargePeriodStart: instant,
  chargeCategory: fc.constantFrom('usage', 'tax', 'credit', 'purchase', 'adjustment'),
  skuId: id,
  service: id,
  amount: amountParts.map(formatAmount),
  currency: fc.constantFrom('USD', 'EUR', 'JPY'),
  tags: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/), {
    maxKeys: 3,
  }),
});

describe('content hash (property tests)', () => {
  it('ignores key order, whitespace, number formatting and SNS wrapping', () => {
    fc.assert(
      fc.property(canonicalEvent, fc.integer(), (event, seed) => {
        const reference = hashOf(JSON.stringify(event));
        const withTrailingZeros = event.amount.includes('.')
          ? `${event.amount}000`
          : `${event.amount}.000`;
        expect(hashOf(JSON.stringify(reorder(event, seed), null, 2))).toBe(reference);
        expect(hashOf(JSON.stringify({ ...event, amount: withTrailingZeros }))).toBe(reference);
        expect(hashOf(JSON.stringify({ ...event, amount: `${event.amount}e0` }))).toBe(reference);
        expect(hashOf(snsEnvelope(reorder(event, seed + 1)), 'envelope')).toBe(reference);
        expect(hashOf(JSON.stringify({ ...event, currency: event.currency.toLowerCase() }))).toBe(
          reference,
        );
      }),
    );
  });

  it('12.30, 12.3, "12.3" and 1.23e1 are one amount', () => {
    const base = {
      tenant: 'acme',
      source: 'aws',
      accountId: '1',
      chargePeriodStart: '2026-11-01T00:00:00Z',
      chargeCategory: 'usage',
    };
    const bodies = ['"12.30"', '12.3', '"12.3"', '1.23e1', '12.300000'].map(
      (amount) => `{"amount": ${amount}, "currency": "USD", ${JSON.stringify(base).slice(1)}`,
    );
    expect(new Set(bodies.map((body) => hashOf(body))).size).toBe(1);
  });

  it('ignores a new MessageId, publish time and the version', () => {
    fc.assert(
      fc.property(canonicalEvent, fc.integer({ min: 1, max: 1000 }), (event, version) => {
        const reference = hashOf(JSON.stringify(event));
        expect(hashOf(snsEnvelope(event), 'envelope')).toBe(reference);
        expect(hashOf(JSON.stringify({ ...event, lineItemId: 'li', version }))).toBe(
          hashOf(JSON.stringify({ ...event, lineItemId: 'li', version: version + 1 })),
        );
      }),
    );
    const snake = {
      account_id: 'a',
      sku_id: 's',
      usage_start_time: '2026-11-02T10:00:00Z',
      cost_type: 'regular',
      amount: 0.19,
      currency: 'EUR',
    };
    expect(
      hashOf(JSON.stringify({ ...snake, message_id: '1', publish_time: '2026-11-02T11:00:00Z' })),
    ).toBe(
      hashOf(JSON.stringify({ ...snake, message_id: '2', publish_time: '2026-11-03T11:00:00Z' })),
    );
  });

  it('changes when any business field changes', () => {
    const changes: [string, (value: unknown) => unknown][] = [
      ['accountId', (value) => `${value}x`],
      ['skuId', (value) => `${value}x`],
      ['service', (value) => `${value}x`],
      ['amount', (value) => formatAmount([BigInt(String(value).replace(/[.-]/g, '')) + 1n, 0])],
      ['currency', (value) => (value === 'USD' ? 'EUR' : 'USD')],
      ['chargePeriodStart', () => '2031-01-01T00:00:00Z'],
      ['chargeCategory', (value) => (value === 'usage' ? 'tax' : 'usage')],
      ['tenant', (value) => `${value}x`],
      ['source', (value) => (value === 'aws' ? 'gcp' : 'aws')],
      ['tags', (value) => ({ ...(value as object), zzextra: 'v' })],
    ];
    fc.assert(
      fc.property(canonicalEvent, fc.constantFrom(...changes), (event, [field, change]) => {
        const changed = { ...event, [field]: change(event[field as keyof typeof event]) };
        fc.pre(JSON.stringify(changed) !== JSON.stringify(event));
        expect(hashOf(JSON.stringify(changed))).not.toBe(hashOf(JSON.stringify(event)));
      }),
    );
  });

  it('scopes identities by tenant: the same eventId in two tenants is two charges', () => {
    const body = (tenant: string) =>
      parseCostEvent(
        decodeRecord({
          body: JSON.stringify({
            tenant,
            source: 'aws',
            eventId: 'e-1',
            accountId: '1',
            chargePeriodStart: '2026-11-01T00:00:00Z',
            chargeCategory: 'usage',
            amount: '1',
            currency: 'USD',
          }),
        }),
      ).event;
    const [a, b] = [body('acme'), body('globex')];
    expect(costIdentity(a, costContentHash(a)).digest).not.toBe(
      costIdentity(b, costContentHash(b)).digest,
    );
  });

  it('publishers group FIFO messages by tenant and account', () => {
    const event = parseCostEvent(
      decodeRecord({
        body: JSON.stringify({
          tenant: 'acme',
          source: 'aws',
          accountId: '42',
          chargePeriodStart: '2026-11-01T00:00:00Z',
          chargeCategory: 'usage',
          amount: '1',
          currency: 'USD',
        }),
      }),
    ).event;
    expect(fifoPublishIds(event).messageGroupId).toBe('acme#42');
    expect(fifoPublishIds(event).messageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('FIFO deduplication id', () => {
  const eventOf = (fields: Record<string, unknown>) =>
    parseCostEvent(
      decodeRecord({
        body: JSON.stringify({
          tenant: 'acme',
          source: 'aws',
          accountId: '42',
          chargePeriodStart: '2026-11-01T00:00:00Z',
          chargeCategory: 'usage',
          currency: 'USD',
          ...fields,
        }),
      }),
    ).event;
  const dedupIdOf = (fields: Record<string, unknown>) =>
    fifoPublishIds(eventOf(fields)).messageDeduplicationId;

  it('a line item restated back to earlier content (v1 = 10, v2 = 20, v3 = 10) is three deliveries', () => {
    const v1 = dedupIdOf({ lineItemId: 'li-1', version: 1, amount: '10' });
    const v2 = dedupIdOf({ lineItemId: 'li-1', version: 2, amount: '20' });
    const v3 = dedupIdOf({ lineItemId: 'li-1', version: 3, amount: '10' });
    expect(new Set([v1, v2, v3]).size).toBe(3);
  });

  it('the same delivery, however it is spelled, keeps its id (a publisher retry is dropped)', () => {
    const fields = { lineItemId: 'li-1', version: 2, amount: '10' };
    expect(dedupIdOf({ ...fields, amount: 10.0, currency: 'usd' })).toBe(dedupIdOf(fields));
  });

  it('differs for another identity with the same content, and for other content', () => {
    const reference = dedupIdOf({ eventId: 'e-1', amount: '10' });
    expect(dedupIdOf({ eventId: 'e-2', amount: '10' })).not.toBe(reference);
    expect(dedupIdOf({ eventId: 'e-1', amount: '11' })).not.toBe(reference);
    expect(dedupIdOf({ eventId: 'e-1', amount: '10', accountId: '43' })).not.toBe(reference);
  });

  it('is always a valid FIFO id', () => {
    fc.assert(
      fc.property(canonicalEvent, fc.integer({ min: 1, max: 10_000 }), (event, version) => {
        const id = dedupIdOf({ ...event, lineItemId: 'li', version });
        expect(isValidFifoId(id)).toBe(true);
      }),
    );
  });
});

describe('FIFO group id', () => {
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.stringMatching(/^[A-Za-z0-9:._#=-]{0,140}$/),
  );

  it('keeps tenant#account readable when that is a valid group id', () => {
    expect(fifoGroupId('acme', '200000000011')).toBe('acme#200000000011');
    expect(fifoGroupId('acme', 'billing-0A1B2C-3D4E5F')).toBe('acme#billing-0A1B2C-3D4E5F');
  });

  it('hashes an account id SQS would refuse: spaces, non-ASCII, too long', () => {
    for (const account of ['Konto Müller', 'acct 42', 'ünïcode', 'x'.repeat(124)]) {
      const id = fifoGroupId('acme', account);
      expect(isValidFifoId(id)).toBe(true);
      expect(id).toMatch(/^acme#=[A-Za-z0-9_-]{43}$/);
    }
  });

  it('any tenant and account give a valid, stable group id; distinct inputs give distinct ids', () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, (tenant, account, other) => {
        const id = fifoGroupId(tenant, account);
        expect(isValidFifoId(id)).toBe(true);
        expect(id.length).toBeLessThanOrEqual(128);
        expect(fifoGroupId(tenant, account)).toBe(id);
        if (other !== account) expect(fifoGroupId(tenant, other)).not.toBe(id);
        if (other !== tenant) expect(fifoGroupId(other, account)).not.toBe(id);
      }),
      { numRuns: 500 },
    );
  });

  it("an account id that looks like a hashed part cannot take another account's group", () => {
    const hashed = fifoGroupId('acme', 'Konto Müller');
    const lookalike = hashed.slice('acme#'.length);
    expect(fifoGroupId('acme', lookalike)).not.toBe(hashed);
    expect(fifoGroupId('acme', 'x#y')).not.toBe(fifoGroupId('acme#x', 'y'));
  });
});

describe('alert keys', () => {
  const gcp = (data: Record<string, unknown>) =>
    parseAlertEvent(
      decodeRecord({
        body: JSON.stringify({
          budgetDisplayName: 'analytics-monthly',
          alertThresholdExceeded: 0.9,
          costAmount: 4512.37,
          costIntervalStart: '2026-11-01T07:00:00Z',
          budgetAmount: 5000,
          budgetAmountType: 'SPECIFIED_AMOUNT',
          currencyCode: 'USD',
          ...data,
        }),
        messageAttributes: {
          billingAccountId: { stringValue: 'B-1' },
          budgetId: { stringValue: 'bud-1' },
          schemaVersion: { stringValue: '1.0' },
        },
      }),
    );

  it('a re-sent GCP notification with a higher cost keeps its key; another threshold or period does not', () => {
    const reference = alertKey(gcp({}));
    expect(alertKey(gcp({ costAmount: 4800.01 }))).toBe(reference);
    expect(alertKey(gcp({ alertThresholdExceeded: 1.0 }))).not.toBe(reference);
    expect(alertKey(gcp({ costIntervalStart: '2026-12-01T08:00:00Z' }))).not.toBe(reference);
  });
});
