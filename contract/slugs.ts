/**
 * The one rule for tenant and source slugs, shared by config validation (synth), the environment the
 * functions read back, and the ledger's own field readers (`lambda/core/formats/fields.ts`). A slug
 * is what every key is built from, so a value that passes synth is always one the ledger can book.
 *
 * The alphabet is `a-z`, `0-9` and `-`, starting and ending with a letter or digit, at most 64
 * characters:
 * - no `#`: it separates the parts of ledger and dedup keys (`TENANT#acme#ACCOUNT#…`) and of FIFO
 *   group ids (`tenant#account`); no `=`: it marks a hashed group-id part;
 * - no `.`: a tenant slug is part of its SNS topic name, which allows only letters, digits, `-`, `_`;
 * - no `_` or `.`: a source taken from a row's `ProviderName` is slugified to `[a-z0-9-]`, so
 *   `my_cloud` configured for rows without one would book the same provider under a second name;
 * - lower case only: `--tenant ACME` and a row of `Acme` must find the same keys.
 */

export const SLUG_MAX_LENGTH = 64;

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The rule in words, for error messages and docs. */
export const SLUG_RULE =
  'lower-case a-z, 0-9 and "-", starting and ending with a letter or digit, at most 64 characters';

export type SlugKind = 'tenant' | 'source';

const EXAMPLE: Record<SlugKind, string> = { tenant: 'acme', source: 'aws' };

export const isSlug = (value: unknown): value is string =>
  typeof value === 'string' && SLUG_PATTERN.test(value);

/** Why `value` is not a `kind` slug, for a message that names the field before it. */
export const slugProblem = (kind: SlugKind, value: unknown): string =>
  `${JSON.stringify(value) ?? String(value)} must be a ${kind} slug as the ledger keeps it: ` +
  `${SLUG_RULE} (e.g. "${EXAMPLE[kind]}")`;
