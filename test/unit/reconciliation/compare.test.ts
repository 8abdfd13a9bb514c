import {
  compareTotals,
  DEFAULT_TOLERANCE,
  toleranceRatioOfPercent,
} from '../../../lambda/core/reconciliation/compare';

describe('compareTotals', () => {
  it('is ok at exactly 0.1 % and drift one smallest unit above it (inclusive edge)', () => {
    // 0.1 % of 1000 is 1: a difference of exactly 1 is within the tolerance.
    expect(compareTotals({ ledger: '1001', provider: '1000', final: true })).toEqual({
      ledger: '1001',
      provider: '1000',
      difference: '1',
      ratio: '0.001',
      status: 'ok',
      final: true,
      pages: false,
    });
    expect(compareTotals({ ledger: '999', provider: '1000', final: true }).status).toBe('ok');
    const over = compareTotals({
      ledger: '1001.000000000000000001',
      provider: '1000',
      final: true,
    });
    expect(over.status).toBe('drift');
    expect(over.pages).toBe(true);
    expect(over.difference).toBe('1.000000000000000001');
  });

  it('computes with exact decimals, never floats', () => {
    const result = compareTotals({ ledger: '0.3', provider: '0.1', final: false });
    expect(result.difference).toBe('0.2');
    expect(compareTotals({ ledger: '0.1', provider: '0.3', final: true }).difference).toBe('-0.2');
    expect(
      compareTotals({
        ledger: '12345678901234.123456789',
        provider: '12345678901234.123456788',
        final: true,
      }).status,
    ).toBe('ok');
  });

  it('applies the absolute floor for tiny totals', () => {
    // 0.009 off a total of 0.02 is 45 %, but under the one-cent floor.
    expect(compareTotals({ ledger: '0.029', provider: '0.02', final: true }).status).toBe('ok');
    expect(compareTotals({ ledger: '0.031', provider: '0.02', final: true }).status).toBe('drift');
    expect(
      compareTotals(
        { ledger: '0.031', provider: '0.02', final: true },
        { ratio: '0.001', floor: '0.02' },
      ).status,
    ).toBe('ok');
  });

  it('reports a side that is missing, and only above the floor', () => {
    const inLedger = compareTotals({ provider: '250.5', final: true });
    expect(inLedger).toMatchObject({
      status: 'missing-in-ledger',
      ledger: '0',
      difference: '-250.5',
      ratio: '1',
      pages: true,
    });
    const atProvider = compareTotals({ ledger: '10', final: true });
    expect(atProvider).toMatchObject({
      status: 'missing-at-provider',
      difference: '10',
      pages: true,
    });
    expect(atProvider.ratio).toBeUndefined();
    expect(compareTotals({ ledger: '0.004', final: true }).status).toBe('ok');
    expect(compareTotals({ provider: '0', final: true }).status).toBe('ok');
  });

  it('never pages an estimated figure', () => {
    const result = compareTotals({ ledger: '2000', provider: '1000', final: false });
    expect(result.status).toBe('drift');
    expect(result.pages).toBe(false);
    expect(compareTotals({ provider: '5', final: false }).pages).toBe(false);
  });

  it('uses |provider| for credits (negative totals)', () => {
    expect(compareTotals({ ledger: '-1001', provider: '-1000', final: true }).status).toBe('ok');
    expect(compareTotals({ ledger: '-1002', provider: '-1000', final: true }).status).toBe('drift');
  });

  it('takes a configured tolerance in percent', () => {
    expect(toleranceRatioOfPercent('0.1')).toBe('0.001');
    expect(toleranceRatioOfPercent('2.5')).toBe('0.025');
    const tolerance = { ...DEFAULT_TOLERANCE, ratio: toleranceRatioOfPercent('1') };
    expect(compareTotals({ ledger: '1010', provider: '1000', final: true }, tolerance).status).toBe(
      'ok',
    );
    expect(compareTotals({ ledger: '1011', provider: '1000', final: true }, tolerance).status).toBe(
      'drift',
    );
  });
});
