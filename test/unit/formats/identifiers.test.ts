/** Identifiers and names: one text, one key — whatever Unicode form or invisible character it arrives in. */
import { parseAlertEvent, parseCostEvent } from '../../../lambda/core/formats';
import { normalizeTenant } from '../../../lambda/core/formats/scope';
import {
  optionalTags,
  requiredIdentifier,
  requiredName,
} from '../../../lambda/core/formats/fields';
import { alertKey, costContentHash, costIdentity } from '../../../lambda/core/keys';
import { ledgerPartitionKey } from '../../../lambda/adapters/table-layout';
import { fixtureJson, fixtureText, record, rejection, rejectionOf } from './helpers';

type Json = Record<string, unknown>;

const NFC = 'inv-caf\u00e9';
const NFD = 'inv-cafe\u0301';

const canonical = (): Json => fixtureJson('canonical-cost-event.json');
const focus = (): Json => JSON.parse(fixtureText('focus-rows.jsonl').split('\n')[0]) as Json;
const snake = (): Json => fixtureJson('snake-case-event.json');
const anomaly = (): Json => fixtureJson('aws-cost-anomaly.json');
const gcp = (): { attributes: Json; data: Json } => fixtureJson('gcp-budget-notification.json');
const canonicalAlert = (): Json => ({
  alertKind: 'budget-threshold',
  tenant: 'acme',
  source: 'datadog',
  accountId: '200000000011',
  budgetName: 'prod-monthly',
  period: '2026-11',
  threshold: '0.9',
});

const cost = (message: Json) => parseCostEvent(record(JSON.stringify(message))).event;
const alert = (message: Json) => parseAlertEvent(record(JSON.stringify(message)));
/** Everything that decides where a charge lands and whether it is a copy. */
const chargeKeys = (message: Json) => {
  const event = cost(message);
  const hash = costContentHash(event);
  return { partition: ledgerPartitionKey(event), identity: costIdentity(event, hash), hash };
};

describe('NFC and NFD spellings of one id are one charge, in every cost format', () => {
  it.each([
    ['canonical eventId', (id: string) => ({ ...canonical(), eventId: id })],
    ['canonical lineItemId', (id: string) => ({ ...canonical(), lineItemId: id })],
    [
      'canonical invoiceId (content identity)',
      (id: string) => ({ ...canonical(), lineItemId: undefined, invoiceId: id }),
    ],
    ['canonical accountId', (id: string) => ({ ...canonical(), accountId: id })],
    ['canonical description', (id: string) => ({ ...canonical(), description: id })],
    ['FOCUS InvoiceId', (id: string) => ({ ...focus(), InvoiceId: id })],
    ['FOCUS SubAccountId', (id: string) => ({ ...focus(), SubAccountId: id })],
    ['FOCUS ChargeDescription', (id: string) => ({ ...focus(), ChargeDescription: id })],
    ['snake_case invoice_id', (id: string) => ({ ...snake(), invoice_id: id })],
    ['snake_case account_id', (id: string) => ({ ...snake(), account_id: id })],
    ['tags', (id: string) => ({ ...canonical(), tags: { [id]: id } })],
  ])('%s', (_, withId) => {
    const composed = chargeKeys(withId(NFC));
    expect(chargeKeys(withId(NFD))).toStrictEqual(composed);
    expect(JSON.stringify(cost(withId(NFD)))).toContain(NFC);
  });
});

describe('invisible characters in ids are rejected, naming the field', () => {
  const invisible = [
    ['zero-width space', '\u200b'],
    ['right-to-left mark', '\u200f'],
    ['right-to-left override', '\u202e'],
    ['zero-width joiner', '\u200d'],
    ['soft hyphen', '\u00ad'],
    ['word joiner', '\u2060'],
    ['byte order mark inside', '\ufeff'],
    ['variation selector', '\ufe0f'],
    ['Hangul filler', '\u3164'],
    ['tab', '\t'],
    ['line separator', '\u2028'],
  ] as const;

  it.each(invisible)(
    '%s in accountId of each format → a separate partition never exists',
    (_, char) => {
      const id = `2000${char}00000011`;
      const cases: [Json, string, 'cost' | 'alert'][] = [
        [{ ...canonical(), accountId: id }, 'accountId', 'cost'],
        [{ ...focus(), SubAccountId: id }, 'SubAccountId', 'cost'],
        [{ ...snake(), account_id: id }, 'account_id', 'cost'],
        [{ ...canonicalAlert(), accountId: id }, 'accountId', 'alert'],
        [{ ...anomaly(), accountId: id }, 'accountId', 'alert'],
        [
          { ...gcp(), attributes: { ...gcp().attributes, billingAccountId: id } },
          'billingAccountId',
          'alert',
        ],
      ];
      for (const [message, field, stream] of cases) {
        const error = rejection(() => (stream === 'cost' ? cost(message) : alert(message)));
        expect([error.code, error.field]).toEqual(['invalid-field', field]);
        expect(error.reason).toMatch(/invisible or control character U\+[0-9A-F]{4}/);
      }
    },
  );

  it('ids elsewhere: event, line item, invoice, SKU, resource, budget, anomaly, monitor', () => {
    const zw = 'x\u200by';
    const cases: [() => unknown, string][] = [
      [() => cost({ ...canonical(), eventId: zw }), 'eventId'],
      [() => cost({ ...canonical(), lineItemId: zw }), 'lineItemId'],
      [() => cost({ ...canonical(), skuId: zw }), 'skuId'],
      [() => cost({ ...focus(), InvoiceId: zw }), 'InvoiceId'],
      [() => cost({ ...focus(), ResourceId: zw }), 'ResourceId'],
      [() => cost({ ...snake(), sku_id: zw }), 'sku_id'],
      [() => alert({ ...canonicalAlert(), budgetId: zw }), 'budgetId'],
      [() => alert({ ...anomaly(), anomalyId: zw }), 'anomalyId'],
      [() => alert({ ...anomaly(), monitorArn: zw }), 'monitorArn'],
    ];
    for (const [run, field] of cases) {
      expect(rejectionOf(run)).toEqual({ code: 'invalid-field', field });
    }
  });

  it('an id accepts the ASCII space only; a name keeps any visible space', () => {
    expect(rejection(() => requiredIdentifier('inv\u00a01', 'InvoiceId')).reason).toMatch(
      /U\+00A0/,
    );
    expect(requiredIdentifier('inv 1', 'InvoiceId')).toBe('inv 1');
    expect(requiredName('Prod\u00a0budget', 'budgetName')).toBe('Prod\u00a0budget');
    expect(rejectionOf(() => requiredName('Prod\u200bbudget', 'budgetName'))).toEqual({
      code: 'invalid-field',
      field: 'budgetName',
    });
  });

  it('free text (a description) keeps visible characters and is only normalized', () => {
    expect(
      cost({
        ...canonical(),
        description: 'Persian \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645',
      }).description,
    ).toBe('Persian \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645');
  });
});

describe('budget names and ids in NFC and NFD are one notification', () => {
  it.each([
    ['canonical budgetName', (name: string) => alert({ ...canonicalAlert(), budgetName: name })],
    [
      'canonical budgetId',
      (name: string) => alert({ ...canonicalAlert(), budgetName: undefined, budgetId: name }),
    ],
    [
      'GCP budgetDisplayName (no budgetId)',
      (name: string) =>
        alert({
          attributes: { ...gcp().attributes, budgetId: undefined },
          data: { ...gcp().data, budgetDisplayName: name },
        }),
    ],
    ['anomalyId', (name: string) => alert({ ...anomaly(), anomalyId: name })],
  ])('%s', (_, parse) => {
    expect(alertKey(parse(NFD))).toBe(alertKey(parse(NFC)));
  });

  it('an invisible character in a budget name is rejected, naming the field', () => {
    expect(
      rejectionOf(() => alert({ ...canonicalAlert(), budgetName: 'prod\u200f-monthly' })),
    ).toEqual({
      code: 'invalid-field',
      field: 'budgetName',
    });
    const data = { ...gcp().data, budgetDisplayName: 'analytics\u200b-monthly' };
    expect(rejectionOf(() => alert({ ...gcp(), data }))).toEqual({
      code: 'invalid-field',
      field: 'budgetDisplayName',
    });
  });
});

describe('tenants', () => {
  it('normalizeTenant: trimmed, lower-case slug — what the consumer books', () => {
    expect(normalizeTenant(' ACME ')).toBe('acme');
    expect(normalizeTenant('Acme-EU')).toBe('acme-eu');
    expect(cost({ ...canonical(), tenant: 'ACME' }).tenant).toBe(normalizeTenant('ACME'));
    expect(rejectionOf(() => normalizeTenant(''))).toEqual({
      code: 'missing-field',
      field: 'tenant',
    });
    expect(rejectionOf(() => normalizeTenant('acme corp', '--tenant'))).toEqual({
      code: 'invalid-field',
      field: '--tenant',
    });
  });

  it('only ASCII slugs: look-alikes are rejected, canonical equivalents (Kelvin sign = K) are one tenant', () => {
    expect(normalizeTenant('\u212aacme')).toBe('kacme');
    for (const lookAlike of ['\uff41cme', 'acm\u0435', 'ac\u200bme', '\u0130acme']) {
      expect(rejectionOf(() => cost({ ...canonical(), tenant: lookAlike }))).toEqual({
        code: 'invalid-field',
        field: 'tenant',
      });
    }
  });
});

describe('tags', () => {
  it('two keys that are one text once normalized are rejected', () => {
    expect(rejectionOf(() => optionalTags({ [NFC]: 'a', [NFD]: 'b' }, 'tags'))).toEqual({
      code: 'invalid-field',
      field: `tags.${NFD}`,
    });
  });
});
