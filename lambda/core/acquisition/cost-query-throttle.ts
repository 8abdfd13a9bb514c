/**
 * How long Cost Management asks a throttled caller to wait: the largest of its
 * `x-ms-ratelimit-microsoft.costmanagement-*-retry-after` headers (seconds; qpu, entity, tenant, …) and
 * the standard `Retry-After` (seconds or an HTTP date). A throttle without any of them still waits
 * `fallbackMs`: a throttled call is never followed by an immediate retry.
 */
const COST_MANAGEMENT_RETRY_AFTER =
  /^x-ms-ratelimit-microsoft\.costmanagement-[a-z0-9-]+-retry-after$/;

const secondsToMs = (text: string): number | undefined => {
  const seconds = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(seconds) && seconds >= 0
    ? Math.ceil(seconds * 1000)
    : undefined;
};

const retryAfterHeaderMs = (text: string, nowMs: number): number | undefined => {
  const seconds = secondsToMs(text);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
};

/** Header names lower-cased (as `Headers` and node's `IncomingMessage` give them). */
export const throttleWaitMs = (
  headers: Iterable<[string, string]>,
  nowMs: number,
  fallbackMs: number,
): number => {
  const waits: number[] = [];
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    const wait =
      name === 'retry-after'
        ? retryAfterHeaderMs(value, nowMs)
        : COST_MANAGEMENT_RETRY_AFTER.test(name)
          ? secondsToMs(value)
          : undefined;
    if (wait !== undefined) waits.push(wait);
  }
  // A zero wait after a throttle is still a wait: at least the fallback's floor of one second.
  return waits.length === 0 ? fallbackMs : Math.max(1000, ...waits);
};
