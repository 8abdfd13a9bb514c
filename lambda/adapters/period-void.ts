/**
 * Voiding a charge in the ledger table: the charge marked voided, its amount taken off the totals of
 * the period it is booked in (core/period-actions.ts `voidDelta`) and an audit record, in one
 * transaction conditional on the charge as read.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PeriodError } from '../core/errors';
import { checkPeriodKey, checkReason, describePeriod, voidDelta } from '../core/period-actions';
import { bookingTarget } from '../core/periods';
import type { VoidRequest } from '../core/ports';
import { N, S, decimalOf } from './dynamo-kit/attributes';
import { auditPut, partitionOf, stateOf, transact, type PeriodTable } from './period-table';
import { CHARGE_PREFIX, ledgerKey, shardOf, voidSortKey } from './table-layout';
import { shardUpdate } from './total-shards';

export const voidCharge = async (
  t: PeriodTable,
  input: VoidRequest,
): Promise<{ outcome: 'voided' | 'already-voided'; bookedIn: string }> => {
  checkPeriodKey(input);
  const reason = checkReason(input.reason, 'void a charge');
  const table = t.table;
  const pk = partitionOf(input);
  if (!input.chargeSk.startsWith(CHARGE_PREFIX)) {
    throw new PeriodError('charge-not-found', `${input.chargeSk} is not a charge sort key`);
  }
  const digest = input.chargeSk.slice(CHARGE_PREFIX.length);
  for (let attempt = 1; attempt <= t.maxAttempts; attempt++) {
    if (attempt > 1) await t.pause(attempt - 1);
    const { Item: charge } = await t.client.send(
      new GetItemCommand({
        TableName: table,
        Key: ledgerKey(pk, input.chargeSk),
        ConsistentRead: true,
      }),
    );
    if (!charge) {
      throw new PeriodError(
        'charge-not-found',
        `no charge ${input.chargeSk} in ${describePeriod(input)}`,
      );
    }
    if (charge.voidedAt?.S) {
      return { outcome: 'already-voided', bookedIn: charge.voidBookedIn?.S ?? input.period };
    }
    if (charge.provisional?.BOOL === true) {
      throw new PeriodError(
        'provisional',
        `${input.chargeSk} in ${describePeriod(input)} is a late provisional charge: its export counts instead and it is in no total, so there is nothing to void`,
      );
    }
    const target = await bookingTarget(input.period, input.policy, (period) =>
      stateOf(t, { ...input, period }),
    );
    if (target.kind === 'rejected') {
      throw new PeriodError(
        'period-closed',
        `${describePeriod(input)} is closed and the late-charge policy is reject: reopen it to void the charge`,
      );
    }
    const at = new Date(t.now()).toISOString();
    const amount = decimalOf(charge.amount);
    const currency = charge.currency?.S ?? '';
    const codes = await transact(t, [
      {
        Update: {
          TableName: table,
          Key: ledgerKey(pk, input.chargeSk),
          UpdateExpression:
            'SET voidedAt = :at, voidedBy = :by, voidReason = :reason, voidBookedIn = :booked',
          ConditionExpression:
            'version = :version AND contentHash = :hash AND attribute_not_exists(voidedAt)',
          ExpressionAttributeValues: {
            ':at': S(at),
            ':by': S(input.by),
            ':reason': S(reason),
            ':booked': S(target.period),
            ':version': charge.version ?? N(0),
            ':hash': charge.contentHash ?? S(''),
          },
        },
      },
      shardUpdate(table, {
        pk: partitionOf({ ...input, period: target.period }),
        shard: shardOf(digest, t.totalShards),
        scope: { tenant: input.tenant, accountId: input.accountId, period: target.period },
        deltas: [
          voidDelta(
            {
              amount,
              currency,
              ...(charge.source?.S === undefined ? {} : { source: charge.source.S }),
              attributed: charge.attributed?.BOOL === true,
            },
            input.period,
            target,
          ),
        ],
      }),
      auditPut(t.table, pk, voidSortKey(digest), {
        tenant: S(input.tenant),
        accountId: S(input.accountId),
        period: S(input.period),
        action: S('void'),
        at: S(at),
        by: S(input.by),
        reason: S(reason),
        chargeSk: S(input.chargeSk),
        amount: N(amount),
        currency: S(currency),
        version: charge.version ?? N(0),
        bookedIn: S(target.period),
      }),
    ]);
    if (!codes) return { outcome: 'voided', bookedIn: target.period };
  }
  throw new PeriodError('busy', `${describePeriod(input)} is busy; try voiding the charge again`);
};
