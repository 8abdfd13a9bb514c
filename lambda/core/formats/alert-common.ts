/** Helpers shared by the alert formats. */
import { compareDecimals } from '../decimal';
import type { AlertEvent, Severity } from '../events';
import { compact, isBlank } from './fields';

/** `critical` when `value` ≥ `limit`, else `warning`. */
export const severityAtLeast = (value: string, limit: string): Severity =>
  compareDecimals(value, limit) >= 0 ? 'critical' : 'warning';

export const finishAlertEvent = (event: AlertEvent): AlertEvent => compact(event);

/** Console hosts whose links a notification may show (AWS commercial and China partitions). */
export const AWS_CONSOLE_HOST =
  /^(?:[a-z0-9-]+\.)*(?:console\.aws\.amazon\.com|console\.amazonaws\.cn)$/;

/**
 * A link people may follow: an `https` URL on `host`, at most 2048 characters, else nothing. A link is
 * never part of an alert's identity, so one that fails the check is left out rather than failing the alert.
 */
export const consoleLink = (value: unknown, host: RegExp): string | undefined => {
  if (isBlank(value) || typeof value !== 'string' || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' && host.test(url.hostname) && url.username === ''
    ? url.href
    : undefined;
};

/** At most this many root causes are kept for the notification. */
export const MAX_CAUSES = 5;
