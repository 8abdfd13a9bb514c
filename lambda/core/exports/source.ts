/**
 * Export sources: which tenant an export belongs to is decided by where it is delivered (bucket + key
 * prefix), configured by the operator — never by anything inside a manifest or a row.
 */
import { fail } from '../errors';
import { normalizeTenant } from '../formats/scope';
import { sourceIdOf } from './plan';

export interface ExportSource {
  tenant: string;
  bucket: string;
  /** Key prefix without leading or trailing `/`; '' binds the whole bucket. */
  prefix: string;
  /** Source slug for rows without ProviderName (e.g. `aws`); optional. */
  source?: string;
  /** Export names under the prefix, most authoritative first (core/export-authority.ts). */
  precedence?: readonly string[];
}

const isUnder = (key: string, prefix: string): boolean =>
  prefix === '' || key.startsWith(`${prefix}/`);

/** A source as configured: tenant normalized, prefix without slashes at either end. */
export const exportSource = (source: ExportSource): ExportSource => {
  if (source.bucket.trim() === '') fail('missing-field', 'bucket', 'required');
  if (source.prefix.startsWith('/') || source.prefix.endsWith('/')) {
    fail('invalid-field', 'prefix', 'write the prefix without a leading or trailing "/"');
  }
  return { ...source, tenant: normalizeTenant(source.tenant) };
};

/**
 * The source that owns `key` in `bucket`: the one with the longest prefix containing it (prefixes match
 * whole path segments: `acme` does not own `acme-corp/…`). Undefined when no source owns it.
 */
export const sourceOfKey = (
  sources: readonly ExportSource[],
  bucket: string,
  key: string,
): ExportSource | undefined =>
  sources
    .filter((source) => source.bucket === bucket && isUnder(key, source.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length)[0];

/**
 * The position the configured source declares for an export source id (`<bucket>/<prefix>/<export-name>`)
 * in its `precedence` list; undefined when the list does not name it.
 */
export const declaredPrecedence = (
  configured: ExportSource,
  sourceId: string,
): number | undefined => {
  const at = (configured.precedence ?? []).findIndex(
    (name) =>
      sourceIdOf(
        configured.bucket,
        configured.prefix === '' ? name : `${configured.prefix}/${name}`,
      ) === sourceId,
  );
  return at === -1 ? undefined : at;
};
