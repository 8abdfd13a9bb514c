/**
 * Message attribute values SQS accepts, whatever text they describe. SQS refuses a value with a
 * character outside #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF, and counts each
 * attribute's name, data type and value in the message size.
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

/** Control (C0, DEL, C1) and invisible format characters, lone surrogates, U+FFFE and U+FFFF. */
const ESCAPED = /^[\p{Cc}\p{Cf}\p{Cs}\uFFFE\uFFFF]$/u;
const ELLIPSIS = '…';
/** SQS refuses an empty string value. */
const EMPTY = '-';

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const escapeCodePoint = (character: string): string => {
  const codePoint = character.codePointAt(0) ?? 0;
  const hex = codePoint.toString(16).toUpperCase();
  return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
};

/**
 * `value` as an attribute value of at most `maxBytes` UTF-8 bytes: every control, invisible or
 * unpaired character written as `\uXXXX` (`\u{XXXXX}` above U+FFFF), cut at a character boundary with
 * `…` when too long, `-` when empty. The DLQ body keeps the exact bytes; attributes only describe them.
 */
export const attributeText = (value: string, maxBytes: number): string => {
  const pieces: string[] = [];
  let bytes = 0;
  let cut = false;
  for (const character of value) {
    const piece = ESCAPED.test(character) ? escapeCodePoint(character) : character;
    const size = utf8Bytes(piece);
    if (bytes + size > maxBytes) {
      cut = true;
      break;
    }
    pieces.push(piece);
    bytes += size;
  }
  if (cut) {
    while (pieces.length > 0 && bytes + utf8Bytes(ELLIPSIS) > maxBytes) {
      bytes -= utf8Bytes(pieces.pop() ?? '');
    }
    pieces.push(ELLIPSIS);
  }
  const text = pieces.join('');
  return text === '' ? EMPTY : text;
};

export interface AttributeCandidate {
  name: string;
  value: string;
  /** Defaults to `String`. A `Number` value that had to be rewritten is sent as `String`. */
  dataType?: string;
  /** The most UTF-8 bytes of the value; a tighter total budget may cut it further. */
  maxBytes: number;
}

/** SQS's limit on attributes per message. */
export const MAX_ATTRIBUTES = 10;
/** A value cut below this many bytes says nothing useful: the attribute is left out instead. */
const MIN_USEFUL_BYTES = 16;

const sizeOf = (name: string, attribute: MessageAttributeValue): number =>
  utf8Bytes(name) + utf8Bytes(attribute.DataType ?? '') + utf8Bytes(attribute.StringValue ?? '');

/**
 * Candidates in priority order → at most 10 attributes whose names, types and values together take at
 * most `budgetBytes`. A candidate that does not fit whole is shortened, or left out when too little room
 * remains; later (less important) candidates still get the room that is left.
 */
export const fitAttributes = (
  candidates: readonly AttributeCandidate[],
  budgetBytes: number,
): Record<string, MessageAttributeValue> => {
  const attributes: Record<string, MessageAttributeValue> = {};
  let remaining = budgetBytes;
  let count = 0;
  for (const candidate of candidates) {
    if (count === MAX_ATTRIBUTES) break;
    const declared = candidate.dataType ?? 'String';
    const overhead = utf8Bytes(candidate.name) + utf8Bytes(declared);
    const room = Math.min(candidate.maxBytes, remaining - overhead);
    if (room < Math.max(1, Math.min(MIN_USEFUL_BYTES, utf8Bytes(candidate.value)))) continue;
    const value = attributeText(candidate.value, room);
    const dataType =
      value !== candidate.value && declared.startsWith('Number') ? 'String' : declared;
    const attribute: MessageAttributeValue = { DataType: dataType, StringValue: value };
    const size = sizeOf(candidate.name, attribute);
    if (size > remaining) continue;
    attributes[candidate.name] = attribute;
    remaining -= size;
    count += 1;
  }
  return attributes;
};
