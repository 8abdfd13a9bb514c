/**
 * Live progress on stderr: one updating line on a TTY, a plain line every few seconds otherwise, and
 * only the phase lines in CI (CI=true) or when asked to be quiet.
 */
export interface ProgressSnapshot {
  phase: string;
  published: number;
  total: number;
  deliveries: number;
  outcomes: Record<string, Record<string, number>>;
  deadLetters: number;
}

export interface ProgressSink {
  phase(text: string): void;
  update(snapshot: ProgressSnapshot): void;
  done(): void;
}

export const silentProgress: ProgressSink = {
  phase: () => undefined,
  update: () => undefined,
  done: () => undefined,
};

const brief = (snapshot: ProgressSnapshot): string => {
  const streams = Object.entries(snapshot.outcomes)
    .map(
      ([stream, counts]) =>
        `${stream} ${
          Object.entries(counts)
            .filter(([, value]) => value > 0)
            .map(([name, value]) => `${name} ${value}`)
            .join(' ') || '-'
        }`,
    )
    .join(' | ');
  return `[${snapshot.phase}] published ${snapshot.published}/${snapshot.total} delivered ${snapshot.deliveries} | ${streams} | in DLQ ${snapshot.deadLetters}`;
};

export const consoleProgress = (
  stream: NodeJS.WriteStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink => {
  const tty = Boolean(stream.isTTY) && !env.CI;
  const ci = Boolean(env.CI) && env.CI !== 'false';
  let last = 0;
  let lineOpen = false;
  const clear = () => {
    if (lineOpen) stream.write('\r\x1b[K');
    lineOpen = false;
  };
  return {
    phase: (text) => {
      clear();
      stream.write(`${text}\n`);
    },
    update: (snapshot) => {
      const now = Date.now();
      if (tty) {
        if (now - last < 150) return;
        last = now;
        const columns = stream.columns ?? 120;
        stream.write(`\r\x1b[K${brief(snapshot).slice(0, columns - 1)}`);
        lineOpen = true;
      } else if (!ci) {
        if (now - last < 5000) return;
        last = now;
        stream.write(`${brief(snapshot)}\n`);
      }
    },
    done: clear,
  };
};
