/**
 * Billing exports of the sample (AWS Data Exports FOCUS files): an execution for acme 2026-11 in three
 * parts (CSV, CSV.gz, Parquet) with `NULL` cells and bad rows, its manifest delivered twice, then a
 * re-export that restates, removes and adds rows; and one execution for globex 2026-10. The latest
 * execution of a period is the snapshot the ledger adds to the stream totals.
 *
 * It draws from its own random stream (the seed's other messages do not move) and only describes
 * rows; `writeSampleExports` (local/exports/files.ts) writes the files at run time.
 */
import Big from 'big.js';
import { DEFAULT_EXPORT_PROVIDER } from '../../contract/export-sources';
import { formatDecimal } from '../../lambda/core/decimal';
import { Rng } from './random';
import type {
  ExpectedExport,
  ExpectedExportChange,
  SampleExportDelivery,
  SampleExportRow,
} from './sample';
import type { TruthBuilder } from './truth';

const SERVICES = [
  'Amazon Elastic Compute Cloud',
  'Amazon Simple Storage Service',
  'AWS Lambda',
  'Amazon Relational Database Service',
] as const;

interface ExecutionSpec {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  files: { name: string; rows: SampleExportRow[] }[];
}

/** An amount with 15 fraction digits, as AWS exports write them (0.000000000000001 to 999.99…). */
const amountOf = (rng: Rng): string => {
  const whole = rng.int(0, 999);
  const fraction = Array.from({ length: 15 }, () => rng.int(0, 9)).join('');
  return `${whole}.${fraction}`;
};

const validRow = (rng: Rng, account: string, currency: string): SampleExportRow => ({
  kind: 'valid',
  account,
  currency,
  amount: amountOf(rng),
  service: rng.chance(0.15) ? null : rng.pick(SERVICES),
  hour: rng.int(0, 27 * 24),
});

const rowsFor = (rng: Rng, accounts: readonly string[], currency: string, count: number) =>
  Array.from({ length: count }, () => validRow(rng, rng.pick(accounts), currency));

const bad = (kind: 'null-cost' | 'malformed', account: string): SampleExportRow => ({
  kind,
  account,
  currency: 'USD',
  amount: null,
  service: SERVICES[0],
  hour: 5,
});

/** The re-export: every 4th row restated, every 5th removed, three rows added. */
const reexport = (rng: Rng, rows: readonly SampleExportRow[], accounts: readonly string[]) => {
  const next: SampleExportRow[] = [];
  rows.forEach((row, index) => {
    if (row.kind === 'valid' && index % 5 === 4) return;
    next.push(row.kind === 'valid' && index % 4 === 1 ? { ...row, amount: amountOf(rng) } : row);
  });
  return [...next, ...rowsFor(rng, accounts, 'USD', 3)];
};

const executionsOf = (seed: number): ExecutionSpec[] => {
  const rng = new Rng((seed ^ 0x45585054) >>> 0);
  // 200000000011 also has stream charges (the sum rule); 200000000099 is billed by exports only.
  const acme = ['200000000011', '200000000099'];
  const first: ExecutionSpec = {
    tenant: 'acme',
    billingPeriod: '2026-11',
    executionId: 'acme-2026-11-e1',
    files: [
      {
        name: 'part-1.csv',
        rows: [
          ...rowsFor(rng, acme, 'USD', 12),
          bad('null-cost', acme[0]),
          bad('malformed', acme[1]),
        ],
      },
      {
        name: 'part-2.csv.gz',
        rows: [...rowsFor(rng, acme, 'USD', 10), bad('malformed', acme[0])],
      },
      {
        name: 'part-3.parquet',
        rows: [...rowsFor(rng, acme, 'USD', 8), bad('null-cost', acme[1])],
      },
    ],
  };
  const second: ExecutionSpec = {
    ...first,
    executionId: 'acme-2026-11-e2',
    files: first.files.map((file) => ({ ...file, rows: reexport(rng, file.rows, acme) })),
  };
  const globex: ExecutionSpec = {
    tenant: 'globex',
    billingPeriod: '2026-10',
    executionId: 'globex-2026-10-e1',
    files: [{ name: 'part-1.csv', rows: rowsFor(rng, ['300000000021', '300000000088'], 'EUR', 6) }],
  };
  return [first, second, globex];
};

const periodKey = (spec: { tenant: string; billingPeriod: string }) =>
  `${spec.tenant}|${spec.billingPeriod}`;

const totalsByAccount = (spec: ExecutionSpec): Map<string, Big> => {
  const totals = new Map<string, Big>();
  for (const row of spec.files.flatMap((file) => file.rows))
    if (row.kind === 'valid' && row.amount !== null) {
      const key = `${row.account}|${row.currency}`;
      totals.set(key, (totals.get(key) ?? new Big(0)).plus(row.amount));
    }
  return totals;
};

/** Per account-currency, what `after` changed against `before` (unchanged ones left out). */
const changesOf = (before: ExecutionSpec, after: ExecutionSpec): ExpectedExportChange[] => {
  const old = totalsByAccount(before);
  const now = totalsByAccount(after);
  return [...new Set([...old.keys(), ...now.keys()])]
    .sort()
    .map((key) => {
      const [accountId, currency] = key.split('|');
      const delta = (now.get(key) ?? new Big(0)).minus(old.get(key) ?? new Big(0));
      return {
        tenant: after.tenant,
        billingPeriod: after.billingPeriod,
        accountId,
        currency,
        delta: formatDecimal(delta),
      };
    })
    .filter((change) => change.delta !== '0');
};

/**
 * The deliveries in order (acme e1, its manifest again, globex, acme e2), with the expected executions,
 * and the rows of each period's latest execution booked to the truth.
 */
export const billingExports = (
  seed: number,
  truth: TruthBuilder,
): {
  deliveries: SampleExportDelivery[];
  expected: ExpectedExport[];
  changes: ExpectedExportChange[];
} => {
  const [first, second, globex] = executionsOf(seed);
  const order = [first, first, globex, second];
  const latest = new Map(order.map((spec) => [periodKey(spec), spec.executionId]));
  const expected: ExpectedExport[] = [first, second, globex].map((spec) => {
    const rows = spec.files.flatMap((file) => file.rows);
    return {
      tenant: spec.tenant,
      billingPeriod: spec.billingPeriod,
      executionId: spec.executionId,
      status: latest.get(periodKey(spec)) === spec.executionId ? 'current' : 'superseded',
      rows: rows.length,
      rejectedRows: rows.filter((row) => row.kind !== 'valid').length,
    };
  });
  for (const spec of [second, globex])
    spec.files.forEach((file) =>
      file.rows.forEach((row, index) => {
        if (row.kind !== 'valid' || row.amount === null) return;
        truth.book(`export|${spec.tenant}|${spec.billingPeriod}|${file.name}|${index}`, {
          tenant: spec.tenant,
          accountId: row.account,
          period: spec.billingPeriod,
          currency: row.currency,
          amount: formatDecimal(new Big(row.amount)),
          supersedes: DEFAULT_EXPORT_PROVIDER,
        });
      }),
    );
  return {
    deliveries: order.map((spec, index) => ({
      ...spec,
      note:
        index === 1
          ? 'the same manifest delivered again'
          : spec === second
            ? 're-export: restated, removed and added rows'
            : 'export',
    })),
    expected,
    changes: changesOf(first, second),
  };
};
