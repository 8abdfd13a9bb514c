/**
 * Fault injection at the seams, never inside the production code path:
 * - `ack-loss`: the poller skips the DeleteMessage of a successfully processed record (it comes back);
 * - `throttle`: DynamoDB answers a request with ProvisionedThroughputExceededException (an SDK
 *   middleware on the client handed to the handlers, below the SDK's retry layer: the rate is per
 *   request attempt, as the service would throttle);
 * - `timeout`: the poller abandons an invocation mid-flight and treats the whole batch as failed.
 * Every decision is drawn from a seeded PRNG stream per fault kind.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { Rng } from '../scenarios/random';

export const FAULT_KINDS = ['ack-loss', 'throttle', 'timeout'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultRates = Record<FaultKind, number>;

export const NO_FAULTS: FaultRates = { 'ack-loss': 0, throttle: 0, timeout: 0 };
export const DEFAULT_SAMPLE_FAULTS: FaultRates = {
  'ack-loss': 0.05,
  throttle: 0.02,
  timeout: 0.01,
};

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A probability written as a plain decimal between 0 and 1: `0`, `0.05`, `.5`, `1`, `1.0`. */
const PROBABILITY = /^(?:[01](?:\.\d*)?|\.\d+)$/;

/** `ack-loss=0.05,throttle=0.02,timeout=0.01` (any subset; `none` for none). */
export const parseFaultSpec = (spec: string): FaultRates => {
  const rates: FaultRates = { ...NO_FAULTS };
  const text = spec.trim();
  if (text === '' || text === 'none') return rates;
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const [key, value, ...rest] = part.split('=').map((piece) => piece.trim());
    if (!(FAULT_KINDS as readonly string[]).includes(key))
      throw new UsageError(
        `--faults: unknown fault "${key}" (known: ${FAULT_KINDS.join(', ')}), e.g. --faults ack-loss=0.05,throttle=0.02,timeout=0.01`,
      );
    if (seen.has(key)) throw new UsageError(`--faults: ${key} is given twice`);
    seen.add(key);
    const written = [value, ...rest].join('=');
    if (value === undefined || rest.length > 0 || !PROBABILITY.test(value) || Number(value) > 1)
      throw new UsageError(
        `--faults: ${key}: "${written}" is not a probability; write a decimal between 0 and 1, e.g. ${key}=0.05`,
      );
    rates[key as FaultKind] = Number(value);
  }
  return rates;
};

export const formatFaultSpec = (rates: FaultRates): string =>
  FAULT_KINDS.map((kind) => `${kind}=${rates[kind]}`).join(',');

/** A DynamoDB request the test hooks may inspect (command name and input). */
export interface DynamoCall {
  commandName: string;
  input: Record<string, unknown>;
}

export interface FaultPlanOptions {
  rates: FaultRates;
  seed: number;
  /** Extra, programmatic fault: throw a throttling error for every matching DynamoDB call. */
  permanentThrottle?: (call: DynamoCall) => boolean;
}

export class FaultPlan {
  readonly injected: Record<FaultKind, number> = { 'ack-loss': 0, throttle: 0, timeout: 0 };
  private rates: FaultRates;
  private readonly streams: Record<FaultKind, Rng>;

  constructor(private readonly options: FaultPlanOptions) {
    this.rates = { ...options.rates };
    this.streams = {
      'ack-loss': new Rng(options.seed ^ 0xa11ce),
      throttle: new Rng(options.seed ^ 0x7407),
      timeout: new Rng(options.seed ^ 0x71e0),
    };
  }

  get current(): FaultRates {
    return { ...this.rates };
  }

  /** Recovery runs with faults off. */
  disable(): void {
    this.rates = { ...NO_FAULTS };
  }

  private draw(kind: FaultKind): boolean {
    if (this.rates[kind] <= 0) return false;
    const hit = this.streams[kind].next() < this.rates[kind];
    if (hit) this.injected[kind]++;
    return hit;
  }

  loseAck(): boolean {
    return this.draw('ack-loss');
  }

  /** Undefined: no timeout; else abandon the invocation after this many milliseconds. */
  abandonAfterMs(): number | undefined {
    return this.draw('timeout') ? Math.floor(this.streams.timeout.next() * 25) : undefined;
  }

  /**
   * Installs the throttling middleware on the DynamoDB client the handlers get. It sits below the SDK's
   * retry middleware, where DynamoDB's own answer would arrive: the SDK retries a throttled request like
   * a real one (standard mode, 3 attempts, throttling back-off), and the handler sees the error only when
   * every attempt was throttled.
   */
  attach(client: DynamoDBClient): void {
    const middleware: FinalizeRequestMiddleware<object, object> =
      (next, context) => async (args) => {
        const call = {
          commandName: context.commandName ?? 'unknown',
          input: args.input as Record<string, unknown>,
        };
        if (this.options.permanentThrottle?.(call) || this.draw('throttle')) {
          throw Object.assign(
            new Error(
              'The level of configured provisioned throughput for the table was exceeded (injected)',
            ),
            {
              name: 'ProvisionedThroughputExceededException',
              $fault: 'client',
              $metadata: { httpStatusCode: 400 },
            },
          );
        }
        return next(args);
      };
    client.middlewareStack.addRelativeTo(middleware as never, {
      relation: 'after',
      toMiddleware: 'retryMiddleware',
      name: 'localFaultInjection',
    });
  }
}
