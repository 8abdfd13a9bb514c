/** Cost events: detect the format of one decoded message by its shape (`dispatch.ts`) and normalize it. */
import { fail } from '../errors';
import type { CostEvent, CostFormat, DecodedRecord } from '../events';
import { looksCanonicalCost, parseCanonicalCost } from './cost-canonical';
import { looksFocusRow, parseFocusRow } from './cost-focus';
import { looksSnakeCase, parseSnakeCase } from './cost-snake-case';
import { detectFormat, type FormatParser } from './dispatch';
import { isObject, preview } from './fields';

const FORMATS: readonly FormatParser<CostFormat, CostEvent>[] = [
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
  const { format, parse } = detectFormat(
    FORMATS,
    message,
    'not a canonical, FOCUS or snake_case cost event',
  );
  return { event: parse(message, attributes), format };
};
