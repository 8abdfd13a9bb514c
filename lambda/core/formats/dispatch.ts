/**
 * Format detection shared by the cost and alert parsers: a format matches when the message has its
 * shape (at least one of its distinctive keys); a message that matches two formats is rejected as
 * ambiguous rather than guessed.
 */
import { fail } from '../errors';
import type { JsonObject } from './fields';

export interface FormatParser<Format extends string, Event> {
  format: Format;
  looks: (message: JsonObject) => boolean;
  parse: (message: JsonObject, attributes: Record<string, string>) => Event;
}

/** The one parser whose shape the message has; `unknown` is the reason when none has. */
export const detectFormat = <Format extends string, Event>(
  parsers: readonly FormatParser<Format, Event>[],
  message: JsonObject,
  unknown: string,
): FormatParser<Format, Event> => {
  const matches = parsers.filter((candidate) => candidate.looks(message));
  if (matches.length === 0) return fail('unknown-format', '$', unknown);
  if (matches.length > 1) {
    return fail(
      'unknown-format',
      '$',
      `ambiguous: has fields of ${matches.map((m) => m.format).join(' and ')}`,
    );
  }
  return matches[0];
};
