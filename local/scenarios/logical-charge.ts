/** One charge as the ledger should see it, published once or several times in other spellings. */
import { COST_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import type { ChargeEffect, Rendered } from './sample';

export interface LogicalCharge {
  identity: string;
  effect: ChargeEffect;
  /** Renders one publish of this charge; `variant` > 0 are duplicates (other spellings, same content). */
  render: (variant: number) => Rendered;
}

/**
 * Books the charge and places its first publish plus, sometimes, duplicates after it: publisher
 * retries (same dedup id: dropped by the FIFO topic) and replays (new dedup id: the consumer's dedup
 * must catch them). Returns the first publish's position.
 */
export const publishCharge = (draft: SampleDraft, charge: LogicalCharge, note: string): number => {
  const { rng } = draft;
  draft.truth.book(charge.identity, charge.effect);
  const first = draft.place({ topic: COST_STREAM, ...charge.render(0), note });
  if (rng.chance(0.35)) {
    for (let copy = 1; copy <= rng.int(1, 2); copy++) {
      const replay = rng.chance(0.5);
      draft.place(
        {
          topic: COST_STREAM,
          ...charge.render(copy),
          ...(replay ? { deduplicationId: `replay-${rng.uuid()}` } : {}),
          note: `${note} (${replay ? 'replay' : 'publisher retry'})`,
        },
        first + (1 - first) * rng.next(),
      );
    }
  }
  return first;
};
