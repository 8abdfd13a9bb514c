/** Live progress every 100 ms while messages are published, drained and redriven. */
import type { ProgressSink, ProgressSnapshot } from '../report/progress';
import { streamReport } from '../report/run-report';
import type { StreamWiring } from './wiring';

export type RunPhase = 'run' | 'redrive';

export const progressSnapshot = (
  phase: RunPhase,
  published: number,
  total: number,
  wirings: readonly Pick<StreamWiring, 'stream' | 'poller'>[],
): ProgressSnapshot => ({
  phase,
  published,
  total,
  deliveries: wirings.reduce((sum, w) => sum + w.poller.stats.deliveries, 0),
  outcomes: Object.fromEntries(
    wirings.map((w) => [w.stream, { ...streamReport(w.stream, w.poller.stats) }]),
  ),
  deadLetters: wirings.reduce(
    (sum, w) =>
      sum +
      w.poller.stats.outcomes.rejected +
      w.poller.stats.outcomes.conflict +
      w.poller.stats.exhausted,
    0,
  ),
});

export class ProgressTicker {
  private phase: RunPhase = 'run';
  private readonly timer: NodeJS.Timeout;

  constructor(options: {
    progress: ProgressSink;
    wirings: readonly StreamWiring[];
    total: number;
    published: () => number;
    /** Poller internals on stderr every second (BILLING_DEDUP_LOCAL_DEBUG=1). */
    debug?: boolean;
  }) {
    const { progress, wirings, total, published } = options;
    const started = Date.now();
    let ticks = 0;
    this.timer = setInterval(() => {
      progress.update(progressSnapshot(this.phase, published(), total, wirings));
      if (options.debug && ++ticks % 10 === 0)
        process.stderr.write(
          `debug t=${Date.now() - started} published=${published()} ${wirings.map((w) => `${w.stream} ${JSON.stringify(w.poller.debugState())} deliveries=${w.poller.stats.deliveries}`).join(' ')}\n`,
        );
    }, 100);
  }

  enter(phase: RunPhase): void {
    this.phase = phase;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
