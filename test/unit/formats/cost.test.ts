/** Cost-event formats: normalization variants and rejections. */
import { decodeRecord } from '../../../lambda/core/envelope';
import { costContentHash } from '../../../lambda/core/keys';
import { parseCostEvent } from '../../../lambda/core/formats';
import { fixtureJson, fixtureText, record, rejectionOf } from './helpers';

type Json = Record<string, unknown>;

const canonical = (): Json => fixtureJson('canonical-cost-event.json');
const focusRows = (): Json[] =>
  fixtureText('focus-rows.jsonl')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
const focus = (): Json => focusRows()[0];
const snake = (): Json => fixtureJson('snake-case-event.json');

const parse = (message: unknown, attributes: Record<string, string> = {}) =>
  parseCostEvent(
    record(typeof message === 'string' ? message : JSON.stringify(message), attributes),
  );
const eventOf = (message: unknown, attributes: Record<string, string> = {}) =>
  parse(message, attributes).event;
const without = (object: Json, ...keys: string[]): Json =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

describe('canonical cost events', () => {
  it('restatement normalizes like the event except amount and version', () => {
    const { amount: a1, version: v1, ...event } = eventOf(canonical());
    const {
      amount: a2,
      version: v2,
      ...restatement
    } = eventOf(fixtureJson('canonical-cost-restatement.json'));
    expect(restatement).toStrictEqual(event);
    expect([a1, v1, a2, v2]).toEqual(['0.107', 1, '0.0749', 2]);
  });

  it('numbers as strings or numbers, key order, trailing zeros and instant precision do not matter', () => {
    const base = eventOf(canonical());
    const reordered = Object.fromEntries(Object.entries(canonical()).reverse());
    expect(eventOf(reordered)).toStrictEqual(base);
    expect(
      eventOf({ ...canonical(), amount: 0.107, usageQuantity: '1.000', version: '1' }),
    ).toStrictEqual(base);
    expect(
      eventOf({ ...canonical(), chargePeriodStart: '2026-11-03T15:00:00+01:00' }),
    ).toStrictEqual(base);
    expect(eventOf({ ...canonical(), chargeCategory: ' USAGE ', currency: 'usd' })).toStrictEqual(
      base,
    );
  });

  it('tenant and source fall back to message attributes; tenant to "default"', () => {
    const bare = without(canonical(), 'tenant', 'source');
    expect(eventOf(bare, { source: 'AWS', tenant: 'acme' })).toMatchObject({
      tenant: 'acme',
      source: 'aws',
    });
    expect(eventOf(bare, { source: 'aws' }).tenant).toBe('default');
    expect(rejectionOf(() => parse(bare))).toEqual({ code: 'missing-field', field: 'source' });
  });

  it('rejects a tenant that differs between message and attributes', () => {
    expect(rejectionOf(() => parse(canonical(), { tenant: 'other' }))).toEqual({
      code: 'invalid-field',
      field: 'tenant',
    });
    expect(eventOf(canonical(), { tenant: 'acme' }).tenant).toBe('acme');
  });

  it('a lineItemId without version is version 1; no lineItemId, no version', () => {
    expect(eventOf(without(canonical(), 'version')).version).toBe(1);
    expect(eventOf(without(canonical(), 'version', 'lineItemId'))).not.toHaveProperty('version');
  });

  it('keeps eventId, chargeClass, costType and omits blank optional fields', () => {
    const event = eventOf({
      ...canonical(),
      eventId: ' ev-1 ',
      chargeClass: 'Correction',
      costType: 'TAX',
      region: '',
    });
    expect(event).toMatchObject({ eventId: 'ev-1', chargeClass: 'correction', costType: 'tax' });
    expect(event).not.toHaveProperty('region');
  });

  it.each(['accountId', 'chargePeriodStart', 'chargeCategory', 'amount', 'currency'])(
    'missing %s → missing-field',
    (field) => {
      expect(rejectionOf(() => parse(without(canonical(), field)))).toEqual({
        code: 'missing-field',
        field,
      });
      expect(rejectionOf(() => parse({ ...canonical(), [field]: '  ' }))).toEqual({
        code: 'missing-field',
        field,
      });
    },
  );

  it.each([
    ['amount', 'abc'],
    ['amount', '1e400'],
    ['amount', '0.1234567890123456789'],
    ['amount', '1000000000000000'],
    ['amount', true],
    ['amount', { value: 1 }],
    ['currency', 'US'],
    ['currency', 'U$D'],
    ['chargeCategory', 'fee'],
    ['chargePeriodStart', '2026-13-01T00:00:00Z'],
    ['chargePeriodStart', 1796300000],
    ['version', 0],
    ['version', 1.5],
    ['version', '1.0'],
    ['version', 2 ** 53],
    ['version', '9007199254740993'],
    ['accountId', 200000000011],
    ['accountId', 'x'.repeat(2049)],
    ['tenant', 'acme#corp'],
    ['source', 'a w s'],
    ['tags', ['team']],
    ['tags', { team: { name: 'payments' } }],
    ['tags', '{not json'],
  ])('%s = %j → invalid-field', (field, value) => {
    expect(rejectionOf(() => parse({ ...canonical(), [field]: value })).code).toBe('invalid-field');
  });

  it('rejects a charge period that ends before it starts', () => {
    const message = { ...canonical(), chargePeriodEnd: '2026-11-03T13:00:00Z' };
    expect(rejectionOf(() => parse(message))).toEqual({
      code: 'invalid-field',
      field: 'chargePeriodEnd',
    });
  });

  it('rejects a lone surrogate in a string field', () => {
    // JSON text with an escaped lone surrogate: valid JSON, not well-formed Unicode.
    const body = JSON.stringify(canonical()).replace('"AmazonEC2"', '"Amazon\\ud800EC2"');
    expect(rejectionOf(() => parse(body))).toEqual({ code: 'invalid-field', field: 'service' });
    const tagBody = JSON.stringify(canonical()).replace('"payments"', '"pay\\udc00"');
    expect(rejectionOf(() => parse(tagBody))).toEqual({
      code: 'invalid-field',
      field: 'tags.team',
    });
  });

  it('__proto__ and constructor keys in the message or tags do not pollute Object.prototype', () => {
    const body = JSON.stringify(canonical()).replace(
      '{',
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},',
    );
    const event = eventOf(body);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    const tagged = JSON.stringify({ ...canonical(), tags: {} }).replace(
      '"tags":{}',
      '"tags":{"__proto__":{"polluted":"yes"}}',
    );
    expect(rejectionOf(() => parse(tagged))).toEqual({
      code: 'invalid-field',
      field: 'tags.__proto__',
    });
    const constructorTag = eventOf({ ...canonical(), tags: { constructor: 'x' } });
    expect(constructorTag.tags).toStrictEqual({ constructor: 'x' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('FOCUS rows', () => {
  it('empty strings are absent values', () => {
    const event = eventOf({
      ...focus(),
      SkuPriceId: '',
      ResourceId: '',
      ConsumedQuantity: '',
      Tags: '',
    });
    expect(event).not.toHaveProperty('skuPriceId');
    expect(event).not.toHaveProperty('resourceId');
    expect(event).not.toHaveProperty('usageQuantity');
    expect(event).not.toHaveProperty('tags');
  });

  it('Tags as a JSON string or an object give the same event; {} is no tags', () => {
    expect(eventOf({ ...focus(), Tags: { team: 'payments', env: 'prod' } })).toStrictEqual(
      eventOf(focus()),
    );
    expect(eventOf({ ...focus(), Tags: '{}' })).toStrictEqual(eventOf({ ...focus(), Tags: null }));
  });

  it('export metadata and non-ledger cost columns are not part of the event', () => {
    const base = eventOf(focus());
    const reexport = {
      ...focus(),
      x_ExportDateTime: '2026-11-09T00:00:00Z',
      EffectiveCost: '0.05',
      ListCost: '0.2',
      SubAccountName: 'renamed',
      BillingPeriodEnd: '2026-12-01T00:00:00.000Z',
      x_Anything: 'x',
      SomeFutureColumn: 1,
    };
    expect(eventOf(reexport)).toStrictEqual(base);
    expect(JSON.stringify(base)).not.toMatch(/2026-11-04T02:10/);
  });

  it('numbers as JSON numbers equal numeric strings', () => {
    expect(eventOf({ ...focus(), BilledCost: 0.096, ConsumedQuantity: 1 })).toStrictEqual(
      eventOf(focus()),
    );
  });

  it('accountId falls back to BillingAccountId when SubAccountId is empty', () => {
    expect(eventOf({ ...focus(), SubAccountId: '' }).accountId).toBe('100000000001');
    expect(
      rejectionOf(() => parse({ ...focus(), SubAccountId: '', BillingAccountId: '' })),
    ).toEqual({
      code: 'missing-field',
      field: 'SubAccountId',
    });
  });

  it.each([
    ['AWS', 'aws'],
    ['Amazon Web Services', 'aws'],
    ['Google Cloud', 'gcp'],
    ['GCP', 'gcp'],
    ['Microsoft', 'azure'],
    ['Azure', 'azure'],
    ['Oracle Cloud Infrastructure', 'oracle-cloud-infrastructure'],
  ])('ProviderName %j → source %j, whatever the source attribute says', (name, source) => {
    expect(eventOf({ ...focus(), ProviderName: name }, { source: 'other' }).source).toBe(source);
  });

  it('without ProviderName: ServiceProviderName, else the source attribute, else missing-field', () => {
    expect(eventOf({ ...focus(), ProviderName: '', ServiceProviderName: 'Microsoft' }).source).toBe(
      'azure',
    );
    expect(eventOf(without(focus(), 'ProviderName'), { source: 'snowflake' }).source).toBe(
      'snowflake',
    );
    expect(rejectionOf(() => parse(without(focus(), 'ProviderName')))).toEqual({
      code: 'missing-field',
      field: 'source',
    });
  });

  it('tenant comes from the tenant attribute', () => {
    expect(eventOf(focus(), { tenant: 'acme' }).tenant).toBe('acme');
  });

  it.each(['BilledCost', 'BillingCurrency', 'ChargePeriodStart', 'ChargeCategory'])(
    'missing %s → missing-field',
    (field) => {
      expect(rejectionOf(() => parse(without(focus(), field)))).toEqual({
        code: 'missing-field',
        field,
      });
      expect(rejectionOf(() => parse({ ...focus(), [field]: '' }))).toEqual({
        code: 'missing-field',
        field,
      });
    },
  );

  it.each([
    ['BilledCost', 'abc'],
    ['BilledCost', '1e400'],
    ['BilledCost', 'NaN'],
    ['BilledCost', '0.1234567890123456789'],
    ['BilledCost', '-1e15'],
    ['BilledCost', '1,5'],
    ['ChargeClass', 'Refund'],
    ['ChargeCategory', 'Usage Fee'],
    ['Tags', '[1,2]'],
  ])('%s = %j → invalid-field', (field, value) => {
    expect(rejectionOf(() => parse({ ...focus(), [field]: value }))).toEqual({
      code: 'invalid-field',
      field,
    });
  });

  it('BilledCost NaN: as JSON text it is malformed, as a number it is invalid', () => {
    // JSON cannot carry NaN; a producer bug may still write it into the body.
    const body = JSON.stringify(focus()).replace('"BilledCost":"0.0960000000"', '"BilledCost":NaN');
    expect(rejectionOf(() => parse(body)).code).toBe('malformed-body');
    for (const value of [NaN, Infinity]) {
      const decoded = {
        message: { ...focus(), BilledCost: value },
        attributes: {},
        snsWrapped: false,
      };
      expect(rejectionOf(() => parseCostEvent(decoded))).toEqual({
        code: 'invalid-field',
        field: 'BilledCost',
      });
    }
  });

  it('the correction row keeps chargeClass correction; a credit is negative', () => {
    const rows = focusRows();
    expect(eventOf(rows[4]).chargeClass).toBe('correction');
    expect(eventOf(rows[3])).toMatchObject({ chargeCategory: 'credit', amount: '-25' });
  });
});

describe('snake_case events', () => {
  it('message_id and publish_time are transport metadata', () => {
    const event = eventOf(snake());
    expect(JSON.stringify(event)).not.toMatch(/8123456789012345|11:03:41/);
    expect(eventOf(without(snake(), 'message_id', 'publish_time'))).toStrictEqual(event);
    expect(
      eventOf({ ...snake(), message_id: 'other', publish_time: '2026-11-03T00:00:00Z' }),
    ).toStrictEqual(event);
  });

  it.each([
    ['regular', 'usage'],
    ['tax', 'tax'],
    ['adjustment', 'adjustment'],
    ['rounding_error', 'adjustment'],
    ['ROUNDING_ERROR', 'adjustment'],
  ])('cost_type %s → chargeCategory %s, costType kept', (costType, category) => {
    expect(eventOf({ ...snake(), cost_type: costType })).toMatchObject({
      chargeCategory: category,
      costType: costType.toLowerCase(),
    });
  });

  it('rounding_error and adjustment stay distinct events', () => {
    expect(eventOf({ ...snake(), cost_type: 'rounding_error' })).not.toEqual(
      eventOf({ ...snake(), cost_type: 'adjustment' }),
    );
  });

  it('source and tenant from attributes, else legacy / default', () => {
    expect(eventOf(snake(), { source: 'gcp-export', tenant: 'acme' })).toMatchObject({
      source: 'gcp-export',
      tenant: 'acme',
    });
    expect(eventOf(snake())).toMatchObject({ source: 'legacy', tenant: 'default' });
  });

  it('optional fields; project_id makes the project the account', () => {
    const event = eventOf({
      ...snake(),
      project_id: 'analytics-prod-4411',
      usage_end_time: '2026-11-02T11:00:00Z',
      service: 'Compute Engine',
      usage_amount: '3600',
      usage_unit: 'seconds',
      labels: { team: 'data' },
    });
    expect(event).toMatchObject({
      billingAccountId: 'billing-0A1B2C-3D4E5F',
      accountId: 'analytics-prod-4411',
      chargePeriodEnd: '2026-11-02T11:00:00.000Z',
      service: 'Compute Engine',
      usageQuantity: '3600',
      usageUnit: 'seconds',
      tags: { team: 'data' },
    });
  });

  it.each(['account_id', 'sku_id', 'usage_start_time', 'cost_type', 'amount', 'currency'])(
    'missing %s → missing-field',
    (field) => {
      expect(rejectionOf(() => parse(without(snake(), field)))).toEqual({
        code: 'missing-field',
        field,
      });
    },
  );

  it('unknown cost_type → invalid-field', () => {
    expect(rejectionOf(() => parse({ ...snake(), cost_type: 'discount' }))).toEqual({
      code: 'invalid-field',
      field: 'cost_type',
    });
  });
});

describe('format detection', () => {
  it('reports the detected format', () => {
    expect(parse(canonical()).format).toBe('canonical');
    expect(parse(focus()).format).toBe('focus');
    expect(parse(snake()).format).toBe('snake-case');
  });

  it.each([
    ['plain text', 'hello', 'malformed-body'],
    ['broken JSON', '{"accountId": ', 'malformed-body'],
    ['a JSON array', '[1, 2]', 'unknown-format'],
    ['a bare number (not decoded as JSON)', '42', 'malformed-body'],
    ['a JSON string', '"text"', 'malformed-body'],
    ['an object of no known shape', '{"amount": "1", "currency": "USD"}', 'unknown-format'],
    ['an empty object', '{}', 'unknown-format'],
  ])('%s → %s', (_name, body, code) => {
    expect(rejectionOf(() => parse(body))).toEqual({ code, field: '$' });
  });

  it.each([[42], [null], [true], [[{ accountId: 'x' }]]])(
    'a decoded non-object message %j → unknown-format',
    (message) => {
      const decoded = { message, attributes: {}, snsWrapped: false };
      expect(rejectionOf(() => parseCostEvent(decoded))).toEqual({
        code: 'unknown-format',
        field: '$',
      });
    },
  );

  it('a message with fields of two formats is ambiguous', () => {
    expect(rejectionOf(() => parse({ ...canonical(), BilledCost: '1' }))).toEqual({
      code: 'unknown-format',
      field: '$',
    });
    expect(rejectionOf(() => parse({ ...snake(), accountId: 'x' }))).toEqual({
      code: 'unknown-format',
      field: '$',
    });
  });

  it('inherited members never count as fields', () => {
    expect(rejectionOf(() => parse('{"toString": "x", "constructor": "y"}'))).toEqual({
      code: 'unknown-format',
      field: '$',
    });
  });

  it('an SNS-wrapped cost event with attributes in the envelope', () => {
    const envelope = {
      Type: 'Notification',
      MessageId: 'm-1',
      TopicArn: 'arn:aws:sns:eu-west-1:200000000011:t.fifo',
      Message: JSON.stringify(snake()),
      MessageAttributes: {
        tenant: { Type: 'String', Value: 'acme' },
        source: { Type: 'String', Value: 'gcp' },
      },
    };
    const decoded = decodeRecord({ body: JSON.stringify(envelope) }, 'envelope');
    expect(parseCostEvent(decoded).event).toMatchObject({
      tenant: 'acme',
      source: 'gcp',
      accountId: 'billing-0A1B2C-3D4E5F',
    });
  });
});

describe('FOCUS columns that tell charges apart', () => {
  const row = {
    ProviderName: 'AWS',
    SubAccountId: '1',
    ChargePeriodStart: '2026-11-01T00:00:00Z',
    ChargeCategory: 'Usage',
    BilledCost: '1',
    BillingCurrency: 'USD',
  };
  const hash = (extra: Record<string, string>) =>
    costContentHash(
      parseCostEvent(decodeRecord({ body: JSON.stringify({ ...row, ...extra }) })).event,
    );

  it('keeps PricingCategory, ChargeFrequency and CommitmentDiscountId in the content', () => {
    const reference = hash({});
    expect(hash({ PricingCategory: 'Committed' })).not.toBe(reference);
    expect(hash({ ChargeFrequency: 'Recurring' })).not.toBe(reference);
    expect(hash({ CommitmentDiscountId: 'ri-1' })).not.toBe(reference);
    expect(hash({ PricingCategory: 'committed' })).toBe(hash({ PricingCategory: 'Committed' }));
  });
});
