/**
 * eventId conflicts: per tenant, a canonical event and, later in the same message group, the same
 * eventId with another amount. Whichever the ledger books first wins; the other lands in the DLQ.
 */
import Big from 'big.js';
import { COST_STREAM } from '../../contract/streams';
import { formatDecimal } from '../../lambda/core/decimal';
import { canonicalEvent } from './canonical-events';
import type { SampleDraft } from './draft';
import { MONTHS, TENANTS } from './tenants';

export const eventIdConflicts = (draft: SampleDraft): void => {
  for (const spec of TENANTS) {
    const account = spec.awsAccounts[0];
    const original = canonicalEvent(draft, spec, account, MONTHS[1], 500 + draft.truth.conflicts);
    // No duplicates of these two: the truth allows exactly one of them in the DLQ.
    draft.truth.book(original.identity, original.effect);
    const text = original.render(0).message;
    const position = draft.place({
      topic: COST_STREAM,
      message: text,
      note: 'canonical event (conflict original)',
    });
    const changedAmount = formatDecimal(new Big(original.effect.amount).plus('1.5'));
    const conflicting = JSON.stringify({ ...JSON.parse(text), amount: changedAmount });
    draft.place(
      { topic: COST_STREAM, message: conflicting, note: 'canonical event (conflicting copy)' },
      position + (1 - position) * draft.rng.next(),
    );
    draft.truth.conflict({
      first: { message: text, effect: original.effect },
      second: { message: conflicting, effect: { ...original.effect, amount: changedAmount } },
    });
  }
};
