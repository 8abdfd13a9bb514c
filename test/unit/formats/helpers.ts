import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeRecord } from '../../../lambda/core/envelope';
import type { DecodedRecord } from '../../../lambda/core/events';
import { ValidationError } from '../../../lambda/core/errors';

/** The shared fixtures; the repository is cloned next to `shared/` locally and in CI. */
export const FIXTURES = path.resolve(__dirname, '../../fixtures/samples');

export const fixtureText = (name: string): string =>
  readFileSync(path.join(FIXTURES, name), 'utf8');
export const fixtureJson = <T = Record<string, unknown>>(name: string): T =>
  JSON.parse(fixtureText(name)) as T;

/** An SQS record as Lambda delivers it: a body string and string message attributes. */
export const record = (
  body: string | object,
  attributes: Record<string, string> = {},
): DecodedRecord =>
  decodeRecord({
    body: typeof body === 'string' ? body : JSON.stringify(body),
    messageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String' },
      ]),
    ),
  });

/** Calls `run` and returns the ValidationError it throws (fails the test otherwise). */
export const rejection = (run: () => unknown): ValidationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
};

/** `{code, field}` of the ValidationError thrown by `run`. */
export const rejectionOf = (run: () => unknown): { code: string; field: string } => {
  const { code, field } = rejection(run);
  return { code, field };
};
