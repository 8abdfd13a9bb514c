/**
 * JSON parsing that never rounds a number. `JSON.parse` turns every number into a double, so
 * `0.10000000000000000001` would arrive as `0.1` and `9007199254740993` as `…992`. Here a number whose
 * value a double holds exactly stays a JS number; any other keeps its source text as a `JsonNumberText`
 * (the decimal readers take both). `lossless-json` gives the number's text; it also rejects an object
 * with the same key twice with different values (`{"amount": "1", "amount": "100"}` has no one meaning).
 */
import Big from 'big.js';
import { parse, stringify } from 'lossless-json';

/** A JSON number that a double cannot hold exactly, kept as the producer wrote it. */
export class JsonNumberText {
  constructor(readonly text: string) {}

  /** `JSON.stringify` writes it as a string (exact); `stringifyJsonExact` writes it as the number. */
  toJSON(): string {
    return this.text;
  }
}

const exactNumber = (text: string): number | JsonNumberText => {
  const number = Number(text);
  return Number.isFinite(number) && new Big(String(number)).eq(new Big(text))
    ? number
    : new JsonNumberText(text);
};

/** Like `JSON.parse`; throws a `SyntaxError` on invalid JSON or a key repeated with another value. */
export const parseJsonExact = (text: string): unknown => parse(text, undefined, exactNumber);

const JSON_NUMBER_TEXT = [
  {
    test: (value: unknown) => value instanceof JsonNumberText,
    stringify: (value: unknown) => (value as JsonNumberText).text,
  },
];

/** Like `JSON.stringify` for what `parseJsonExact` returned: every number written as it was read. */
export const stringifyJsonExact = (value: unknown): string | undefined =>
  stringify(value, undefined, undefined, JSON_NUMBER_TEXT);
