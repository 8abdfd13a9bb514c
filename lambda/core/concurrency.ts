/**
 * Two small async primitives. Hand-written because the maintained libraries for them (p-limit, p-queue)
 * are ESM-only and the handlers and tests load as CommonJS.
 */

/** Runs `task` over `items` with at most `limit` in flight; results keep the input order. */
export const mapWithConcurrency = async <T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> => {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
};

/** Serializes work per key: a task for key K starts only after earlier tasks for K have settled. */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<R>(key: string, task: () => Promise<R>): Promise<R> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return current;
  }
}
