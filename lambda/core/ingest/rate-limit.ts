/**
 * Per-credential rate limit of the ingest API: at most `perMinute` requests per tenant and source in each
 * UTC minute (a fixed window counted in the dedup table). A request over it is answered 429 with
 * `Retry-After` = the seconds until the next window, before anything is recorded or published, so the
 * producer's retry (same Idempotency-Key) is accepted then; nothing accepted is ever dropped.
 */
import { refuse, type Refusal } from '../push/refusal';

export const RATE_WINDOW_SECONDS = 60;

export interface RateWindow {
  /** Epoch seconds at which the window started. */
  readonly start: number;
  readonly retryAfterSeconds: number;
}

export const rateWindowAt = (nowMs: number): RateWindow => {
  const nowSeconds = Math.floor(nowMs / 1000);
  const start = nowSeconds - (nowSeconds % RATE_WINDOW_SECONDS);
  return { start, retryAfterSeconds: start + RATE_WINDOW_SECONDS - nowSeconds };
};

export interface RateCounter {
  /** Counts one request in the window; false when the window already holds `limit`. */
  take(scope: string, window: RateWindow, limit: number): Promise<boolean>;
}

export const throttled = (window: RateWindow, perMinute: number): Refusal => ({
  ...refuse(429, 'throttled', `over ${perMinute} requests per minute for this API key`),
  retryAfterSeconds: window.retryAfterSeconds,
});
