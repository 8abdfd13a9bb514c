/**
 * Typed field readers shared by every input format. Each reader takes the raw value and the field name
 * as the producer spelled it (so a DLQ reason names what the producer sent), and either returns the
 * normalized value or throws a `ValidationError`.
 *
 * Conventions (all formats):
 * - "blank" = `undefined`, `null` or a string that is empty after trimming. An optional field that is
 *   blank is absent; a required field that is blank is `missing-field`.
 * - Strings are trimmed, Unicode NFC-normalized (`café` typed as `e` + U+0301 is the same text as `é`),
 *   at most `MAX_STRING_LENGTH` characters and well-formed Unicode (no lone surrogates), else
 *   `invalid-field`. Identifiers must be JSON strings: a JSON number is not accepted where an id is
 *   expected (a 12-digit account id sent as a number may already have lost a leading zero).
 * - Identifiers and names (what keys are made of) must be visible text: a control, format (zero-width,
 *   bidi) or other default-ignorable character is rejected, so two look-alike ids can never be two charges
 *   or two alerts. Identifiers also accept no space but the ASCII one.
 * - Ledger amounts go through `toAmount`, other numbers through `toDecimal` (exact; never a JS float);
 *   instants through `toInstant`.
 * - User-controlled keys are never assigned onto a plain `{}`: maps are built with `Map` and turned into
 *   objects with `Object.fromEntries` (which defines own data properties, so `__proto__` cannot reach the
 *   prototype; `compact` defines that one key the same way), and fields are read with `own()` so
 *   inherited members (`constructor`, `toString`) never count as present.
 */
import { isSlug, SLUG_MAX_LENGTH, SLUG_RULE } from '../../../contract/slugs';
import { toAmount, toDecimal } from '../decimal';
import { fail } from '../errors';
import { toInstant } from '../instant';
import { JsonNumberText, parseJsonExact } from '../json';

export type JsonObject = Record<string, unknown>;

/** Longest accepted string field (an ARN is at most 2048 characters). */
export const MAX_STRING_LENGTH = 2048;
/** Most tags accepted on one charge. */
export const MAX_TAGS = 1000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Characters nobody sees: controls, format characters (zero-width, bidi), other default-ignorables. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
const NON_ASCII_SPACE = /(?! )\p{Zs}/u;
const CURRENCY = /^[A-Za-z]{3}$/;
const VERSION_TEXT = /^\d{1,16}$/;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own property of `object`, or undefined (never an inherited member such as `constructor`). */
export const own = (object: object, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(object, key) ? (object as JsonObject)[key] : undefined;

export const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

export const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/**
 * Only U+0020–U+007E: such text is well-formed, already NFC, and has no invisible character and no
 * space but the ASCII one, so the Unicode checks below can be skipped (most billing data is ASCII).
 */
const isPrintableAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
};

/** Same check as `String.prototype.isWellFormed` (ES2024; not in this project's TS lib). */
export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/** Short, safe rendering of a value for an error reason. */
export const preview = (value: unknown): string => {
  if (typeof value === 'string')
    return JSON.stringify(isWellFormed(value) ? value.slice(0, 40) : '<malformed>');
  if (Array.isArray(value)) return 'an array';
  if (value instanceof JsonNumberText) return 'a number';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
};

/** Drops properties whose value is `undefined` (absent optional fields are omitted, not `undefined`). */
export const compact = <T extends object>(value: T): T => {
  const result: JsonObject = {};
  for (const key of Object.keys(value)) {
    const field = (value as JsonObject)[key];
    if (field === undefined) continue;
    if (key === '__proto__') {
      Object.defineProperty(result, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      result[key] = field;
    }
  }
  return result as T;
};

/** Well-formed, NFC-normalized, bounded text. */
const checkText = (text: string, field: string, maxLength: number): string => {
  if (isPrintableAscii(text)) {
    return text.length > maxLength
      ? fail('invalid-field', field, `longer than ${maxLength} characters`)
      : text;
  }
  if (!isWellFormed(text))
    return fail('invalid-field', field, 'not well-formed Unicode (lone surrogate)');
  const normalized = text.normalize('NFC');
  if (normalized.length > maxLength)
    return fail('invalid-field', field, `longer than ${maxLength} characters`);
  return normalized;
};

const codePointOf = (char: string): string =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Rejects text with a character nobody sees (and, for identifiers, a space other than U+0020). */
const checkVisible = (text: string, field: string, kind: 'identifier' | 'name'): string => {
  if (isPrintableAscii(text)) return text;
  const invisible = INVISIBLE.exec(text);
  if (invisible) {
    return fail(
      'invalid-field',
      field,
      `contains the invisible or control character ${codePointOf(invisible[0])}; a ${kind} must be visible text`,
    );
  }
  const space = kind === 'identifier' ? NON_ASCII_SPACE.exec(text) : null;
  if (space) {
    return fail(
      'invalid-field',
      field,
      `contains the space character ${codePointOf(space[0])}; an identifier may only use the ASCII space`,
    );
  }
  return text;
};

export const optionalString = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string | undefined => {
  if (isBlank(value)) return undefined;
  if (typeof value !== 'string')
    return fail('invalid-field', field, `expected a string, got ${preview(value)}`);
  return checkText(value.trim(), field, maxLength);
};

export const requiredString = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string => optionalString(value, field, maxLength) ?? fail('missing-field', field, 'required');

/** An id (account, event, line item, budget, anomaly, invoice, SKU, resource, …): visible text, NFC. */
export const optionalIdentifier = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string | undefined => {
  const text = optionalString(value, field, maxLength);
  return text === undefined ? undefined : checkVisible(text, field, 'identifier');
};

export const requiredIdentifier = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string =>
  optionalIdentifier(value, field, maxLength) ?? fail('missing-field', field, 'required');

/** A name that identifies something (a budget name): visible text, NFC; any visible space is kept. */
export const optionalName = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string | undefined => {
  const text = optionalString(value, field, maxLength);
  return text === undefined ? undefined : checkVisible(text, field, 'name');
};

export const requiredName = (
  value: unknown,
  field: string,
  maxLength = MAX_STRING_LENGTH,
): string => optionalName(value, field, maxLength) ?? fail('missing-field', field, 'required');

/** A value of a closed vocabulary, compared and returned lower-case (`Usage` → `usage`). */
export const optionalEnum = <T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): T | undefined => {
  const text = optionalString(value, field, 64);
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    return fail('invalid-field', field, `${preview(text)} is not one of ${allowed.join(', ')}`);
  }
  return lower as T;
};

export const requiredEnum = <T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): T => optionalEnum(value, field, allowed) ?? fail('missing-field', field, 'required');

/** Exact decimal string (canonical: no exponent, no trailing zeros, at most 38 significant digits). */
export const optionalDecimal = (value: unknown, field: string): string | undefined =>
  isBlank(value) ? undefined : toDecimal(value, field);

export const requiredDecimal = (value: unknown, field: string): string =>
  optionalDecimal(value, field) ?? fail('missing-field', field, 'required');

/** Ledger amount: exact decimal, at most 18 fraction digits, |amount| < 10^15 (see `toAmount`). */
export const requiredAmount = (value: unknown, field: string): string =>
  isBlank(value) ? fail('missing-field', field, 'required') : toAmount(value, field);

/**
 * Instants already read, by their text: an export repeats a few hundred distinct timestamps over
 * millions of rows. Only accepted texts are kept (`toInstant` depends on nothing but the text); the
 * cache is emptied when full.
 */
const instantsByText = new Map<string, string>();
const MAX_CACHED_INSTANTS = 4096;

const cachedInstant = (text: string, field: string): string => {
  let instant = instantsByText.get(text);
  if (instant === undefined) {
    instant = toInstant(text, field);
    if (instantsByText.size >= MAX_CACHED_INSTANTS) instantsByText.clear();
    instantsByText.set(text, instant);
  }
  return instant;
};

/** UTC ISO-8601 instant with milliseconds. */
export const optionalInstant = (value: unknown, field: string): string | undefined => {
  if (isBlank(value)) return undefined;
  return typeof value === 'string' ? cachedInstant(value, field) : toInstant(value, field);
};

export const requiredInstant = (value: unknown, field: string): string =>
  optionalInstant(value, field) ?? fail('missing-field', field, 'required');

/** Positive safe integer, from a JSON number or a string of digits (`2`, `"2"`; not `1.5`, `"1.0"`, `NaN`). */
export const optionalVersion = (value: unknown, field: string): number | undefined => {
  if (isBlank(value)) return undefined;
  let version: number;
  if (typeof value === 'number') {
    version = value;
  } else if (typeof value === 'string' && VERSION_TEXT.test(value.trim())) {
    version = Number(value.trim());
  } else if (value instanceof JsonNumberText) {
    version = Number.NaN; // a JSON number no double holds exactly (`2.0000000000000001`) is no version
  } else {
    return fail('invalid-field', field, `expected a positive integer, got ${preview(value)}`);
  }
  if (!Number.isSafeInteger(version) || version < 1) {
    return fail('invalid-field', field, 'expected a positive integer below 2^53');
  }
  return version;
};

/** ISO 4217 shape: three letters, returned upper-case. */
export const optionalCurrency = (value: unknown, field: string): string | undefined => {
  const text = optionalString(value, field, 16);
  if (text === undefined) return undefined;
  if (!CURRENCY.test(text))
    return fail('invalid-field', field, `not an ISO 4217 currency code: ${preview(text)}`);
  return text.toUpperCase();
};

export const requiredCurrency = (value: unknown, field: string): string =>
  optionalCurrency(value, field) ?? fail('missing-field', field, 'required');

/** A tenant or source slug (`contract/slugs.ts`); input is lower-cased first. */
export const optionalSlug = (value: unknown, field: string): string | undefined => {
  const text = optionalString(value, field, SLUG_MAX_LENGTH);
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (!isSlug(lower)) {
    return fail('invalid-field', field, `${preview(text)} is not a slug (${SLUG_RULE})`);
  }
  return lower;
};

/** Free text → slug: `Oracle Cloud Infrastructure` → `oracle-cloud-infrastructure`. */
export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/^-+|-+$/g, '');

const tagValue = (value: unknown, field: string): string => {
  if (typeof value === 'string') return checkText(value, field, MAX_STRING_LENGTH);
  if (value instanceof JsonNumberText) return value.text;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return fail('invalid-field', field, `tag value must be a string, got ${preview(value)}`);
};

/**
 * Tags: an object of string → string, or a JSON string of one (FOCUS `Tags`). Keys and values are kept
 * as sent (not trimmed) but NFC-normalized; number and boolean values become their JSON text. An empty
 * map is absent, so `"{}"`, `""` and no tags at all are the same charge. A `__proto__` key, and two keys
 * that are the same text once normalized, are rejected.
 */
export const optionalTags = (value: unknown, field: string): Record<string, string> | undefined => {
  if (isBlank(value)) return undefined;
  let raw: unknown = value;
  if (typeof value === 'string') {
    try {
      raw = parseJsonExact(value);
    } catch {
      return fail('invalid-field', field, 'not a JSON object of tags');
    }
  }
  if (!isObject(raw))
    return fail('invalid-field', field, `expected an object of tags, got ${preview(raw)}`);
  const entries = Object.entries(raw);
  if (entries.length > MAX_TAGS) return fail('invalid-field', field, `more than ${MAX_TAGS} tags`);
  const tags = new Map<string, string>();
  for (const [key, tag] of entries) {
    const keyField = `${field}.${isWellFormed(key) ? key.slice(0, 64) : '<malformed>'}`;
    if (key.trim() === '') return fail('invalid-field', field, 'empty tag key');
    if (key === '__proto__') return fail('invalid-field', keyField, 'reserved tag key');
    const normalizedKey = checkText(key, keyField, MAX_STRING_LENGTH);
    if (tags.has(normalizedKey)) {
      return fail('invalid-field', keyField, 'the same tag key twice (once Unicode-normalized)');
    }
    tags.set(normalizedKey, tagValue(tag, keyField));
  }
  return tags.size === 0 ? undefined : Object.fromEntries(tags);
};
