import { ValidationError } from './errors';
import type { Rejection } from './ports';

/** Decoding and parsing are pure: any error there repeats on every retry, so it is a rejection. */
export const rejectionOf = (error: unknown): Rejection =>
  error instanceof ValidationError
    ? { code: error.code, field: error.field, reason: error.reason }
    : {
        code: 'malformed-body',
        field: '$',
        reason: error instanceof Error ? error.message : String(error),
      };

/** Runs a pure parse step, returning either its value or the rejection. */
export const attempt = <T>(
  parse: () => T,
): { ok: true; value: T } | { ok: false; rejection: Rejection } => {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    return { ok: false, rejection: rejectionOf(error) };
  }
};
