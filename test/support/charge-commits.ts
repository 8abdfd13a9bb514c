import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge } from '../../lambda/core/cost-processor';
import type { ChargeCommit } from '../../lambda/core/ports';
import { costEvent, type CostEventInput } from './cost-events';
import { sqsRecord } from './sqs-events';

/** The commit of a new charge as the cost processor builds it: its amount added to its currency's total. */
export const newChargeCommit = (input: CostEventInput): ChargeCommit => {
  const charge = parseCharge(ledgerLayout(), sqsRecord(costEvent(input)));
  return {
    ref: charge.ref,
    event: charge.event,
    contentHash: charge.contentHash,
    identity: charge.identity,
    totals: [{ currency: charge.event.currency, delta: charge.event.amount, charges: 1 }],
  };
};
