/**
 * A sample being generated: one seeded random stream, the messages placed so far (each at a random
 * position in the publish order) and the truth they add up to. Scenarios take a draft and add to it;
 * the order in which they draw from `rng` is what makes a seed reproduce its sample.
 */
import { Rng } from './random';
import type { GroundTruth, Sample, SampleMessage } from './sample';
import { TruthBuilder } from './truth';

interface Placed {
  position: number;
  message: SampleMessage;
}

export class SampleDraft {
  readonly rng: Rng;
  readonly truth = new TruthBuilder();
  private readonly placed: Placed[] = [];
  private resources = 0;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  /** Places a message at `position` in [0, 1) (default: random) and returns the position. */
  place(message: SampleMessage, position = this.rng.next()): number {
    this.placed.push({ position, message });
    return position;
  }

  /** Consecutive positions: published within moments of each other, in this order. */
  placeInSequence(messages: SampleMessage[]): void {
    const start = this.rng.next() * 0.9;
    messages.forEach((message, index) => this.place(message, start + index * 1e-9));
  }

  /** A resource number no other charge of this sample uses. */
  nextResource(): number {
    return ++this.resources;
  }

  get size(): number {
    return this.placed.length;
  }

  build(
    billing: Pick<Sample, 'exports'> & {
      expected: GroundTruth['exports'];
      changes: GroundTruth['exportChanges'];
    } = { exports: [], expected: [], changes: [] },
  ): Sample {
    return {
      messages: [...this.placed]
        .sort((a, b) => a.position - b.position)
        .map((entry) => entry.message),
      exports: billing.exports,
      truth: {
        ...this.truth.build(),
        exports: billing.expected,
        exportChanges: billing.changes,
      },
    };
  }
}
