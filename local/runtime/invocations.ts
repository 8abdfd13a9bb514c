/**
 * Per-invocation scope (AsyncLocalStorage): the handlers' batch observer (local/runtime/functions.ts) adds record
 * outcomes to it, so the late results of an abandoned (timed-out) invocation are recognised as such.
 * The handler log sink: Powertools Logger runs in dev mode locally (POWERTOOLS_DEV=true: it writes
 * through the global console), so the sink wraps the console methods for the duration of the run and
 * writes each line, tagged with its invocation, to the handler log file; nothing reaches stdout.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Outcome } from '../../lambda/core/outcomes';

export interface InvocationScope {
  invocationId: number;
  stream: string;
  /** Set when the poller gave up on the invocation (timeout): its lines are logged, not counted. */
  abandoned: boolean;
  results: { messageId: string; outcome: Outcome; reason?: string }[];
}

export const invocationScope = new AsyncLocalStorage<InvocationScope>();

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Method = (typeof LEVELS)[number] | 'log';
const LEVEL_RANK: Record<string, number> = {
  DEBUG: 0,
  INFO: 1,
  WARN: 2,
  ERROR: 3,
  CRITICAL: 4,
  SILENT: 5,
};

export interface LogSinkOptions {
  /** Handler log file (JSON lines); undefined: lines are dropped after being read. */
  file?: string;
  /** Lines below this level (the template's POWERTOOLS_LOG_LEVEL) are not written to the file. */
  minLevel?: string;
}

export class HandlerLogSink {
  private readonly originals = new Map<Method, (...args: unknown[]) => void>();
  private stream?: WriteStream;
  private readonly minRank: number;

  constructor(private readonly options: LogSinkOptions = {}) {
    this.minRank = LEVEL_RANK[(options.minLevel ?? 'INFO').toUpperCase()] ?? 1;
  }

  install(): void {
    if (this.options.file) {
      mkdirSync(path.dirname(this.options.file), { recursive: true });
      this.stream = createWriteStream(this.options.file, { flags: 'w' });
    }
    const target = console as unknown as Record<Method, (...args: unknown[]) => void>;
    for (const method of [...LEVELS, 'log'] as Method[]) {
      const original = target[method];
      this.originals.set(method, original);
      target[method] = (...args: unknown[]) => {
        const scope = invocationScope.getStore();
        if (!scope) return original.apply(console, args);
        this.capture(scope, method, args);
      };
    }
  }

  private capture(scope: InvocationScope, method: Method, args: unknown[]): void {
    const text = args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ');
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const declared = parsed?.level;
    const level = (
      typeof declared === 'string' ? declared : method === 'log' ? 'INFO' : method
    ).toUpperCase();
    if (this.stream && (LEVEL_RANK[level] ?? 1) >= this.minRank) {
      const line = parsed
        ? JSON.stringify({
            ...parsed,
            invocation: scope.invocationId,
            ...(scope.abandoned ? { abandoned: true } : {}),
          })
        : JSON.stringify({ level, invocation: scope.invocationId, text });
      this.stream.write(`${line}\n`);
    }
  }

  async uninstall(): Promise<void> {
    const target = console as unknown as Record<Method, (...args: unknown[]) => void>;
    for (const [method, original] of this.originals) target[method] = original;
    this.originals.clear();
    const stream = this.stream;
    this.stream = undefined;
    if (stream) await new Promise<void>((resolve) => stream.end(() => resolve()));
  }
}
