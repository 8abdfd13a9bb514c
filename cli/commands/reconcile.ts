import { EXIT, UsageError } from '../errors';
import { json, plural, table } from '../format';
import { isPeriod } from '../../lambda/core/periods';
import { summarize } from '../../lambda/core/reconciliation/reconcile';
import { runReconcile, storedReconciliations } from '../operations/reconcile';
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
  const records = ran?.records ?? (await storedReconciliations(dynamo, ledgerTable, options));
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ period: flags.period, records, summary: summarize(records)[0] ?? null }));
    return EXIT.ok;
  }
  if (records.length === 0) {
    out.write(
      `No reconciliation of ${flags.period}${tenant ? ` for tenant ${tenant}` : ''} yet (run with --run, or wait for the nightly run).\n`,
    );
    return EXIT.ok;
  }
  out.write(
    `Reconciliation of ${flags.period}${tenant ? `, tenant ${tenant}` : ''}: run of ${records[0].runDate} (${records[0].checkedAt})` +
      `${ran ? `, ${plural(ran.providerRequests, 'Cost Explorer request')}` : ''}\n\n`,
  );
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
  return EXIT.ok;
};
