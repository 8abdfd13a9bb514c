/**
 * Cost events: detect the format of one decoded message by its shape and normalize it.
 * A format matches when the message has at least one of its distinctive keys; a message with
 * distinctive keys of two formats is rejected as ambiguous rather than guessed.
 */
import { fail } from '../errors';
import type { CostEvent, CostFormat, DecodedRecord } from '../events';
import { looksCanonicalCost, parseCanonicalCost } from './cost-canonical';
import { looksFocusRow, parseFocusRow } from './cost-focus';
import { looksSnakeCase, parseSnakeCase } from './cost-snake-case';
import { isObject, preview, type JsonObject } from './fields';

interface CostFormatParser {
  format: CostFormat;
  looks: (message: JsonObject) => boolean;
  parse: (message: JsonObject, attributes: Record<string, string>) => CostEvent;
}

const FORMATS: readonly CostFormatParser[] = [
  { format: 'canonical', looks: looksCanonicalCost, parse: parseCanonicalCost },
  { format: 'focus', looks: looksFocusRow, parse: parseFocusRow },
  { format: 'snake-case', looks: looksSnakeCase, parse: parseSnakeCase },
];

export const parseCostEvent = (
  decoded: DecodedRecord,
): { event: CostEvent; format: CostFormat } => {
  const { message, attributes } = decoded;
  if (typeof message === 'string')
    return fail('malformed-body', '$', 'message is not a JSON object (not JSON)');
  if (!isObject(message))
    return fail('unknown-format', '$', `expected a JSON object, got ${preview(message)}`);
  const matches = FORMATS.filter((candidate) => candidate.looks(message));
  if (matches.length === 0)
    return fail('unknown-format', '$', 'not a canonical, FOCUS or snake_case cost event');
  if (matches.length > 1) {
    return fail(
      'unknown-format',
      '$',
      `ambiguous: has fields of ${matches.map((m) => m.format).join(' and ')}`,
    );
  }
  const [{ format, parse }] = matches;
  return { event: parse(message, attributes), format };
};
