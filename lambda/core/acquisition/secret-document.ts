/**
 * A tenant secret stored as a JSON object (the Azure client secret, the Google service-account key):
 * its text parsed, and its fields read, every refusal naming the secret's ARN (and field) and the
 * shape to store (`shape`).
 */
import { fail } from '../errors';
import { isObject, own } from '../formats/fields';

export interface SecretDocument {
  /** A non-empty text field, refused as missing otherwise. */
  text(name: string): string;
  /** Any field's value, as stored. */
  value(name: string): unknown;
  /** Refuses the field: `expected` says what it should be. */
  invalid(name: string, expected: string): never;
}

export const parseSecretDocument = (
  text: string,
  secretArn: string,
  shape: string,
): SecretDocument => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return fail('malformed-body', secretArn, `the secret is not JSON: ${shape}`);
  }
  if (!isObject(document)) return fail('malformed-body', secretArn, shape);
  const fields = document;
  return {
    text: (name) => {
      const value = own(fields, name);
      if (typeof value !== 'string' || value.trim() === '')
        return fail('missing-field', `${secretArn}.${name}`, `required: ${shape}`);
      return value;
    },
    value: (name) => own(fields, name),
    invalid: (name, expected) =>
      fail('invalid-field', `${secretArn}.${name}`, `${expected}: ${shape}`),
  };
};
