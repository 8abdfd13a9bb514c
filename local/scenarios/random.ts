import { createHash } from 'node:crypto';

/**
 * The repository's one seeded random generator (mulberry32: small, fast, deterministic): the sample
 * generator, the fault plan, the benchmark workloads and crash plan, and the generated test exports
 * all draw from it, so the same seed always gives the same sequence.
 */

/** Uniform draws in [0, 1) from a 32-bit seed (taken as `seed >>> 0`; 0 is a valid seed here). */
export const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A seeded stream with helpers: deterministic streams for the sample generator and the fault plan. */
export class Rng {
  private readonly draw: () => number;

  /** Seed 0 (after `>>> 0`) starts from 0x9e3779b9 instead. */
  constructor(seed: number) {
    this.draw = mulberry32(seed >>> 0 || 0x9e3779b9);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.draw();
  }

  int(minInclusive: number, maxInclusive: number): number {
    return minInclusive + Math.floor(this.next() * (maxInclusive - minInclusive + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /** A v4-shaped UUID from this stream (deterministic). */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16)).join(
      '',
    );
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

/** A deterministic draw in [0, 1) from a seed and a key: the same key always gets the same number. */
export const keyedDraw = (seed: number, ...key: (string | number)[]): number => {
  const digest = createHash('sha256')
    .update(`${seed}\u0000${key.join('\u0000')}`)
    .digest();
  return digest.readUInt32BE(0) / 4294967296;
};
