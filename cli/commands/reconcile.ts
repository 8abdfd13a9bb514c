import { EXIT, UsageError } from '../errors';
import { json, plural, table } from '../format';
import { isPeriod } from '../../lambda/core/periods';
import { summarize } from '../../lambda/core/reconciliation/reconcile';
import { runReconcile, storedReconciliations } from '../operations/reconcile';
import type { FileRows } from '../../lambda/core/reconciliation/completeness';
import type {
  StoredCompleteness,
  StoredReconciliation,
} from '../../lambda/adapters/reconciliation-records';
import { validateTenant } from '../operations/ledger';
import type { Session } from '../session';

export interface ReconcileFlags {
  period: string;
  tenant?: string;
  json?: boolean;
  run?: boolean;
  tolerancePercent?: string;
  floor?: string;
  payerTenant?: string;
}

/**
 * `billing-dedup reconcile --period YYYY-MM [--tenant t] [--json] [--run]`: the period's reconciliation
 * table (latest stored run), or a run now with `--run`. Exit 0 whatever the statuses: the table is the
 * answer; the nightly alarm is what pages.
 */
export const reconcileCommand = async (
  flags: ReconcileFlags,
  session: Session,
): Promise<number> => {
  if (!isPeriod(flags.period))
    throw new UsageError(`--period must be YYYY-MM, got ${JSON.stringify(flags.period)}`);
  const tenant = flags.tenant === undefined ? undefined : validateTenant(flags.tenant);
  const ledgerTable = await session.resources.ledgerTable();
  const { dynamo } = session.clients;
  const options = {
    period: flags.period,
    ...(tenant ? { tenant } : {}),
    ...(flags.tolerancePercent ? { tolerancePercent: flags.tolerancePercent } : {}),
    ...(flags.floor ? { floor: flags.floor } : {}),
    ...(flags.payerTenant ? { payerTenant: flags.payerTenant } : {}),
  };
  const ran = flags.run
    ? await runReconcile(dynamo, session.clients.costExplorer, ledgerTable, session.now(), options)
    : undefined;
  const { records, completeness } =
    ran ?? (await storedReconciliations(dynamo, ledgerTable, options));
  const out = session.io.stdout;
  if (flags.json) {
    out.write(
      json({ period: flags.period, records, completeness, summary: summarize(records)[0] ?? null }),
    );
    return EXIT.ok;
  }
  if (records.length === 0 && completeness.length === 0) {
    out.write(
      `No reconciliation of ${flags.period}${tenant ? ` for tenant ${tenant}` : ''} yet (run with --run, or wait for the nightly run).\n`,
    );
    return EXIT.ok;
  }
  const [first] = [...records, ...completeness];
  out.write(
    `Reconciliation of ${flags.period}${tenant ? `, tenant ${tenant}` : ''}: run of ${first.runDate} (${first.checkedAt})` +
      `${ran ? `, ${plural(ran.providerRequests, 'Cost Explorer request')}` : ''}\n\n`,
  );
  if (records.length > 0) writeRecords(out, records);
  if (completeness.length > 0) writeCompleteness(out, completeness);
  return EXIT.ok;
};

const writeRecords = (out: Session['io']['stdout'], records: readonly StoredReconciliation[]) => {
  out.write(
    table(
      [
        'tenant',
        'account',
        'currency',
        'ledger',
        'provider',
        'difference',
        'ratio',
        'status',
        'final',
      ],
      records.map((r) => [
        r.tenant,
        r.accountId,
        r.currency,
        r.ledger,
        r.provider,
        r.difference,
        r.ratio ?? '-',
        r.pages ? `${r.status} (pages)` : r.status,
        r.final ? 'final' : 'estimated',
      ]),
      ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'left', 'left'],
    ),
  );
  const [summary] = summarize(records);
  out.write(
    `\n${Object.entries(summary.counts)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')}; ${summary.paging} paging${
      summary.largest
        ? `; largest difference ${summary.largest.currency} ${summary.largest.difference} (${summary.largest.tenant} ${summary.largest.accountId})`
        : ''
    }\n`,
  );
};

/** The counted export snapshots' completeness: files and rows read against what the files hold. */
const writeCompleteness = (
  out: Session['io']['stdout'],
  records: readonly StoredCompleteness[],
) => {
  out.write('\nExport completeness (rows read against the rows the data files hold):\n\n');
  out.write(
    table(
      [
        'tenant',
        'account',
        'source',
        'execution',
        'files read',
        'rows read',
        'difference',
        'status',
      ],
      records.map(({ completeness: c, ...r }) => [
        r.tenant,
        r.accountId,
        r.source,
        r.executionId,
        `${c.filesRead}/${c.filesPlanned}`,
        `${c.rowsRead}/${c.rowsExpected}`,
        String(c.rowsRead - c.rowsExpected),
        r.pages ? `${c.status} (pages)` : c.status,
      ]),
      ['left', 'left', 'left', 'left', 'right', 'right', 'right', 'left'],
    ),
  );
  const files = new Map<string, FileRows>();
  for (const record of records.filter((r) => r.pages))
    for (const file of record.completeness.files) files.set(file.key, file);
  for (const file of files.values())
    out.write(
      `  ${file.key}: read ${file.read} of ${file.expected}${file.problem ? ` (${file.problem})` : ''}\n`,
    );
};
