/**
 * Progress display on stderr: a cli-progress bar (rate and ETA) on a terminal, plain lines otherwise
 * (CI logs, pipes): one at every 10 % step, at most one per 5 s in between, and one at the end.
 */
import { SingleBar } from 'cli-progress';
import type { Output } from './context';
import { formatDuration } from './format';

export interface Progress {
  /** `done` of `total` (total may change, e.g. a move task learns its size). */
  update(done: number, total?: number, note?: string): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  unit: string;
  total: number;
  now: () => number;
  /** Default: `stream.isTTY`. */
  tty?: boolean;
  /** No output at all (`--no-progress`, `--json`). */
  silent?: boolean;
}

const rateOf = (done: number, elapsedMs: number): number =>
  elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;

export const createProgress = (stream: Output, options: ProgressOptions): Progress => {
  if (options.silent) return { update: () => undefined, stop: () => undefined };
  const started = options.now();
  let total = options.total;
  let done = 0;
  let note = '';
  const speed = () => rateOf(done, options.now() - started).toFixed(1);

  if (options.tty ?? stream.isTTY === true) {
    const bar = new SingleBar({
      stream: stream as unknown as NodeJS.WritableStream,
      format: `${options.label} [{bar}] {percentage}% | {value}/{total} ${options.unit} | {speed} ${options.unit}/s | ETA {eta_formatted}{note}`,
      hideCursor: true,
      etaBuffer: 50,
      fps: 10,
    });
    bar.start(total, 0, { speed: '0.0', note: '' });
    return {
      update(value, newTotal, newNote) {
        done = value;
        if (newTotal !== undefined && newTotal !== total) {
          total = newTotal;
          bar.setTotal(newTotal);
        }
        if (newNote !== undefined) note = newNote;
        bar.update(value, { speed: speed(), note: note ? ` | ${note}` : '' });
      },
      stop() {
        bar.stop();
      },
    };
  }

  let lastStep = 0;
  let lastLine = started;
  const print = () => {
    const elapsed = options.now() - started;
    const rate = rateOf(done, elapsed);
    const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
    const eta = rate > 0 ? formatDuration(((total - done) * 1000) / rate) : '?';
    stream.write(
      `${options.label}: ${done}/${total} ${options.unit} (${percent}%) ${rate.toFixed(1)} ${options.unit}/s ETA ${eta}${note ? `, ${note}` : ''}\n`,
    );
    lastLine = options.now();
  };
  return {
    update(value, newTotal, newNote) {
      done = value;
      if (newTotal !== undefined) total = newTotal;
      if (newNote !== undefined) note = newNote;
      const step = total > 0 ? Math.floor((done * 10) / total) : 10;
      if (step > lastStep || options.now() - lastLine >= 5000) {
        lastStep = Math.max(step, lastStep);
        if (done < total) print();
      }
    },
    stop() {
      print();
    },
  };
};
