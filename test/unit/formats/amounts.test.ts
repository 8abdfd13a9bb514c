/** Amounts and real export files: exact digits in every format, FOCUS null cells and zone-less timestamps. */
import { parseAlertEvent, parseCostEvent } from '../../../lambda/core/formats';
import { fixtureJson, fixtureText, record, rejection } from './helpers';

type Json = Record<string, unknown>;

const canonical = (): Json => fixtureJson('canonical-cost-event.json');
const focus = (): Json => JSON.parse(fixtureText('focus-rows.jsonl').split('\n')[0]) as Json;
const snake = (): Json => fixtureJson('snake-case-event.json');

/** A message body whose `field` is the JSON number `number`, written as that exact text. */
const withNumber = (message: Json, field: string, number: string): string =>
  JSON.stringify({ ...message, [field]: '@@' }).replace('"@@"', number);
const cost = (body: string | Json) =>
  parseCostEvent(record(typeof body === 'string' ? body : JSON.stringify(body))).event;

describe('a JSON-number amount is booked as written, never through a double', () => {
  it.each([
    ['canonical', canonical, 'amount'],
    ['FOCUS', focus, 'BilledCost'],
    ['snake_case', snake, 'amount'],
  ])('%s', (_, message, field) => {
    expect(cost(withNumber(message(), field, '0.100000000000000001')).amount).toBe(
      '0.100000000000000001',
    );
    expect(cost(withNumber(message(), field, '900719925474099.3')).amount).toBe(
      '900719925474099.3',
    );
    expect(cost(withNumber(message(), field, '-1.23456789012345678e2')).amount).toBe(
      '-123.456789012345678',
    );
  });

  it('a JSON number too precise for the ledger is rejected with our reason, not rounded', () => {
    const error = rejection(() =>
      cost(withNumber(canonical(), 'amount', '0.10000000000000000001')),
    );
    expect([error.code, error.field]).toEqual(['invalid-field', 'amount']);
    expect(error.reason).toMatch(/more than 18 fraction digits/);
    const huge = rejection(() => cost(withNumber(canonical(), 'amount', '9'.repeat(38))));
    expect(huge.reason).toMatch(/10\^15/);
  });

  it('quantities and alert amounts keep every digit too', () => {
    const event = cost(withNumber(canonical(), 'usageQuantity', '12345678901234567890.5'));
    expect(event.usageQuantity).toBe('12345678901234567890.5');
    const gcp = fixtureJson<{ attributes: Json; data: Json }>('gcp-budget-notification.json');
    const body = JSON.stringify(gcp).replace(
      '"costAmount":4512.37',
      '"costAmount":9007199254740993',
    );
    expect(body).toContain('9007199254740993');
    expect(parseAlertEvent(record(body)).amount).toBe('9007199254740993');
  });

  it('a version no double holds exactly is rejected, not rounded to a neighbour', () => {
    const error = rejection(() => cost(withNumber(canonical(), 'version', '2.0000000000000001')));
    expect([error.code, error.field]).toEqual(['invalid-field', 'version']);
  });

  it('a leading + is accepted', () => {
    expect(cost({ ...canonical(), amount: '+5' }).amount).toBe('5');
    expect(cost({ ...focus(), BilledCost: '+0.5' }).amount).toBe('0.5');
  });
});

describe('FOCUS files as exporters write them', () => {
  it('costs and quantities with 11 to 15 fraction digits are exact', () => {
    const event = cost({
      ...focus(),
      BilledCost: '0.000123456789012',
      ConsumedQuantity: '0.00000000001',
    });
    expect([event.amount, event.usageQuantity]).toEqual(['0.000123456789012', '0.00000000001']);
  });

  it('NULL, null and (null) cells are absent values', () => {
    const base = cost(focus());
    const nulls = (value: string): Json => ({
      ...focus(),
      ChargeClass: value,
      InvoiceId: value,
      ResourceId: value,
      ChargePeriodEnd: value,
      ConsumedQuantity: value,
      Tags: value,
      x_Anything: value,
    });
    for (const value of ['NULL', 'null', '(null)', ' NULL ']) {
      const event = cost(nulls(value));
      expect(event).not.toHaveProperty('invoiceId');
      expect(event).not.toHaveProperty('resourceId');
      expect(event).not.toHaveProperty('chargePeriodEnd');
      expect(event).not.toHaveProperty('usageQuantity');
      expect(event).not.toHaveProperty('tags');
      expect(event.amount).toBe(base.amount);
    }
  });

  it('a required column that is NULL is missing', () => {
    const error = rejection(() => cost({ ...focus(), BilledCost: 'NULL' }));
    expect([error.code, error.field]).toEqual(['missing-field', 'BilledCost']);
  });

  it('yyyy-mm-dd hh:mm:ss timestamps are UTC', () => {
    const event = cost({
      ...focus(),
      BillingPeriodStart: '2026-11-01 00:00:00',
      ChargePeriodStart: '2026-11-03 14:00:00',
      ChargePeriodEnd: '2026-11-03 15:00:00.000',
    });
    expect(event).toStrictEqual(cost(focus()));
    expect(event.chargePeriodStart).toBe('2026-11-03T14:00:00.000Z');
  });
});
