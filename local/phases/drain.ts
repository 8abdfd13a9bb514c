/**
 * Phase 4, drain: wait until every poller is idle and every source queue is empty, twice in a row
 * (a release in flight can make a queue non-empty again), or fail after the timeout.
 */
import { sleep } from './abort';

export interface Drainable {
  idle: () => boolean;
  /** Messages left in the source queue, visible or in flight. */
  depth: () => Promise<number>;
}

export const drainUntilQuiet = async (options: {
  streams: readonly Drainable[];
  timeoutMs: number;
  signal?: AbortSignal;
  pollMs?: number;
}): Promise<void> => {
  const { streams, signal } = options;
  const pollMs = options.pollMs ?? 100;
  const deadline = Date.now() + options.timeoutMs;
  let quiet = 0;
  while (quiet < 2) {
    await sleep(pollMs, signal);
    if (Date.now() > deadline)
      throw new Error('the run did not drain in time (messages still in flight)');
    const idle = streams.every((stream) => stream.idle());
    const depths = idle ? await Promise.all(streams.map((stream) => stream.depth())) : [1];
    quiet = idle && depths.every((depth) => depth === 0) ? quiet + 1 : 0;
  }
};
