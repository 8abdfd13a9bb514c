import { RecordError } from './errors';
import type { Rejection } from './ports';

/** What goes to the DLQ for an error; in a pure parse step any error repeats on every retry, so it is poison. */
export const rejectionOf = (error: unknown): Rejection =>
  error instanceof RecordError
    ? { code: error.code, field: error.field, reason: error.reason }
    : {
        code: 'malformed-body',
        field: '$',
        reason: error instanceof Error ? error.message : String(error),
      };

export type Attempt<T> = { ok: true; value: T } | { ok: false; rejection: Rejection };

/** Runs a pure parse step, returning either its value or the rejection. */
export const attempt = <T>(parse: () => T): Attempt<T> => {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    return { ok: false, rejection: rejectionOf(error) };
  }
};
