/**
 * Which export prefixes the local stack binds. The deployed stack only ingests manifests under the
 * prefixes of its `exportSources` configuration; the local run configures it the same way, through
 * CDK context: without `-c exportSources=…` it binds `exports/<tenant>/` for every tenant its export
 * lines (or the sample) name, and with it every such tenant must be bound by the given list.
 */
import {
  EXPORT_SOURCES_KEY,
  parseExportSources,
  type ExportSourceConfig,
} from '../../contract/export-sources';
import { UsageError } from '../runtime/faults';

/** The prefix the local run binds to a tenant when the configuration does not name one. */
export const localExportPrefix = (tenant: string): string => `exports/${tenant}/`;

const givenSources = (value: unknown): ExportSourceConfig[] => {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      throw new UsageError(
        `-c ${EXPORT_SOURCES_KEY}: not JSON; give a list such as [{"tenant":"acme","prefix":"exports/acme/"}]`,
      );
    }
  }
  try {
    return parseExportSources(list);
  } catch (error) {
    throw new UsageError(`-c ${EXPORT_SOURCES_KEY}: ${(error as Error).message}`);
  }
};

/**
 * The export sources of the run, and the context that configures them: the given list when the
 * context has one (each tenant of the exports must be bound by it), else one default prefix per tenant.
 */
export const exportSourcesFor = (
  tenants: readonly string[],
  context: Record<string, unknown> = {},
): { sources: ExportSourceConfig[]; context: Record<string, unknown> } => {
  const wanted = [...new Set(tenants)].sort();
  if (context[EXPORT_SOURCES_KEY] !== undefined) {
    const sources = givenSources(context[EXPORT_SOURCES_KEY]);
    const unbound = wanted.filter((tenant) => !sources.some((source) => source.tenant === tenant));
    if (unbound.length > 0)
      throw new UsageError(
        `-c ${EXPORT_SOURCES_KEY} binds no prefix to tenant ${unbound.join(', ')} of the export lines: add {"tenant":"${unbound[0]}","prefix":"${localExportPrefix(unbound[0])}"} or leave ${EXPORT_SOURCES_KEY} out (the local run then binds exports/<tenant>/ for every tenant)`,
      );
    return { sources, context };
  }
  if (wanted.length === 0) return { sources: [], context };
  const sources = wanted.map((tenant) => ({ tenant, prefix: localExportPrefix(tenant) }));
  return { sources, context: { ...context, [EXPORT_SOURCES_KEY]: JSON.stringify(sources) } };
};

/** The prefix of a tenant's export (the first source bound to it), without the trailing `/`. */
export const exportPrefixOf = (sources: readonly ExportSourceConfig[], tenant: string): string => {
  const source = sources.find((candidate) => candidate.tenant === tenant);
  if (!source) throw new Error(`no export source binds tenant ${tenant}`);
  return source.prefix.replace(/\/$/, '');
};
