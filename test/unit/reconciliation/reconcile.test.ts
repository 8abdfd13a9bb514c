import { reconcile, summarize } from '../../../lambda/core/reconciliation/reconcile';
import { inScope, providerPeriods } from '../../../lambda/core/reconciliation/scope';

const row = (
  tenant: string,
  accountId: string,
  total: string,
  period = '2026-11',
  currency = 'USD',
) => ({
  tenant,
  accountId,
  period,
  currency,
  total,
});

describe('reconcile', () => {
  const answer = {
    period: '2026-11',
    final: true,
    figures: [
      { accountId: '111111111111', period: '2026-11', currency: 'USD', amount: '1000.0004' },
      { accountId: '222222222222', period: '2026-11', currency: 'USD', amount: '500' },
      { accountId: '333333333333', period: '2026-11', currency: 'USD', amount: '75' },
    ],
  };

  it('attributes provider figures by the ledger and finds ok, drift and missing', () => {
    const run = reconcile(
      [
        row('acme', '111111111111', '1000'),
        row('acme', '222222222222', '510'),
        row('beta', '444444444444', '9'),
      ],
      [answer],
    );
    expect(run.records.map((r) => [r.tenant, r.accountId, r.status, r.pages])).toEqual([
      ['acme', '111111111111', 'ok', false],
      ['acme', '222222222222', 'drift', true],
      ['beta', '444444444444', 'missing-at-provider', true],
    ]);
    expect(run.unattributed).toBe(1); // 333… is in no ledger and no tenant claims the payer
  });

  it('records missing-in-ledger for accounts of a payer a tenant claims', () => {
    const run = reconcile(
      [row('acme', '111111111111', '1000')],
      [{ ...answer, claimedBy: 'acme' }],
    );
    expect(run.records.map((r) => [r.accountId, r.status, r.difference])).toEqual([
      ['111111111111', 'ok', '-0.0004'],
      ['222222222222', 'missing-in-ledger', '-500'],
      ['333333333333', 'missing-in-ledger', '-75'],
    ]);
    expect(run.unattributed).toBe(0);
  });

  it('compares per currency and leaves rows of periods not asked', () => {
    const run = reconcile(
      [
        row('acme', '111111111111', '1000.0004'),
        row('acme', '111111111111', '20', '2026-11', 'EUR'),
        row('acme', '111111111111', '3', '2026-10'),
      ],
      [answer],
    );
    expect(run.records.map((r) => [r.currency, r.status])).toEqual([
      ['EUR', 'missing-at-provider'],
      ['USD', 'ok'],
    ]);
    expect(run.unasked).toBe(1);
  });

  it('marks estimated answers not final and never pages them', () => {
    const run = reconcile([row('acme', '222222222222', '900')], [{ ...answer, final: false }]);
    expect(run.records[0]).toMatchObject({ status: 'drift', final: false, pages: false });
  });

  it('summarizes per period: counts, pages, largest drift', () => {
    const run = reconcile(
      [row('acme', '111111111111', '1000'), row('acme', '222222222222', '510')],
      [{ ...answer, claimedBy: 'acme' }],
    );
    const [summary] = summarize(run.records);
    expect(summary.counts).toEqual({
      ok: 1,
      drift: 1,
      'missing-in-ledger': 1,
      'missing-at-provider': 0,
    });
    expect(summary.paging).toBe(2);
    expect(summary.largest).toMatchObject({ accountId: '333333333333', difference: '-75' });
  });
});

describe('scope', () => {
  const now = Date.parse('2026-12-02T04:30:00Z');
  it('takes open periods and those closed within the look-back', () => {
    const base = { tenant: 't', accountId: '1', period: '2026-10' };
    expect(inScope({ ...base, state: 'open' }, now, 45)).toBe(true);
    expect(inScope({ ...base, state: 'closed', closedAt: '2026-10-18T04:30:00Z' }, now, 45)).toBe(
      true,
    );
    expect(inScope({ ...base, state: 'closed', closedAt: '2026-10-18T04:29:59Z' }, now, 45)).toBe(
      false,
    );
    expect(inScope({ ...base, state: 'closed' }, now, 45)).toBe(false);
    expect(inScope({ ...base, period: '2025-11', state: 'open' }, now, 45)).toBe(false);
    expect(inScope({ ...base, period: '2025-12', state: 'open' }, now, 45)).toBe(true);
  });
  it('asks the provider for those periods and the current one', () => {
    expect(providerPeriods(['2026-10', '2026-11', '2026-10'], now)).toEqual([
      '2026-10',
      '2026-11',
      '2026-12',
    ]);
  });
});
