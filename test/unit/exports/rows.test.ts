/** One export row → a ledger charge or a rejection an operator can find. */
import { normalizeExportRow, type RowContext } from '../../../lambda/core/exports/rows';

const context: RowContext = {
  tenant: 'acme',
  objectKey: 'billing/acme/focus/data/BILLING_PERIOD=2026-11/focus-00001.csv.gz',
  billingPeriod: '2026-11',
};

/** FOCUS 1.0 columns as an SQL-backed export writes them. */
const focus10 = (cells: Record<string, unknown> = {}): Record<string, unknown> => ({
  BilledCost: '0.123456789012345',
  BillingAccountId: '100000000001',
  BillingCurrency: 'USD',
  BillingPeriodStart: '2026-11-01 00:00:00',
  BillingPeriodEnd: '2026-12-01 00:00:00',
  ChargeCategory: 'Usage',
  ChargeClass: 'NULL',
  ChargePeriodStart: '2026-11-03 14:00:00',
  ChargePeriodEnd: '2026-11-03 15:00:00',
  ProviderName: 'AWS',
  ServiceName: 'Amazon Elastic Compute Cloud',
  SubAccountId: '200000000002',
  Tags: '(null)',
  ...cells,
});

const accept = (cells: Record<string, unknown>, rowContext = context) => {
  const result = normalizeExportRow({ rowIndex: 4, cells }, rowContext);
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}`);
  return result.charge;
};

const reject = (cells: Record<string, unknown>, rowContext = context) => {
  const result = normalizeExportRow({ rowIndex: 4, cells }, rowContext);
  if (result.ok) throw new Error('accepted');
  return result.rejection;
};

describe('normalizeExportRow', () => {
  it('books BilledCost exactly, 15 fraction digits, to SubAccountId, the period and currency', () => {
    expect(accept(focus10())).toMatchObject({
      tenant: 'acme',
      accountId: '200000000002',
      period: '2026-11',
      currency: 'USD',
      amount: '0.123456789012345',
      service: 'Amazon Elastic Compute Cloud',
    });
  });

  it('reads NULL, null, (null) and empty cells as absent and zone-less timestamps as UTC', () => {
    const charge = accept(
      focus10({ SubAccountId: 'null', ServiceName: '', ChargeClass: '(null)' }),
    );
    expect(charge.accountId).toBe('100000000001');
    expect(charge.service).toBeUndefined();
    expect(charge.event.chargeClass).toBeUndefined();
    expect(charge.event.tags).toBeUndefined();
    expect(charge.event.chargePeriodStart).toBe('2026-11-03T14:00:00.000Z');
  });

  it('reads FOCUS 1.2+ rows (ServiceProviderName, extra columns) and ignores x_ columns', () => {
    const charge = accept(
      focus10({
        ProviderName: 'NULL',
        ServiceProviderName: 'Microsoft',
        BillingPeriodStart: '2026-11-01T00:00:00Z',
        CapacityReservationId: 'NULL',
        x_BillingProfileId: 'bp-1',
        x_SkuMeterCategory: 'Virtual Machines',
      }),
    );
    expect(charge.event.source).toBe('azure');
    expect(charge.event).not.toHaveProperty('x_BillingProfileId');
  });

  it("names AWS spend by x_ServiceCode, CUR's product code, and keeps ServiceName on the event", () => {
    const charge = accept(focus10({ x_ServiceCode: ' AmazonEC2 ' }));
    expect(charge.service).toBe('AmazonEC2');
    expect(charge.event.service).toBe('Amazon Elastic Compute Cloud');
    expect(charge.event).not.toHaveProperty('x_ServiceCode');
  });

  it.each([undefined, '', '   ', 'NULL', '(null)'])(
    'names the service by ServiceName when x_ServiceCode is %p',
    (code) => {
      const cells = code === undefined ? focus10() : focus10({ x_ServiceCode: code });
      expect(accept(cells).service).toBe('Amazon Elastic Compute Cloud');
      expect(accept({ ...cells, ServiceName: '' }).service).toBeUndefined();
    },
  );

  it('rejects a malformed x_ServiceCode under that column', () => {
    expect(reject(focus10({ x_ServiceCode: 'x'.repeat(3000) }))).toMatchObject({
      code: 'invalid-field',
      column: 'x_ServiceCode',
    });
  });

  it('takes the tenant from the export source only: a row naming another tenant changes nothing', () => {
    const charge = accept(focus10({ x_Tenant: 'globex', tenant: 'globex', Tenant: 'globex' }));
    expect(charge.tenant).toBe('acme');
    expect(charge.event.tenant).toBe('acme');
  });

  it('uses the source given by the export for rows without a provider name', () => {
    const cells = focus10({ ProviderName: 'NULL' });
    expect(accept(cells, { ...context, source: 'oci' }).event.source).toBe('oci');
    expect(reject(cells)).toMatchObject({ code: 'missing-field', column: 'source' });
  });

  it('rejects a row without BilledCost, naming the file, the row and the reason', () => {
    expect(reject(focus10({ BilledCost: 'NULL' }))).toEqual({
      code: 'missing-field',
      column: 'BilledCost',
      reason: 'required',
      objectKey: context.objectKey,
      rowIndex: 4,
      rowNumber: 5,
    });
  });

  it('rejects amounts it cannot book exactly rather than rounding them', () => {
    expect(reject(focus10({ BilledCost: '0.1234567890123456789' }))).toMatchObject({
      code: 'invalid-field',
      column: 'BilledCost',
    });
    expect(reject(focus10({ BilledCost: '12,50' })).column).toBe('BilledCost');
  });

  it('reports a bad tag under the Tags column (reasons stay bounded by the columns)', () => {
    expect(reject(focus10({ Tags: '{"__proto__": "x"}' })).column).toBe('Tags');
  });

  it('rejects a row of another billing period than the export delivers', () => {
    expect(reject(focus10({ BillingPeriodStart: '2026-10-01 00:00:00' }))).toMatchObject({
      code: 'wrong-period',
      column: 'BillingPeriodStart',
    });
  });

  it('buckets a BillingPeriodStart with an offset by its UTC month, and says so when it rejects', () => {
    const offset = {
      BillingPeriodStart: '2026-12-01T00:00:00+02:00',
      ChargePeriodStart: '2026-11-30T23:00:00+02:00',
      ChargePeriodEnd: '2026-12-01T00:00:00+02:00',
    };
    expect(accept(focus10(offset))).toMatchObject({ period: '2026-11' });
    expect(accept(focus10(offset)).event.billingPeriodStart).toBe('2026-11-30T22:00:00.000Z');
    expect(reject(focus10(offset), { ...context, billingPeriod: '2026-12' }).reason).toBe(
      'the row is in billing period 2026-11 (its BillingPeriodStart is 2026-11-30T22:00:00.000Z in UTC), the export delivers 2026-12',
    );
  });

  it('rejects a record a reader flagged as broken', () => {
    const result = normalizeExportRow(
      { rowIndex: 9, cells: {}, problem: 'has 2 cells, the header has 8' },
      context,
    );
    expect(result).toEqual({
      ok: false,
      rejection: expect.objectContaining({ code: 'malformed-row', column: '$', rowNumber: 10 }),
    });
  });
});
