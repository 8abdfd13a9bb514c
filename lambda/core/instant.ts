import { fail } from './errors';

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$/i;

/**
 * An instant as UTC ISO-8601 with millisecond precision (`2026-11-03T14:00:00.000Z`).
 * Accepts an ISO date or date-time with `Z`, an offset or no zone (read as UTC, as billing exports mean it).
 */
export const toInstant = (value: unknown, field: string): string => {
  if (typeof value !== 'string')
    return fail('invalid-field', field, 'expected an ISO-8601 date-time string');
  const text = value.trim();
  const match = ISO_INSTANT.exec(text);
  if (!match)
    return fail(
      'invalid-field',
      field,
      `not an ISO-8601 date-time: ${JSON.stringify(text.slice(0, 40))}`,
    );
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = match;
  const offset = /^[+-]/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(-2)}` : 'Z';
  const millis = (frac + '000').slice(0, 3);
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${offset}`);
  const valid =
    !Number.isNaN(date.getTime()) &&
    Number(mo) >= 1 &&
    Number(mo) <= 12 &&
    Number(d) <= 31 &&
    Number(h) < 24;
  if (!valid)
    return fail(
      'invalid-field',
      field,
      `not a valid date-time: ${JSON.stringify(text.slice(0, 40))}`,
    );
  return date.toISOString();
};

/** `yyyy-mm` of a normalized instant (UTC). */
export const monthOf = (instant: string): string => instant.slice(0, 7);
