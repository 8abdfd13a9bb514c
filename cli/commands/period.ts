import type { PeriodStatus } from '../../lambda/core/ports';
import { EXIT, UsageError } from '../errors';
import { json, plural } from '../format';
import { validatePeriod, validateTenant } from '../operations/ledger';
import {
  callerPrincipal,
  periodKeyOf,
  periodPort,
  requireReason,
  withPeriodErrors,
  type PeriodFlags,
} from '../operations/periods';
import type { Session } from '../session';

export interface PeriodActionFlags extends PeriodFlags {
  reason?: string;
  json?: boolean;
  /** `close` only: close an account-period with no data. */
  force?: boolean;
}

export interface PeriodStatusFlags {
  tenant: string;
  account?: string;
  period?: string;
  json?: boolean;
}

/** The close reason when `period close` is given none. */
export const DEFAULT_CLOSE_REASON = 'closed by an operator (billing-dedup period close)';

const totalsText = (totals: PeriodStatus['totalsAtClose']): string =>
  totals.length === 0
    ? 'nothing booked'
    : totals.map((t) => `${t.currency} ${t.total} (${plural(t.charges, 'charge')})`).join(', ');

/** One period as a few lines: state, who/when/why, the statement at close, what was booked after it. */
export const describePeriod = (status: PeriodStatus): string => {
  const lines = [
    `${status.tenant} ${status.accountId} ${status.period}: ${status.state}${status.closeCount > 1 ? ` (closed ${status.closeCount} times)` : ''}`,
  ];
  if (status.closeCount > 0 && status.closedAt)
    lines.push(
      `  closed ${status.closedAt} by ${status.closedBy ?? '?'}: ${status.closeReason ?? ''}`,
      `  total at close: ${totalsText(status.totalsAtClose)}`,
    );
  if (status.reopenedAt)
    lines.push(
      `  reopened ${status.reopenedAt} by ${status.reopenedBy ?? '?'}: ${status.reopenReason ?? ''}`,
    );
  for (const c of status.correctionsBookedLater)
    lines.push(
      `  correction booked in ${c.bookedIn}: ${c.currency} ${c.total} (${plural(c.charges, 'charge')})`,
    );
  return lines.join('\n');
};

/** `billing-dedup period close|reopen`: one transition, recorded with the caller's principal. */
export const periodActionCommand = async (
  action: 'close' | 'reopen',
  flags: PeriodActionFlags,
  session: Session,
): Promise<number> => {
  const key = periodKeyOf(flags);
  const reason =
    action === 'reopen'
      ? requireReason(flags.reason, 'period reopen')
      : flags.reason?.trim() || DEFAULT_CLOSE_REASON;
  const table = await session.resources.ledgerTable();
  const by = await callerPrincipal(session);
  const periods = periodPort(session.clients.dynamo, table, session.now);
  const status = await withPeriodErrors(() =>
    action === 'close'
      ? periods.close(key, by, reason, { force: flags.force === true })
      : periods.reopen(key, by, reason),
  );
  const out = session.io.stdout;
  if (flags.json) out.write(json({ table, ...status }));
  else
    out.write(
      `${action === 'close' ? 'Closed' : 'Reopened'} billing period ${key.period} of tenant ${key.tenant}, account ${key.accountId}.\n${describePeriod(status)}\n`,
    );
  return EXIT.ok;
};

/** `billing-dedup period status`: one period, or every period of a tenant (and account). */
export const periodStatusCommand = async (
  flags: PeriodStatusFlags,
  session: Session,
): Promise<number> => {
  const tenant = validateTenant(flags.tenant);
  const period = flags.period === undefined ? undefined : validatePeriod(flags.period);
  const accountId = flags.account?.trim();
  if (flags.account !== undefined && !accountId)
    throw new UsageError('--account must not be blank');
  const table = await session.resources.ledgerTable();
  const periods = periodPort(session.clients.dynamo, table);
  const statuses = await withPeriodErrors(async () =>
    accountId && period
      ? [await periods.status({ tenant, accountId, period })]
      : (await periods.list({ tenant, ...(accountId ? { accountId } : {}) })).filter(
          (status) => !period || status.period === period,
        ),
  );
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ table, periods: statuses }));
    return EXIT.ok;
  }
  if (statuses.length === 0) {
    out.write(
      `No billing periods for tenant ${tenant}${accountId ? ` account ${accountId}` : ''}${period ? ` period ${period}` : ''}.\n`,
    );
    return EXIT.ok;
  }
  const closed = statuses.filter((status) => status.state === 'closed').length;
  out.write(
    `${plural(statuses.length, 'billing period')} (${closed} closed, ${statuses.length - closed} open):\n\n${statuses.map(describePeriod).join('\n\n')}\n`,
  );
  return EXIT.ok;
};
