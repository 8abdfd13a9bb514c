import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  focusRowOf,
  pageCsv,
  type BigQueryRow,
} from '../../lambda/core/acquisition/gcp-billing-rows';
import { changeProbeSql, monthSql } from '../../lambda/core/acquisition/gcp-billing-sql';
import {
  changedMonths,
  mergeWatermarks,
  observedByMonth,
  latestByMonth,
} from '../../lambda/core/acquisition/gcp-watermarks';
import { ValidationError } from '../../lambda/core/errors';

const page = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/gcp/get-query-results-response.json'), 'utf8'),
) as { rows: BigQueryRow[] };

describe('GCP billing rows as FOCUS', () => {
  it('money is cost plus the credits, exactly; the invoice month is the period; tax rows are kept', () => {
    const [usage, tax] = page.rows.map((row) => focusRowOf(row, '202409'));
    expect(usage).toMatchObject({
      BilledCost: '0.2853',
      SubAccountId: 'acme-web-prod',
      BillingPeriodStart: '2024-09-01T00:00:00Z',
      ChargeCategory: 'Usage',
      ProviderName: 'Google Cloud',
    });
    expect(tax).toMatchObject({
      BilledCost: '0.012',
      SubAccountId: undefined,
      ChargeCategory: 'Tax',
    });
  });

  it('rounds a float residue beyond 18 fraction digits half-even and counts it', () => {
    const row = structuredClone(page.rows[0]);
    row.f[10] = { v: '2.7755575615628914E-17' };
    row.f[11] = { v: [] };
    const { csv, counts } = pageCsv([row], '202409');
    expect(counts).toEqual({ rows: 1, rounded: 1 });
    expect(csv.split('\n')[1].split(',')[0]).toBe('0.000000000000000028');
  });

  it('refuses a cost type it does not know, naming the ones it books', () => {
    const row = structuredClone(page.rows[0]);
    row.f[8] = { v: 'surprise' };
    expect(() => focusRowOf(row, '202409')).toThrow(ValidationError);
  });

  it('quotes cells with commas and quotes', () => {
    const row = structuredClone(page.rows[0]);
    row.f[4] = { v: 'a, "b"' };
    expect(pageCsv([row], '202409').csv).toContain('"a, ""b"""');
  });
});

describe('GCP change probe and watermarks', () => {
  const probe = [
    {
      partitionDay: '2024-09-30',
      invoiceMonth: '202409',
      maxExportTime: '2024-09-30T10:00:00.000000Z',
    },
    {
      partitionDay: '2024-10-01',
      invoiceMonth: '202409',
      maxExportTime: '2024-10-01T03:00:00.000000Z',
    },
    {
      partitionDay: '2024-10-01',
      invoiceMonth: '202410',
      maxExportTime: '2024-10-01T04:00:00.000000Z',
    },
  ];

  it('a month changes when one of its partitions has a later export_time, or a new partition', () => {
    const observed = observedByMonth(probe);
    expect(changedMonths(observed, {})).toEqual(['202409', '202410']);
    const acquired = mergeWatermarks({}, observed.get('202409') ?? {}, '2024-08-01');
    expect(changedMonths(observed, acquired)).toEqual(['202410']);
    const later = observedByMonth([{ ...probe[0], maxExportTime: '2024-09-30T11:00:00.000000Z' }]);
    expect(changedMonths(later, acquired)).toEqual(['202409']);
  });

  it('drops watermarks of partitions older than the probe looks back', () => {
    expect(mergeWatermarks({ '2024-07-01|202406': 't' }, {}, '2024-08-01')).toEqual({});
  });

  it('queries name only a validated table and month', () => {
    expect(monthSql('billing-proj.billing.gcp_billing_export_v1_01A2B3', '202409')).toContain(
      "WHERE invoice.month = '202409'",
    );
    expect(() => monthSql('x`; DROP', '202409')).toThrow(ValidationError);
    expect(() => monthSql('billing-proj.billing.t', "2024' OR '1")).toThrow(ValidationError);
    expect(changeProbeSql('billing-proj.billing.t', 35)).toContain('INTERVAL 35 DAY');
  });
});

describe('GCP watermarks per invoice month (acquire status)', () => {
  it('is the latest export_time over the month’s partitions, months in order', () => {
    expect(
      latestByMonth({
        '2024-10-01|202409': '2024-10-01T08:00:00.000000Z',
        '2024-09-20|202409': '2024-09-20T08:00:00.000000Z',
        '2024-09-02|202408': '2024-09-02T01:00:00.000000Z',
      }),
    ).toEqual({ '202408': '2024-09-02T01:00:00.000000Z', '202409': '2024-10-01T08:00:00.000000Z' });
  });
});
