/** Alert formats: normalization variants and rejections. */
import { parseAlertEvent } from '../../../lambda/core/formats';
import type { DecodedRecord } from '../../../lambda/core/events';
import * as awsBudgets from '../../../lambda/core/formats/alert-aws-budgets';
import { looksAwsBudgets, readLabels } from '../../../lambda/core/formats/alert-aws-budgets';
import * as costAnomaly from '../../../lambda/core/formats/alert-cost-anomaly';
import { ALERT_MAX_BYTES } from '../../../lambda/core/formats/alert';
import { fixtureJson, fixtureText, record, rejection, rejectionOf } from './helpers';

type Json = Record<string, unknown>;

const parse = (message: unknown, attributes: Record<string, string> = {}) =>
  parseAlertEvent(
    record(typeof message === 'string' ? message : JSON.stringify(message), attributes),
  );
const without = (object: Json, ...keys: string[]): Json =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

interface GcpFixture {
  attributes: Record<string, string>;
  data: Json;
}
const gcp = (): GcpFixture => fixtureJson<GcpFixture>('gcp-budget-notification.json');
const gcpWith = (data: Json): GcpFixture => ({ ...gcp(), data });
const base64 = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

describe('GCP budget notifications', () => {
  const expected = parse(gcp());

  it('(a) data object with GCP attributes as message attributes', () => {
    const { attributes, data } = gcp();
    expect(parse(data, attributes)).toStrictEqual(expected);
  });

  it('(b) {attributes, data} with data as base64 or JSON text', () => {
    const { attributes, data } = gcp();
    expect(parse({ attributes, data: base64(data) })).toStrictEqual(expected);
    expect(parse({ attributes, data: JSON.stringify(data) })).toStrictEqual(expected);
  });

  it('(c) a Pub/Sub push body', () => {
    const { attributes, data } = gcp();
    const push = {
      message: {
        attributes,
        data: base64(data),
        messageId: '1234',
        publishTime: '2026-11-20T10:00:00Z',
      },
      subscription: 'projects/p/subscriptions/budget-alerts',
    };
    expect(parse(push)).toStrictEqual(expected);
  });

  it('a re-send with a higher costAmount differs only in amount', () => {
    const { amount, ...rest } = parse(gcpWith({ ...gcp().data, costAmount: 4700.1 }));
    const { amount: original, ...expectedRest } = expected;
    expect(rest).toStrictEqual(expectedRest);
    expect([original, amount]).toEqual(['4512.37', '4700.1']);
  });

  it('forecast threshold → budget-forecast; actual wins when both are present', () => {
    const data = without(gcp().data, 'alertThresholdExceeded');
    expect(parse(gcpWith({ ...data, forecastThresholdExceeded: 1.0 }))).toMatchObject({
      kind: 'budget-forecast',
      thresholdType: 'forecasted',
      threshold: '1',
      severity: 'critical',
    });
    expect(parse(gcpWith({ ...gcp().data, forecastThresholdExceeded: 1.2 }))).toMatchObject({
      kind: 'budget-threshold',
      thresholdType: 'actual',
      threshold: '0.9',
    });
  });

  it('no threshold field → budget-update with info severity', () => {
    const update = parse(fixtureJson('gcp-budget-update.json'));
    expect(update).toMatchObject({ kind: 'budget-update', severity: 'info' });
    expect(update).not.toHaveProperty('threshold');
    expect(update).not.toHaveProperty('thresholdType');
  });

  it('severity critical at 100% or more', () => {
    expect(parse(gcpWith({ ...gcp().data, alertThresholdExceeded: '1.0' })).severity).toBe(
      'critical',
    );
    expect(parse(gcpWith({ ...gcp().data, alertThresholdExceeded: 1.5 })).severity).toBe(
      'critical',
    );
  });

  it('currency upper-case; tenant from the tenant attribute', () => {
    const event = parse(gcpWith({ ...gcp().data, currencyCode: 'eur' }), { tenant: 'acme' });
    expect(event).toMatchObject({ currency: 'EUR', tenant: 'acme' });
  });

  it.each([
    ['billingAccountId', 'billingAccountId'],
    ['budgetDisplayName', 'budgetDisplayName'],
    ['costAmount', 'costAmount'],
    ['costIntervalStart', 'costIntervalStart'],
    ['currencyCode', 'currencyCode'],
  ])('missing %s → missing-field', (key, field) => {
    const fixture = gcp();
    const message =
      key === 'billingAccountId'
        ? { ...fixture, attributes: without(fixture.attributes, key) }
        : gcpWith(without(fixture.data, key));
    expect(rejectionOf(() => parse(message))).toEqual({ code: 'missing-field', field });
  });

  it('budgetId is optional', () => {
    const fixture = gcp();
    expect(
      parse({ ...fixture, attributes: without(fixture.attributes, 'budgetId') }),
    ).not.toHaveProperty('budgetId');
  });

  it.each([
    ['costAmount', 'lots'],
    ['alertThresholdExceeded', -0.5],
    ['costIntervalStart', 'yesterday'],
    ['currencyCode', 'DOLLARS'],
  ])('%s = %j → invalid-field', (field, value) => {
    expect(rejectionOf(() => parse(gcpWith({ ...gcp().data, [field]: value })))).toEqual({
      code: 'invalid-field',
      field,
    });
  });

  it('an unknown schemaVersion → invalid-field', () => {
    const fixture = gcp();
    const message = { ...fixture, attributes: { ...fixture.attributes, schemaVersion: '2.0' } };
    expect(rejectionOf(() => parse(message))).toEqual({
      code: 'invalid-field',
      field: 'schemaVersion',
    });
  });

  it('undecodable data → malformed-body', () => {
    const { attributes } = gcp();
    expect(rejectionOf(() => parse({ attributes, data: '%%%not base64%%%' }))).toEqual({
      code: 'malformed-body',
      field: 'data',
    });
    expect(
      rejectionOf(() => parse({ attributes, data: Buffer.from('not json').toString('base64') })),
    ).toEqual({
      code: 'malformed-body',
      field: 'data',
    });
    expect(
      rejectionOf(() =>
        parse({ attributes, data: Buffer.from([0xff, 0xfe, 0x7b]).toString('base64') }),
      ),
    ).toEqual({
      code: 'malformed-body',
      field: 'data',
    });
    expect(rejectionOf(() => parse({ message: { data: base64([1]) }, subscription: 's' }))).toEqual(
      {
        code: 'malformed-body',
        field: 'message.data',
      },
    );
  });
});

describe('AWS Budgets text notifications', () => {
  const text = (): string => fixtureText('aws-budgets-notification.txt');
  const expected = parse(text());

  it('CRLF, CR and extra blank lines give the same event', () => {
    expect(parse(text().replace(/\n/g, '\r\n'))).toStrictEqual(expected);
    expect(parse(text().replace(/\n/g, '\r'))).toStrictEqual(expected);
    expect(parse(text().replace(/\n/g, '\n\n  '))).toStrictEqual(expected);
  });

  it('rewrapped prose and a value on the line after its label', () => {
    const rewrapped = text()
      .replace('November 28, 2026', '\nNovember 28,\n2026')
      .replace(/ the /g, '\nthe ')
      .replace('Budget Name: prod-platform-monthly', 'Budget Name:\nprod-platform-monthly');
    expect(parse(rewrapped)).toStrictEqual(expected);
  });

  it('percent threshold', () => {
    const event = parse(
      text().replace('Alert Threshold: > $8,000.00', 'Alert Threshold: > 80.00%'),
    );
    expect(event).toMatchObject({ threshold: '80%', currency: 'USD', severity: 'warning' });
    expect(
      parse(text().replace('Alert Threshold: > $8,000.00', 'Alert Threshold: > 100%')).severity,
    ).toBe('critical');
  });

  it('FORECASTED alert', () => {
    const forecast = text()
      .replace(/ACTUAL Cost/g, 'FORECASTED Cost')
      .replace('Alert Type: ACTUAL', 'Alert Type: FORECASTED')
      .replace('ACTUAL Amount: $8,214.55', 'FORECASTED Amount: $11,020.00');
    expect(parse(forecast)).toStrictEqual({
      ...expected,
      kind: 'budget-forecast',
      thresholdType: 'forecasted',
      amount: '11020',
    });
  });

  it('period by the budget time unit', () => {
    expect(parse(text().replace('current month', 'current quarter')).period).toBe('2026-Q4');
    expect(parse(text().replace('current month', 'current year')).period).toBe('2026');
    expect(parse(text().replace('current month', 'current day')).period).toBe('2026-11-28');
    expect(parse(text().replace(' for the current month', '')).period).toBe('2026-11');
  });

  it('other currencies and amount styles', () => {
    const euro = text().replace(/\$([\d,.]+)/g, '€$1');
    expect(parse(euro).currency).toBe('EUR');
    const coded = text().replace(/\$([\d,.]+)/g, '$1 GBP');
    expect(parse(coded)).toMatchObject({ currency: 'GBP', threshold: '8000', amount: '8214.55' });
    const plain = text().replace(/\$([\d,.]+)/g, (_m, n: string) => n.replace(/,/g, ''));
    const event = parse(plain);
    expect(event).toMatchObject({ threshold: '8000', budgetAmount: '10000' });
    expect(event).not.toHaveProperty('currency');
  });

  it('severity critical when the threshold reaches the budgeted amount', () => {
    expect(
      parse(text().replace('Alert Threshold: > $8,000.00', 'Alert Threshold: > $10,000.00'))
        .severity,
    ).toBe('critical');
  });

  it('tenant from the tenant attribute', () => {
    expect(parse(text(), { tenant: 'acme' }).tenant).toBe('acme');
  });

  it.each([
    ['budgetName', (t: string) => t.replace('Budget Name: prod-platform-monthly\n', '')],
    ['accountId', (t: string) => t.replace('AWS Account 200000000011\n', '')],
    ['threshold', (t: string) => t.replace('Alert Threshold: > $8,000.00\n', '')],
    ['notificationDate', (t: string) => t.replace(' November 28, 2026', '')],
    [
      'alertType',
      (t: string) => t.replace('Alert Type: ACTUAL\n', '').replace(/ACTUAL Cost/g, 'cost'),
    ],
  ])('missing %s → missing-field', (field, edit) => {
    expect(rejectionOf(() => parse(edit(text())))).toEqual({ code: 'missing-field', field });
  });

  it.each([
    ['accountId', (t: string) => t.replace('200000000011', '2000011')],
    ['alertType', (t: string) => t.replace('Alert Type: ACTUAL', 'Alert Type: MAYBE')],
    ['threshold', (t: string) => t.replace('> $8,000.00', '> lots')],
    ['amount', (t: string) => t.replace('ACTUAL Amount: $8,214.55', 'ACTUAL Amount: $8,21,4.55')],
    [
      'currency',
      (t: string) => t.replace('Budgeted Amount: $10,000.00', 'Budgeted Amount: €10,000.00'),
    ],
  ])('bad %s → invalid-field', (field, edit) => {
    expect(rejectionOf(() => parse(edit(text())))).toEqual({ code: 'invalid-field', field });
  });

  it('text that is not an AWS Budgets notification → unknown-format', () => {
    expect(rejectionOf(() => parse('hello, budget'))).toEqual({
      code: 'unknown-format',
      field: '$',
    });
  });
});

describe('AWS Cost Anomaly Detection alerts', () => {
  const anomaly = (): Json => fixtureJson('aws-cost-anomaly.json');
  const withImpact = (impact: Json): Json => ({
    ...anomaly(),
    impact: { ...(anomaly().impact as Json), ...impact },
  });

  it('totalImpact as a number or a string is the same exact decimal', () => {
    expect(parse(withImpact({ totalImpact: '531.680' }))).toStrictEqual(parse(anomaly()));
  });

  it('severity critical when totalImpactPercentage ≥ 50; warning without it', () => {
    expect(parse(withImpact({ totalImpactPercentage: 50 })).severity).toBe('critical');
    expect(parse(withImpact({ totalImpactPercentage: 49.99 })).severity).toBe('warning');
    expect(parse({ ...anomaly(), impact: { totalImpact: 1 } }).severity).toBe('warning');
  });

  it('service falls back to dimensionalValue', () => {
    expect(parse(without(anomaly(), 'rootCauses')).service).toBe(
      'Amazon Elastic Compute Cloud - Compute',
    );
    expect(parse({ ...anomaly(), rootCauses: [], dimensionalValue: 'AmazonS3' }).service).toBe(
      'AmazonS3',
    );
  });

  it.each([
    ['anomalyId', (m: Json) => ({ ...m, anomalyId: '' })],
    ['anomalyId', (m: Json) => without(m, 'anomalyId')],
    ['accountId', (m: Json) => without(m, 'accountId')],
    ['anomalyStartDate', (m: Json) => without(m, 'anomalyStartDate')],
    ['impact.totalImpact', (m: Json) => without(m, 'impact')],
    ['impact.totalImpact', (m: Json) => ({ ...m, impact: {} })],
  ])('missing %s → missing-field', (field, edit) => {
    expect(rejectionOf(() => parse(edit(anomaly())))).toEqual({ code: 'missing-field', field });
  });

  it.each([
    ['impact.totalImpact', (m: Json) => ({ ...m, impact: { totalImpact: 'big' } })],
    ['impact', (m: Json) => ({ ...m, impact: 5 })],
    ['rootCauses', (m: Json) => ({ ...m, rootCauses: 'EC2' })],
  ])('bad %s → invalid-field', (field, edit) => {
    expect(rejectionOf(() => parse(edit(anomaly())))).toEqual({ code: 'invalid-field', field });
  });
});

describe('canonical alerts', () => {
  const budgetAlert: Json = {
    alertKind: 'Budget-Threshold',
    tenant: 'acme',
    source: 'datadog',
    accountId: 'acct-1',
    budgetName: 'prod-monthly',
    period: '2026-11',
    threshold: '80%',
    budgetAmount: 10000,
    amount: '8214.550',
    currency: 'usd',
  };

  it('budget-threshold with defaults', () => {
    expect(parse(budgetAlert)).toStrictEqual({
      kind: 'budget-threshold',
      format: 'canonical',
      tenant: 'acme',
      source: 'datadog',
      accountId: 'acct-1',
      budgetName: 'prod-monthly',
      period: '2026-11',
      thresholdType: 'actual',
      threshold: '80%',
      budgetAmount: '10000',
      amount: '8214.55',
      currency: 'USD',
      severity: 'warning',
    });
  });

  it('anomaly', () => {
    const message = {
      alertKind: 'anomaly',
      source: 'custom',
      accountId: 'a',
      anomalyId: 'x-1',
      anomalyStart: '2026-11-25',
      amount: 12,
      severity: 'CRITICAL',
    };
    expect(parse(message, { tenant: 'acme' })).toStrictEqual({
      kind: 'anomaly',
      format: 'canonical',
      tenant: 'acme',
      source: 'custom',
      accountId: 'a',
      anomalyId: 'x-1',
      anomalyStart: '2026-11-25T00:00:00.000Z',
      amount: '12',
      severity: 'critical',
    });
  });

  it('budget-update needs no threshold and defaults to info', () => {
    const update = parse({ ...without(budgetAlert, 'threshold'), alertKind: 'budget-update' });
    expect(update).toMatchObject({ kind: 'budget-update', severity: 'info' });
    expect(update).not.toHaveProperty('thresholdType');
  });

  it.each([
    ['2026', '2026'],
    ['2026-q4', '2026-Q4'],
    ['2026-11-28', '2026-11-28'],
    ['2026-11-01T07:00:00Z', '2026-11-01T07:00:00.000Z'],
  ])('period %s → %s', (period, normalized) => {
    expect(parse({ ...budgetAlert, period }).period).toBe(normalized);
  });

  it.each([
    ['source', (m: Json) => without(m, 'source')],
    ['accountId', (m: Json) => without(m, 'accountId')],
    ['budgetId', (m: Json) => without(m, 'budgetName')],
    ['period', (m: Json) => without(m, 'period')],
    ['threshold', (m: Json) => without(m, 'threshold')],
    ['anomalyId', (m: Json) => ({ ...m, alertKind: 'anomaly' })],
  ])('missing %s → missing-field', (field, edit) => {
    expect(rejectionOf(() => parse(edit(budgetAlert)))).toEqual({ code: 'missing-field', field });
  });

  it.each([
    ['alertKind', 'panic'],
    ['thresholdType', 'forecasted'],
    ['period', '2026-13'],
    ['period', 'November'],
    ['severity', 'high'],
    ['threshold', 'abc%'],
  ])('%s = %j → invalid-field', (field, value) => {
    expect(rejectionOf(() => parse({ ...budgetAlert, [field]: value }))).toEqual({
      code: 'invalid-field',
      field,
    });
  });
});

describe('alert format detection', () => {
  it.each([[42], [null], [[1]], [{}], [{ hello: 'world' }]])('%j → unknown-format', (message) => {
    const decoded: DecodedRecord = { message, attributes: {}, snsWrapped: false };
    expect(rejectionOf(() => parseAlertEvent(decoded))).toEqual({
      code: 'unknown-format',
      field: '$',
    });
  });

  it('a message with fields of two formats is ambiguous', () => {
    const mixed = { ...fixtureJson('aws-cost-anomaly.json'), alertKind: 'anomaly' };
    expect(rejectionOf(() => parse(mixed))).toEqual({ code: 'unknown-format', field: '$' });
  });

  it('__proto__ keys in an alert message do not pollute Object.prototype', () => {
    const body = fixtureText('aws-cost-anomaly.json').replace(
      '{',
      '{"__proto__": {"polluted": true},',
    );
    const event = parse(body);
    expect(event.anomalyId).toBe('4c8e2f10-77a1-4e3b-b5d2-9a0c1e2f3a4b');
    expect(({} as Json).polluted).toBeUndefined();
    const gcpBody = JSON.stringify(gcp()).replace(
      '"attributes":{',
      '"attributes":{"__proto__":{"tenant":"evil"},',
    );
    expect(parse(gcpBody).tenant).toBe('default');
    expect(({} as Json).tenant).toBeUndefined();
  });
});

describe('alert size caps and linear AWS Budgets parsing', () => {
  const budgetsText = (): string => fixtureText('aws-budgets-notification.txt');
  const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
  /** Pads `text` with blank lines to exactly `bytes` UTF-8 bytes. */
  const padded = (text: string, bytes: number): string =>
    text + '\n'.repeat(bytes - utf8Bytes(text));

  afterEach(() => jest.restoreAllMocks());

  it('caps every alert format well under the SNS message limit', () => {
    for (const cap of Object.values(ALERT_MAX_BYTES)) {
      expect(cap).toBeGreaterThanOrEqual(16 * 1024);
      expect(cap).toBeLessThan(256 * 1024);
    }
  });

  it('an AWS Budgets text at its cap still parses', () => {
    const atCap = padded(budgetsText(), ALERT_MAX_BYTES['aws-budgets']);
    expect(parse(atCap)).toStrictEqual(parse(budgetsText()));
  });

  it('a 240 KB text is too-large and never reaches detection or parsing', () => {
    const looks = jest.spyOn(awsBudgets, 'looksAwsBudgets');
    const parseText = jest.spyOn(awsBudgets, 'parseAwsBudgets');
    const huge = budgetsText() + 'Note:\n\n'.repeat((240 * 1024) / 7);

    const error = rejection(() => parse(huge));

    expect({ code: error.code, field: error.field }).toEqual({ code: 'too-large', field: '$' });
    expect(error.reason).toBe(
      `${utf8Bytes(huge)} bytes; an AWS Budgets notification is at most 32768 bytes`,
    );
    expect(looks).not.toHaveBeenCalled();
    expect(parseText).not.toHaveBeenCalled();
  });

  it('one byte over the cap is too-large, counted in UTF-8 bytes (not characters)', () => {
    const cap = ALERT_MAX_BYTES['aws-budgets'];
    expect(rejectionOf(() => parse(padded(budgetsText(), cap + 1)))).toEqual({
      code: 'too-large',
      field: '$',
    });
    const euros = budgetsText().replace(/\$/g, '€'); // 3 bytes each in UTF-8
    const overInBytes = padded(euros, cap + 1);
    expect(overInBytes.length).toBeLessThan(cap);
    expect(rejectionOf(() => parse(overInBytes)).code).toBe('too-large');
  });

  it('JSON alerts over their format cap are too-large before their parser runs', () => {
    const parseAnomaly = jest.spyOn(costAnomaly, 'parseCostAnomaly');
    const base = fixtureJson('aws-cost-anomaly.json');
    const [cause] = base.rootCauses as Json[];
    const withCauses = (count: number): Json => ({
      ...base,
      rootCauses: Array.from({ length: count }, () => cause),
    });
    expect(parse(withCauses(100)).anomalyId).toBe('4c8e2f10-77a1-4e3b-b5d2-9a0c1e2f3a4b');
    parseAnomaly.mockClear();

    const error = rejection(() => parse(withCauses(1000)));

    expect(error.code).toBe('too-large');
    expect(error.reason).toMatch(/; a Cost Anomaly Detection alert is at most 65536 bytes$/);
    expect(parseAnomaly).not.toHaveBeenCalled();

    const { attributes, data } = gcp();
    const bigGcp = { ...data, budgetDisplayName: 'x'.repeat(ALERT_MAX_BYTES['gcp-budget']) };
    expect(rejectionOf(() => parse(bigGcp, attributes))).toEqual({ code: 'too-large', field: '$' });
  });

  it('reads each line once, however many labels wait for a value on a later line', () => {
    const lines = Array.from({ length: 4000 }, (_, i) =>
      i % 2 === 0 ? `Note ${'x'.repeat(i % 7)}:` : '',
    );
    let reads = 0;
    const counted = new Proxy(lines, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });

    readLabels(counted);

    expect(reads).toBeLessThanOrEqual(2 * lines.length);
  });

  it('a label whose value is on a later line: the next non-blank line, unless it is a label', () => {
    const labels = readLabels([
      'Budget Name:',
      '',
      '',
      'prod',
      'Alert Type:',
      'Alert Threshold: > 80%',
    ]);
    expect(Object.fromEntries(labels)).toEqual({
      'budget name': 'prod',
      'alert threshold': '> 80%',
    });
    expect(Object.fromEntries(readLabels(['Budget Name: a', 'Budget Name:', 'b']))).toEqual({
      'budget name': 'a',
    });
  });

  it('a "Budget Name:" line after blank and indented lines still marks AWS Budgets text', () => {
    expect(looksAwsBudgets('\n  \n\t\n   Budget Name: prod\n')).toBe(true);
    expect(looksAwsBudgets('  \n \n Budget\nName: prod')).toBe(false);
  });
});

describe('AWS Budgets budget name and account id are identifiers', () => {
  const text = (): string => fixtureText('aws-budgets-notification.txt');

  it('a budget name typed decomposed (NFD) is the same alert as the composed one', () => {
    const composed = text().replace('prod-platform-monthly\n', 'café-monthly\n');
    const decomposed = composed.replace('café', 'cafe\u0301');
    expect(parse(decomposed)).toStrictEqual(parse(composed));
    expect(parse(decomposed).budgetName).toBe('café-monthly');
  });

  it.each([
    ['zero-width space', '\u200B'],
    ['bidi override', '\u202E'],
    ['control character', '\u0001'],
  ])('a budget name with a %s → invalid-field', (_name, invisible) => {
    const edited = text().replace('prod-platform-monthly\n', `prod${invisible}-platform\n`);
    expect(rejectionOf(() => parse(edited))).toEqual({
      code: 'invalid-field',
      field: 'budgetName',
    });
  });

  it('an account id broken by an invisible character → invalid-field', () => {
    const edited = text().replace('AWS Account 200000000011', 'AWS Account 2000\u200B00000011');
    expect(rejectionOf(() => parse(edited))).toEqual({ code: 'invalid-field', field: 'accountId' });
  });
});
