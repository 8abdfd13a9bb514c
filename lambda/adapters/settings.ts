import { DELIVERY_MODES, type DeliveryMode } from '../core/envelope';

/** Function settings from environment variables, read once per container, with errors that name the variable. */
export interface ConsumerSettings {
  stream: string;
  fifo: boolean;
  /** DELIVERY_MODE: `raw` (raw message delivery, the default) or `envelope` (SNS notification JSON). */
  deliveryMode: DeliveryMode;
  dlqUrl: string;
  dedupTable: string;
  ttlSeconds: number;
  concurrency: number;
}

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name]?.trim();
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

const positiveInteger = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`Environment variable ${name} must be a positive integer`);
  return value;
};

const deliveryMode = (env: NodeJS.ProcessEnv): DeliveryMode => {
  const text = env.DELIVERY_MODE?.trim() || 'raw';
  const mode = DELIVERY_MODES.find((candidate) => candidate === text);
  if (!mode)
    throw new Error(
      `Environment variable DELIVERY_MODE must be raw or envelope (the subscription's raw message ` +
        `delivery on or off), got ${JSON.stringify(text)}`,
    );
  return mode;
};

export const consumerSettings = (env: NodeJS.ProcessEnv): ConsumerSettings => {
  const kind = env.QUEUE_KIND?.trim() || 'standard';
  if (kind !== 'fifo' && kind !== 'standard')
    throw new Error('Environment variable QUEUE_KIND must be fifo or standard');
  return {
    stream: required(env, 'STREAM_NAME'),
    fifo: kind === 'fifo',
    deliveryMode: deliveryMode(env),
    dlqUrl: required(env, 'DLQ_URL'),
    dedupTable: required(env, 'DEDUP_TABLE_NAME'),
    ttlSeconds: positiveInteger(env, 'DEDUP_TTL_SECONDS', 35 * 24 * 3600),
    concurrency: positiveInteger(env, 'MAX_CONCURRENCY', 8),
  };
};

export const requiredSetting = required;
