/**
 * Billing periods from the CLI: who the caller is (recorded on every close, reopen and void), the period
 * port of the ledger table (lambda/adapters/dynamo-periods.ts, the same code the local run and the
 * auto-close function use), and which charge `charge void --charge` names.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { DynamoPeriods } from '../../lambda/adapters/dynamo-periods';
import { readPartitionCharges, type LedgerCharge } from '../../lambda/adapters/ledger-reader';
import { CHARGE_PREFIX } from '../../lambda/adapters/table-layout';
import { PeriodError } from '../../lambda/core/errors';
import type { LateChargePolicy, PeriodKey, PeriodPort } from '../../lambda/core/ports';
import { CliError, EXIT, UsageError } from '../errors';
import type { Session } from '../session';
import { statementPartitionKey, validatePeriod, validateTenant } from './ledger';

export const LATE_CHARGE_POLICY_CHOICES: readonly LateChargePolicy[] = ['roll-forward', 'reject'];

export interface PeriodFlags {
  tenant: string;
  account: string;
  period: string;
}

/** The key as the consumer books it (tenant normalized), or a usage error naming the flag. */
export const periodKeyOf = (flags: PeriodFlags): PeriodKey => {
  const accountId = flags.account.trim();
  if (accountId === '') throw new UsageError('--account must not be blank');
  return {
    tenant: validateTenant(flags.tenant),
    accountId,
    period: validatePeriod(flags.period),
  };
};

export const requireReason = (reason: string | undefined, command: string): string => {
  const text = reason?.trim() ?? '';
  if (text === '')
    throw new UsageError(`${command} needs --reason "<why>": it is kept in the audit record`);
  return text;
};

/** The period port of the ledger table; `now` decides whether a month has ended (the session's clock). */
export const periodPort = (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  now?: () => number,
): PeriodPort => new DynamoPeriods({ client: dynamo, ledgerTable, ...(now ? { now } : {}) });

/**
 * Who is acting: the caller's IAM principal (STS GetCallerIdentity). Against the local run (its outputs
 * file), where there is no IAM, the local user name.
 */
export const callerPrincipal = async (session: Session): Promise<string> => {
  if (session.localEndpoints) return `local:${session.io.env.USER ?? 'operator'}`;
  const identity = await session.clients.sts.send(new GetCallerIdentityCommand({}));
  if (!identity.Arn)
    throw new CliError('STS GetCallerIdentity returned no ARN: cannot record who acts');
  return identity.Arn;
};

/** What an operator can do about a refused close, after the reason. */
const NEXT_STEP: Partial<Record<PeriodError['code'], string>> = {
  'no-data':
    ': nothing to close. If the month must be final before any data arrives (later data then follows the late-charge policy), close it with --force',
};

/** A period error as the operator reads it; every one exits 1 except a missing reason (usage, 2). */
export const asCliError = (error: unknown): unknown => {
  if (!(error instanceof PeriodError)) return error;
  return new CliError(
    `${error.message}${NEXT_STEP[error.code] ?? ''}`,
    error.code === 'reason-required' || error.code === 'invalid-period'
      ? EXIT.usage
      : EXIT.operational,
  );
};

export const withPeriodErrors = async <T>(body: () => Promise<T>): Promise<T> => {
  try {
    return await body();
  } catch (error) {
    throw asCliError(error);
  }
};

/**
 * The charge `--charge` names in the period's partition: its sort key (`CHARGE#<digest>`), a unique prefix
 * of its digest (at least 8 hex digits), or its identity id (event id, line item id…) when only one
 * charge has it.
 */
export const findCharge = async (
  dynamo: DynamoDBClient,
  table: string,
  key: PeriodKey,
  ref: string,
): Promise<LedgerCharge> => {
  const wanted = ref.trim();
  if (wanted === '') throw new UsageError('--charge must not be blank');
  const charges = await readPartitionCharges(dynamo, table, statementPartitionKey(key));
  const digest = wanted.startsWith(CHARGE_PREFIX) ? wanted.slice(CHARGE_PREFIX.length) : wanted;
  const matches = charges.filter(
    (charge) =>
      charge.sk === wanted ||
      (/^[0-9a-f]{8,64}$/.test(digest) && charge.sk.startsWith(`${CHARGE_PREFIX}${digest}`)) ||
      charge.identityId === wanted,
  );
  const where = `tenant ${key.tenant}, account ${key.accountId}, period ${key.period}`;
  if (matches.length === 0)
    throw new CliError(
      `No charge "${wanted}" in ${where}: pass its sort key (billing-dedup ledger … --json shows "sk") or its identity id`,
    );
  if (matches.length > 1)
    throw new UsageError(
      `"${wanted}" names ${matches.length} charges in ${where} (${matches
        .slice(0, 3)
        .map((charge) => charge.sk)
        .join(', ')}…): pass the sort key of the one to void`,
    );
  return matches[0];
};
