/**
 * The `exportSources` configuration: which tenant owns which key prefix of the export bucket. The CDK
 * app validates it at synth and hands it to the export functions as JSON (EXPORT_SOURCES); the
 * functions parse it back with the same rules.
 */

import { SLUG_PATTERN as SLUG, slugProblem } from './slugs';

export interface ExportSourceConfig {
  /** Tenant slug every row under the prefix is booked to. */
  readonly tenant: string;
  /** Key prefix inside the export bucket, ending in `/` (the S3 path prefix of the Data Export). */
  readonly prefix: string;
  /** Provider slug for rows without ProviderName (default `aws`). */
  readonly source?: string;
  /**
   * Export names under the prefix (paths below it), most authoritative first: where two exports cover
   * the same account and period, the first listed counts and the other is shadowed.
   */
  readonly precedence?: readonly string[];
}

export const EXPORT_SOURCES_KEY = 'exportSources';
export const DEFAULT_EXPORT_PROVIDER = 'aws';

const PREFIX = /^[^/](?:[^/]|\/(?!\/))*\/$/;

const problem = (index: number, field: string, reason: string): Error =>
  new Error(`${EXPORT_SOURCES_KEY}[${index}].${field} ${reason}`);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The prefix's path segments cannot be `.` or `..` (S3 keys could, our manifests may not). */
const hasDotSegment = (prefix: string): boolean =>
  prefix.split('/').some((segment) => segment === '.' || segment === '..');

/** Export names (paths below the prefix), each once: `["focus-main", "legacy-cur"]`. */
const precedenceAt = (value: unknown, index: number): string[] => {
  const names = Array.isArray(value) ? value : [];
  const bad = names.findIndex(
    (name) => typeof name !== 'string' || !PREFIX.test(`${name}/`) || hasDotSegment(name),
  );
  if (!Array.isArray(value) || names.length === 0 || bad !== -1) {
    throw problem(
      index,
      'precedence',
      'must be a non-empty list of export names under the prefix, most authoritative first (e.g. ["focus-main", "legacy-cur"])',
    );
  }
  const repeated = names.find((name, at) => names.indexOf(name) !== at) as string | undefined;
  if (repeated !== undefined) throw problem(index, 'precedence', `names "${repeated}" twice`);
  return names as string[];
};

const sourceAt = (value: unknown, index: number): ExportSourceConfig => {
  if (!isRecord(value)) throw problem(index, '', 'must be an object { tenant, prefix, source? }');
  const known = ['tenant', 'prefix', 'source', 'precedence'];
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw problem(index, unknown[0], 'is not a known field');
  const { tenant, prefix, source, precedence } = value;
  if (typeof tenant !== 'string' || !SLUG.test(tenant)) {
    throw problem(index, 'tenant', slugProblem('tenant', tenant));
  }
  if (typeof prefix !== 'string' || !PREFIX.test(prefix) || hasDotSegment(prefix)) {
    throw problem(
      index,
      'prefix',
      'must be a key prefix ending in "/", without a leading "/", "//" or "."/".." segments (e.g. "acme/")',
    );
  }
  if (source !== undefined && (typeof source !== 'string' || !SLUG.test(source))) {
    throw problem(index, 'source', slugProblem('source', source));
  }
  return {
    tenant,
    prefix,
    ...(source === undefined ? {} : { source }),
    ...(precedence === undefined ? {} : { precedence: precedenceAt(precedence, index) }),
  };
};

/**
 * Validates the list: every entry well-formed, no prefix inside another one (a key would belong to
 * two tenants and the longest-prefix rule would silently take it from the shorter one).
 */
export const parseExportSources = (value: unknown): ExportSourceConfig[] => {
  if (!Array.isArray(value)) {
    throw new Error(`${EXPORT_SOURCES_KEY} must be a list of { tenant, prefix, source? }`);
  }
  const sources = value.map(sourceAt);
  sources.forEach((source, index) => {
    const other = sources.findIndex(
      (candidate, at) => at !== index && source.prefix.startsWith(candidate.prefix),
    );
    if (other !== -1) {
      throw problem(
        index,
        'prefix',
        `"${source.prefix}" overlaps ${EXPORT_SOURCES_KEY}[${other}].prefix "${sources[other].prefix}": prefixes must not contain one another`,
      );
    }
  });
  return sources;
};

/** EXPORT_SOURCES text → the validated list (an unset variable is an empty list). */
export const parseExportSourcesJson = (text: string | undefined): ExportSourceConfig[] => {
  if (text === undefined || text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${EXPORT_SOURCES_KEY} is not JSON`);
  }
  return parseExportSources(value);
};
