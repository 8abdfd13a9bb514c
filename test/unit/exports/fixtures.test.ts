/**
 * Real FOCUS data (test/fixtures/focus/README.md names the sources): the specification's open-period
 * correction scenario and FOCUS-Sample-Data rows with NULL cells, read and aggregated end to end.
 */
import { gzipSync } from 'node:zlib';
import { aggregateRows } from '../../../lambda/core/exports/aggregate';
import { readCsvRows } from '../../../lambda/core/exports/readers/csv';
import type { ExportRow, RowContext } from '../../../lambda/core/exports/rows';
import { chunked, collect, fixtureBytes, validationErrorOf } from './helpers';

const context = (billingPeriod: string, objectKey: string): RowContext => ({
  tenant: 'acme',
  objectKey,
  billingPeriod,
});

/**
 * The specification's correction examples carry only the columns the scenario is about: no billing
 * account, currency or provider. A real export has them; these are added, the same for every row.
 */
async function* asExportRows(rows: AsyncIterable<ExportRow>): AsyncGenerator<ExportRow> {
  for await (const row of rows) {
    yield {
      ...row,
      cells: {
        ...row.cells,
        BillingAccountId: '100000000001',
        BillingCurrency: 'USD',
        ProviderName: 'AWS',
      },
    };
  }
}

const specScenario = (name: string) =>
  asExportRows(
    readCsvRows(chunked(fixtureBytes(name), 64), {
      gzip: false,
      requiredColumns: ['BilledCost', 'ChargePeriodStart'],
    }),
  );

describe('FOCUS specification: open billing period, scenario 1 (partial reallocation)', () => {
  it('the original export books 1500', async () => {
    const { summary } = await aggregateRows(
      specScenario('spec-open-period-scenario-1-original.csv'),
      context('2025-07', 'original.csv'),
    );
    expect(summary.totals).toEqual([
      expect.objectContaining({
        accountId: '100000000001',
        period: '2025-07',
        currency: 'USD',
        total: '1500',
        rows: 1,
      }),
    ]);
  });

  it('the replacement export (1200 + 300) still totals 1500 for the period', async () => {
    const { summary, rowsRead, lastRowIndex } = await aggregateRows(
      specScenario('spec-open-period-scenario-1-replacement.csv'),
      context('2025-07', 'replacement.csv'),
    );
    expect(summary.totals).toEqual([
      expect.objectContaining({ period: '2025-07', currency: 'USD', total: '1500', rows: 2 }),
    ]);
    expect([rowsRead, lastRowIndex, summary.rowsRejected]).toEqual([2, 1, 0]);
  });

  it('as delivered (no account or currency columns) the file is refused, naming what is missing', async () => {
    const bytes = fixtureBytes('spec-open-period-scenario-1-replacement.csv');
    const error = await validationErrorOf(() =>
      collect(readCsvRows(chunked(bytes), { gzip: false })),
    );
    expect(error.reason).toBe(
      'not a complete FOCUS export: missing BillingAccountId, BillingCurrency (required: BilledCost, BillingAccountId, BillingCurrency, BillingPeriodStart, ChargeCategory, ChargePeriodStart, ChargePeriodEnd)',
    );
  });
});

describe('FOCUS-Sample-Data 1.1 excerpt (AWS, Azure, Google, Oracle; NULL cells; float noise)', () => {
  const read = (gzip: boolean, fromRow = 0) => {
    const bytes = fixtureBytes('focus-sample-data-1.1-excerpt.csv');
    return readCsvRows(chunked(gzip ? gzipSync(bytes) : bytes, 100), { gzip, fromRow });
  };

  it('aggregates to the exact totals per sub-account and service (computed with Python Decimal)', async () => {
    const { summary } = await aggregateRows(read(true), context('2024-09', 'focus_sample.csv.gz'));
    expect(summary.rowsRejected).toBe(0);
    expect(summary.totals.map(({ accountId, total, rows }) => [accountId, total, rows])).toEqual([
      ['517389287820', '616.25927742', 3],
      ['ocid1.compartment.oc1..dev', '37.01464657', 1],
      ['ocid1.compartment.oc1..prod', '732.7757514', 1],
      ['proj-helios-dev', '107.8996464', 1],
      ['proj-helios-prod', '370.52873142', 2],
      ['sub-4d3e', '856.61593704000001', 3],
      ['sub-9a1f', '299.14796912', 1],
    ]);
    const azure = summary.totals.find((total) => total.accountId === 'sub-4d3e');
    expect(azure?.services).toEqual([
      { service: 'Azure Blob Storage', total: '361.21791199999996', rows: 1 },
      { service: 'Azure Functions', total: '227.28753400000005', rows: 1 },
      { service: 'Azure SQL Database', total: '268.11049104', rows: 1 },
    ]);
  });

  it('a chunk resumed from a cursor adds up with the chunk before it', async () => {
    const firstFive = (await collect(read(false))).slice(0, 5);
    async function* rows() {
      yield* firstFive;
    }
    const head = await aggregateRows(rows(), context('2024-09', 'f.csv'));
    const tail = await aggregateRows(
      read(false, head.lastRowIndex + 1),
      context('2024-09', 'f.csv'),
    );
    expect(head.rowsRead + tail.rowsRead).toBe(12);
    expect(tail.summary.totals.find((total) => total.accountId === '517389287820')?.total).toBe(
      '111.02780094',
    );
  });
});
