/**
 * Text too large for one DynamoDB item, cut into pages of at most `pageBytes` UTF-8 bytes: the pages
 * joined in order are the text again. A page never ends inside a surrogate pair (each page is stored
 * as UTF-8 on its own), so any text, however large, fits items of a fixed size.
 */
import { createHash } from 'node:crypto';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The longest prefix of `text` (in UTF-16 units) of at most `maxBytes` bytes, whole characters only. */
const prefixLength = (text: string, maxBytes: number): number => {
  let end = Math.min(text.length, maxBytes);
  for (let excess = utf8(text.slice(0, end)) - maxBytes; excess > 0;) {
    // A UTF-16 unit is 1 to 3 bytes of UTF-8: dropping ⌈excess / 3⌉ units never drops too many.
    end -= Math.ceil(excess / 3);
    excess = utf8(text.slice(0, end)) - maxBytes;
  }
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
  return end;
};

/**
 * The pages of the text that `pieces` concatenate, produced as the pieces come (only one page is held
 * at a time). An empty text has no page.
 */
export function* textPages(pieces: Iterable<string>, pageBytes: number): Generator<string> {
  let buffer = '';
  let bytes = 0;
  for (const piece of pieces) {
    buffer += piece;
    bytes += utf8(piece);
    while (bytes > pageBytes) {
      const end = prefixLength(buffer, pageBytes);
      yield buffer.slice(0, end);
      buffer = buffer.slice(end);
      bytes = utf8(buffer);
    }
  }
  if (buffer.length > 0) yield buffer;
}

/** The pieces of a JSON array of `values`, one value at a time. */
export function* jsonArrayPieces(values: Iterable<unknown>): Generator<string> {
  yield '[';
  let first = true;
  for (const value of values) {
    yield `${first ? '' : ','}${JSON.stringify(value)}`;
    first = false;
  }
  yield ']';
}

/** 16 hex digits of the SHA-256 of the pages: a key part that differs whenever their content does. */
export const pagesDigest = (pages: readonly string[]): string => {
  const hash = createHash('sha256');
  for (const page of pages) hash.update(page, 'utf8').update('\u0000');
  return hash.digest('hex').slice(0, 16);
};

/** A page's number in its sort key: fixed width, so pages sort in order. */
export const pageNumber = (index: number): string => String(index).padStart(5, '0');
