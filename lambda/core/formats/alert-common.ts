/** Helpers shared by the alert formats. */
import { compareDecimals } from '../decimal';
import type { AlertEvent, Severity } from '../events';
import { compact } from './fields';

/** `critical` when `value` ≥ `limit`, else `warning`. */
export const severityAtLeast = (value: string, limit: string): Severity =>
  compareDecimals(value, limit) >= 0 ? 'critical' : 'warning';

export const finishAlertEvent = (event: AlertEvent): AlertEvent => compact(event);
