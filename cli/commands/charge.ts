import type { LateChargePolicy } from '../../lambda/core/ports';
import { EXIT, UsageError } from '../errors';
import { json } from '../format';
import {
  LATE_CHARGE_POLICY_CHOICES,
  callerPrincipal,
  findCharge,
  periodKeyOf,
  periodPort,
  requireReason,
  withPeriodErrors,
  type PeriodFlags,
} from '../operations/periods';
import type { Session } from '../session';

export interface ChargeVoidFlags extends PeriodFlags {
  charge: string;
  reason?: string;
  policy?: LateChargePolicy;
  json?: boolean;
}

/** The deployed late-charge policy (stack output), unless `--policy` says otherwise. */
const policyOf = async (flags: ChargeVoidFlags, session: Session): Promise<LateChargePolicy> => {
  if (flags.policy) return flags.policy;
  const deployed = await session.resources.lateChargePolicy();
  const policy = LATE_CHARGE_POLICY_CHOICES.find((choice) => choice === deployed);
  if (!policy)
    throw new UsageError(
      'Unknown late-charge policy: pass --policy roll-forward|reject (the stage’s lateChargePolicy), or --stack so it is read from the stack',
    );
  return policy;
};

/**
 * `billing-dedup charge void`: reverses one charge (its amount leaves the totals of its period, or of the
 * earliest open period after it when that one is closed and the policy rolls forward). The charge stays,
 * marked voided, with an audit record; later copies or versions of it change nothing.
 */
export const chargeVoidCommand = async (
  flags: ChargeVoidFlags,
  session: Session,
): Promise<number> => {
  const key = periodKeyOf(flags);
  const reason = requireReason(flags.reason, 'charge void');
  const table = await session.resources.ledgerTable();
  const policy = await policyOf(flags, session);
  const charge = await findCharge(session.clients.dynamo, table, key, flags.charge);
  const by = await callerPrincipal(session);
  const result = await withPeriodErrors(() =>
    periodPort(session.clients.dynamo, table).voidCharge({
      ...key,
      chargeSk: charge.sk,
      by,
      reason,
      policy,
    }),
  );
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ table, ...key, charge, policy, by, reason, ...result }));
    return EXIT.ok;
  }
  const what = `${charge.identityKind}:${charge.identityId} (${charge.amount} ${charge.currency}, ${charge.sk})`;
  out.write(
    result.outcome === 'already-voided'
      ? `Charge ${what} was already voided: nothing changed.\n`
      : `Voided charge ${what} of tenant ${key.tenant}, account ${key.accountId}, period ${key.period}; ` +
          `its amount left the totals of ${result.bookedIn}${result.bookedIn === key.period ? '' : ` (${key.period} is closed: booked as a correction of it)`}.\n`,
  );
  return EXIT.ok;
};
