/** What a run started, stopped in reverse order whatever happens; a failing step never stops the rest. */
export class Cleanups {
  private readonly steps: (() => unknown)[] = [];

  add(step: () => unknown): void {
    this.steps.push(step);
  }

  async runAll(): Promise<void> {
    for (const step of this.steps.reverse()) {
      try {
        await step();
      } catch {
        // keep stopping the rest
      }
    }
    this.steps.length = 0;
  }
}
