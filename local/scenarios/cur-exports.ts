/**
 * AWS Cost and Usage Report exports of the sample, beside the FOCUS ones (billing-exports.ts): a CUR 2.0
 * export (Data Exports layout, CSV.gz) for acme 2026-10 and a legacy CUR report (its own period-folder
 * layout, CSV) for globex 2026-11, each of accounts no FOCUS export of the sample covers, so their rows
 * are counted once whatever the precedence. Every row is booked to the truth: the verdict checks their
 * totals like any other. Its own random stream: the rest of the sample does not move.
 */
import Big from 'big.js';
import { DEFAULT_EXPORT_PROVIDER } from '../../contract/export-sources';
import { formatDecimal } from '../../lambda/core/decimal';
import { Rng } from './random';
import type { ExpectedExport, SampleExportDelivery, SampleExportRow } from './sample';
import type { TruthBuilder } from './truth';

const SERVICES = ['Amazon Elastic Compute Cloud', 'Amazon Simple Storage Service', 'AWS Lambda'];

const rowsOf = (rng: Rng, accounts: readonly string[], currency: string, count: number) =>
  Array.from({ length: count }, (): SampleExportRow => ({
    kind: 'valid',
    account: rng.pick(accounts),
    currency,
    // Up to 10 fraction digits, as CUR cost cells have.
    amount: `${rng.int(0, 99)}.${Array.from({ length: 10 }, () => rng.int(0, 9)).join('')}`,
    service: rng.chance(0.1) ? null : rng.pick(SERVICES),
    hour: rng.int(0, 27 * 24),
  }));

export const curExports = (
  seed: number,
  truth: TruthBuilder,
): { deliveries: SampleExportDelivery[]; expected: ExpectedExport[] } => {
  const rng = new Rng((seed ^ 0x43555232) >>> 0);
  const deliveries: SampleExportDelivery[] = [
    {
      tenant: 'acme',
      billingPeriod: '2026-10',
      executionId: 'acme-2026-10-cur2-e1',
      exportName: 'cur2',
      format: 'cur2',
      files: [{ name: 'cur2-00001.csv.gz', rows: rowsOf(rng, ['200000000042'], 'USD', 14) }],
      note: 'CUR 2.0 export (Data Exports layout)',
    },
    {
      tenant: 'globex',
      billingPeriod: '2026-11',
      // The legacy CUR's assembly id.
      executionId: '3f0c9a52-7d4e-4b8f-9a61-2c5e8b1d0a77',
      exportName: 'legacy-cur',
      format: 'legacy-cur',
      files: [
        {
          name: 'legacy-cur-1.csv',
          rows: rowsOf(rng, ['000000000777', '300000000021'], 'EUR', 12),
        },
      ],
      note: 'legacy CUR report (period folder layout)',
    },
  ];
  for (const delivery of deliveries)
    delivery.files.forEach((file) =>
      file.rows.forEach((row, index) => {
        if (row.amount === null) return;
        truth.book(
          `export|${delivery.tenant}|${delivery.billingPeriod}|${delivery.exportName}|${index}`,
          {
            tenant: delivery.tenant,
            accountId: row.account,
            period: delivery.billingPeriod,
            currency: row.currency,
            amount: formatDecimal(new Big(row.amount)),
            supersedes: DEFAULT_EXPORT_PROVIDER,
          },
        );
      }),
    );
  return {
    deliveries,
    expected: deliveries.map((delivery) => ({
      tenant: delivery.tenant,
      billingPeriod: delivery.billingPeriod,
      executionId: delivery.executionId,
      status: 'current',
      rows: delivery.files.reduce((sum, file) => sum + file.rows.length, 0),
      rejectedRows: 0,
    })),
  };
};
