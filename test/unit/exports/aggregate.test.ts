/** Chunk totals: exact sums per ledger key and service, bounded rejection bookkeeping. */
import { ChunkAggregator } from '../../../lambda/core/exports/aggregate';
import type { ExportCharge, RowRejection } from '../../../lambda/core/exports/rows';

const charge = (amount: string, changes: Partial<ExportCharge> = {}): ExportCharge => ({
  tenant: 'acme',
  accountId: '200000000002',
  period: '2026-11',
  currency: 'USD',
  amount,
  service: 'Amazon EC2',
  event: {} as never,
  ...changes,
});

const rejection = (rowIndex: number, changes: Partial<RowRejection> = {}): RowRejection => ({
  code: 'missing-field',
  column: 'BilledCost',
  reason: 'required',
  objectKey: 'data/f.csv',
  rowIndex,
  rowNumber: rowIndex + 1,
  ...changes,
});

describe('ChunkAggregator', () => {
  it('sums exactly where binary floats drift', () => {
    const aggregator = new ChunkAggregator();
    for (let i = 0; i < 10; i += 1) aggregator.add(charge('0.1'));
    aggregator.add(charge('0.000000000000001'));
    aggregator.add(charge('-0.3'));
    const [total] = aggregator.summary().totals;
    expect(total.total).toBe('0.700000000000001');
    expect(0.1 * 10 + 0.000000000000001 - 0.3).not.toBe(0.700000000000001);
  });

  it('keeps 15 fraction digits over many rows', () => {
    const aggregator = new ChunkAggregator();
    for (let i = 0; i < 100_000; i += 1) aggregator.add(charge('1234.567890123456789'));
    expect(aggregator.summary().totals[0].total).toBe('123456789.0123456789');
  });

  it('keeps one total per tenant, account, period and currency, broken down by service', () => {
    const aggregator = new ChunkAggregator();
    aggregator.add(charge('1.5'));
    aggregator.add(charge('2', { service: 'Amazon S3' }));
    aggregator.add(charge('3', { service: undefined }));
    aggregator.add(charge('4', { currency: 'EUR' }));
    aggregator.add(charge('5', { accountId: '100000000001' }));
    aggregator.add(charge('-1.5'));
    expect(aggregator.summary()).toEqual({
      rowsAccepted: 6,
      rowsRejected: 0,
      rejectedByReason: {},
      rejectionSamples: [],
      totals: [
        expect.objectContaining({ accountId: '100000000001', total: '5', rows: 1 }),
        expect.objectContaining({
          accountId: '200000000002',
          currency: 'EUR',
          total: '4',
          rows: 1,
        }),
        {
          tenant: 'acme',
          accountId: '200000000002',
          period: '2026-11',
          currency: 'USD',
          total: '5',
          rows: 4,
          services: [
            { service: null, total: '3', rows: 1 },
            { service: 'Amazon EC2', total: '0', rows: 2 },
            { service: 'Amazon S3', total: '2', rows: 1 },
          ],
        },
      ],
    });
  });

  it('counts rejected rows per reason and keeps the first samples with file and row', () => {
    const aggregator = new ChunkAggregator(2);
    aggregator.reject(rejection(3));
    aggregator.reject(
      rejection(8, { code: 'invalid-field', column: 'BillingCurrency', reason: 'not ISO 4217' }),
    );
    aggregator.reject(rejection(9));
    aggregator.add(charge('1'));
    const summary = aggregator.summary();
    expect(summary.rowsRejected).toBe(3);
    expect(summary.rowsAccepted).toBe(1);
    expect(summary.rejectedByReason).toEqual({
      'invalid-field:BillingCurrency': 1,
      'missing-field:BilledCost': 2,
    });
    expect(summary.rejectionSamples).toEqual([
      {
        objectKey: 'data/f.csv',
        rowIndex: 3,
        rowNumber: 4,
        code: 'missing-field',
        column: 'BilledCost',
        reason: 'required',
      },
      expect.objectContaining({ rowNumber: 9, column: 'BillingCurrency' }),
    ]);
  });
});
