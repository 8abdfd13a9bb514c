/**
 * Whose export a `put` really is. The planner books an export to the `exportSources` entry whose prefix
 * holds its manifest (the longest one), whatever `--tenant` says, so a `put` is refused when that
 * entry is another tenant's (it would replace that tenant's snapshot of the period) or when no entry
 * holds it (the manifest would be dead-lettered).
 */
import type { ExportSourceConfig } from '../../contract/export-sources';
import { sourceOfKey } from '../../lambda/core/exports/source';

export interface PrefixCheck {
  sources: readonly ExportSourceConfig[];
  /** Where the sources were read (stack names or outputs file), for the message. */
  origin: string;
  tenant: string;
  /** The upload's prefix, without leading or trailing `/`. */
  prefix: string;
  manifestKey: string;
}

const shown = (prefix: string): string => (prefix === '' ? 'the bucket root' : `"${prefix}/"`);

const prefixesOf = (sources: readonly ExportSourceConfig[], tenant: string): string => {
  const own = sources.filter((source) => source.tenant === tenant).map((s) => `"${s.prefix}"`);
  return own.length > 0 ? `${tenant}'s prefix ${own.join(' or ')}` : `no prefix of ${tenant}`;
};

/** Why the upload must not go ahead, or undefined when `tenant` owns where it goes. */
export const prefixOwnerProblem = (check: PrefixCheck): string | undefined => {
  const { sources, origin, tenant, prefix, manifestKey } = check;
  const owner = sourceOfKey(
    sources.map((source) => ({ ...source, bucket: '', prefix: source.prefix.replace(/\/$/, '') })),
    '',
    manifestKey,
  );
  if (owner?.tenant === tenant) return undefined;
  if (owner)
    return (
      `--prefix ${shown(prefix)} belongs to tenant "${owner.tenant}", not to --tenant "${tenant}" ` +
      `(exportSources of ${origin} binds "${owner.prefix}/" to "${owner.tenant}"): the upload would ` +
      `replace ${owner.tenant}'s export of the period. Nothing uploaded; use ` +
      `${prefixesOf(sources, tenant)}, or fix --tenant`
    );
  const bind =
    prefix === ''
      ? ''
      : `, or bind it with {"tenant":"${tenant}","prefix":"${prefix}/"} in exportSources and deploy`;
  return (
    `--prefix ${shown(prefix)} is under no exportSources prefix of ${origin}: the pipeline would ` +
    `dead-letter the manifest. Nothing uploaded; use ${prefixesOf(sources, tenant)}${bind}`
  );
};
