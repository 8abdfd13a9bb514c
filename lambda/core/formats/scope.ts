/**
 * Tenant and source: part of every key. They come from the message when the format carries them,
 * otherwise from the message attributes (`tenant`, `source`) a publisher or forwarder set.
 * When both carry a value and they differ, the message is rejected (`invalid-field`) rather than
 * silently booked to one of the two tenants.
 * A message delivered through a tenant's own topic belongs to that tenant (`bindTenant`): whatever
 * tenant it names must be that one (`tenant-mismatch`), and the sources it may claim can be limited
 * (`checkBoundSource`, `source-mismatch`).
 */
import { fail } from '../errors';
import { isObject, optionalSlug, own } from './fields';

export const DEFAULT_TENANT = 'default';

const pick = (
  name: 'tenant' | 'source',
  fromMessage: unknown,
  attributes: Record<string, string>,
): string | undefined => {
  const inMessage = optionalSlug(fromMessage, name);
  const inAttributes = optionalSlug(own(attributes, name), `attributes.${name}`);
  if (inMessage !== undefined && inAttributes !== undefined && inMessage !== inAttributes) {
    return fail(
      'invalid-field',
      name,
      `message says "${inMessage}" but the ${name} attribute says "${inAttributes}"`,
    );
  }
  return inMessage ?? inAttributes;
};

/**
 * A tenant as every key holds it: trimmed and lower-cased, `[a-z0-9-]`, at most 64 characters
 * (`' ACME '` → `acme`). Blank or anything else is a `ValidationError` naming `field`. The CLI uses it
 * for `--tenant` so that what an operator types finds what the consumer booked.
 */
export const normalizeTenant = (value: unknown, field = 'tenant'): string =>
  optionalSlug(value, field) ?? fail('missing-field', field, 'required');

/** Tenant: message field, else the `tenant` attribute, else `default`. */
export const resolveTenant = (attributes: Record<string, string>, fromMessage?: unknown): string =>
  pick('tenant', fromMessage, attributes) ?? DEFAULT_TENANT;

/** Source: message field, else the `source` attribute, else `fallback` (or `missing-field` without one). */
export const resolveSource = (
  attributes: Record<string, string>,
  fromMessage?: unknown,
  fallback?: string,
): string =>
  pick('source', fromMessage, attributes) ??
  fallback ??
  fail('missing-field', 'source', 'required (in the message or as a "source" message attribute)');

/**
 * The tenant of a message delivered through `bound`'s topic: always `bound`. A tenant the message names
 * anywhere — a `tenant` field of its body (in any format) or its `tenant` attribute — must be that one,
 * otherwise it is `tenant-mismatch`: a claim in a payload is not a credential.
 */
export const bindTenant = (
  bound: string,
  message: unknown,
  attributes: Record<string, string>,
): string => {
  const claims: [unknown, string][] = [
    [isObject(message) ? own(message, 'tenant') : undefined, 'tenant'],
    [own(attributes, 'tenant'), 'attributes.tenant'],
  ];
  for (const [value, field] of claims) {
    const claimed = optionalSlug(value, field);
    if (claimed !== undefined && claimed !== bound)
      fail(
        'tenant-mismatch',
        field,
        `the message claims tenant "${claimed}" but was published to the topic of tenant "${bound}"`,
      );
  }
  return bound;
};

/** A source a tenant's binding allows (`allowed` absent: any); otherwise `source-mismatch`. */
export const checkBoundSource = (
  bound: string,
  source: string,
  allowed: readonly string[] | undefined,
): void => {
  if (allowed === undefined || allowed.includes(source)) return;
  fail(
    'source-mismatch',
    'source',
    `tenant "${bound}"'s topic accepts the sources ${allowed.map((s) => `"${s}"`).join(', ')}, ` +
      `not "${source}"`,
  );
};
