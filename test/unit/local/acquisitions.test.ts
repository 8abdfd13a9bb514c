/**
 * The local run's acquisitions: the stand-ins' truths (the GCP month with its correction, the Azure
 * runs), the ledger total of a tenant-period, the verdict's acquisitions check, and the sample's checks
 * judged without the acquisition tenants.
 */
import Big from 'big.js';
import {
  azureCorrectionRun,
  azureFirstRun,
  azureRunTotals,
} from '../../../local/acquisitions/azure';
import { gcpCorrectionRow, gcpMonthRows } from '../../../local/acquisitions/gcp';
import { monthTotalsOf } from '../../../local/emulators/bigquery-stand-in';
import { withoutTenants, type RunEnd } from '../../../local/phases/judge';
import {
  acquisitionsCheck,
  acquisitionStatus,
  ledgerTotalOf,
  type AcquisitionReport,
} from '../../../local/report/acquisitions';

const row = (changes: Partial<AcquisitionReport>): AcquisitionReport => {
  const base = {
    provider: 'gcp' as const,
    pass: 1,
    tenant: 'acq-gcp',
    sourceId: 'p.d.t',
    period: '2024-09',
    currency: 'USD',
    rows: 3,
    pages: 1,
    retries: 1,
    throttleWaits: 1,
    throttleWaitMs: 1000,
    ledger: '10.5',
    truth: '10.50',
    ...changes,
  };
  return { ...base, status: acquisitionStatus(base) };
};

describe('the acquisition stand-ins’ truths', () => {
  it('the GCP correction moves the month by exactly its own cost', () => {
    const rows = gcpMonthRows();
    const before = monthTotalsOf(rows, '202409').USD;
    const after = monthTotalsOf([...rows, gcpCorrectionRow()], '202409').USD;
    expect(new Big(after).minus(before).toString()).toBe('-1.2345');
  });

  it('the Azure first run totals the excerpt as the Python-computed sub-account totals add up; the correction run adds its row', async () => {
    const first = await azureRunTotals(azureFirstRun());
    const python = [
      '616.25927742',
      '37.01464657',
      '732.7757514',
      '107.8996464',
      '370.52873142',
      '856.61593704000001',
      '299.14796912',
    ].reduce((sum, total) => sum.plus(total), new Big(0));
    expect(first.rows).toBe(12);
    expect(new Big(first.totals.USD).eq(python)).toBe(true);
    const second = await azureRunTotals(azureCorrectionRun());
    expect(second.rows).toBe(13);
    expect(new Big(second.totals.USD).minus(first.totals.USD).toString()).toBe('17.25');
  });
});

describe('acquisitions in the verdict', () => {
  it('sums every account of the tenant-period in the currency', () => {
    const ledger = [
      {
        tenant: 'acq-gcp',
        accountId: 'a',
        period: '2024-09',
        currency: 'USD',
        total: '1.25',
        charges: 1,
      },
      {
        tenant: 'acq-gcp',
        accountId: 'b',
        period: '2024-09',
        currency: 'USD',
        total: '2.5',
        charges: 2,
      },
      {
        tenant: 'acq-gcp',
        accountId: 'b',
        period: '2024-10',
        currency: 'USD',
        total: '9',
        charges: 1,
      },
      {
        tenant: 'acme',
        accountId: 'a',
        period: '2024-09',
        currency: 'USD',
        total: '9',
        charges: 1,
      },
    ];
    expect(ledgerTotalOf(ledger, 'acq-gcp', '2024-09', 'USD')).toBe('3.75');
  });

  it('passes equal totals, fails a mismatch, a failed pass, no pass, and a correction that changed nothing', () => {
    expect(acquisitionsCheck([row({}), row({ pass: 2, ledger: '11', truth: '11' })]).ok).toBe(true);
    const mismatch = acquisitionsCheck([row({ ledger: '10.4' })]);
    expect(mismatch).toMatchObject({ ok: false });
    expect(mismatch.detail).toContain('ledger 10.4, truth 10.50');
    expect(acquisitionsCheck([row({ error: 'BigQuery answered 500' })]).detail).toContain(
      'failed: BigQuery answered 500',
    );
    expect(acquisitionsCheck([]).ok).toBe(false);
    expect(acquisitionsCheck([row({}), row({ pass: 2 })]).detail).toContain(
      'the correction did not change the truth',
    );
  });

  it('judges the sample without the acquisition tenants’ totals, executions and notifications', () => {
    const end = {
      ledger: [{ tenant: 'acq-gcp' }, { tenant: 'acme' }],
      notifications: [{ tenant: 'acq-azure' }],
      exports: [{ tenant: 'acq-gcp' }, { tenant: 'globex' }],
      exportNotifications: [{ tenant: 'acq-gcp' }],
      driftNotifications: [],
    } as unknown as RunEnd;
    const kept = withoutTenants(end, ['acq-gcp', 'acq-azure']);
    expect(kept.ledger).toEqual([{ tenant: 'acme' }]);
    expect(kept.notifications).toEqual([]);
    expect(kept.exports).toEqual([{ tenant: 'globex' }]);
    expect(kept.exportNotifications).toEqual([]);
    expect(withoutTenants(end, [])).toBe(end);
  });
});
