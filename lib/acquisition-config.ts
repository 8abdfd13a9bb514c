/**
 * What the acquisition configurations (`azureExports`, `gcpBillingExports`) check alike at synth: an
 * entry's known fields, the complete secret ARN, the Scheduler expression, the tenant's export prefix
 * the files land under, and one schedule per tenant. Each refusal names the entry and the fix.
 */
import type { ExportSourceConfig } from '../contract/export-sources';

export const DEFAULT_ACQUISITION_SCHEDULE = 'rate(6 hours)';

/** The complete ARN (with the 6 characters Secrets Manager appends), as `describe-secret` prints it. */
const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;
const SCHEDULE =
  /^(rate\((1 (minute|hour|day)|([2-9]|[1-9]\d+) (minutes|hours|days))\)|cron\(\S+( \S+){5}\))$/;

export type ConfigEntry = Record<string, unknown>;

/** The entry as an object with only `known` fields, or an error naming the shape / the stray field. */
export const entryObject = (
  value: unknown,
  at: string,
  known: readonly string[],
  shape: string,
): ConfigEntry => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${at} must be an object ${shape}`);
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown !== undefined)
    throw new Error(`${at}.${unknown} is not a known field (known: ${known.join(', ')})`);
  return value as ConfigEntry;
};

/** A text field matching `pattern`; otherwise `<at>.<field> <fix>, got <value>`. */
export const textField = (
  value: ConfigEntry,
  at: string,
  field: string,
  pattern: RegExp,
  fix: string,
): string => {
  const found = value[field];
  if (typeof found !== 'string' || !pattern.test(found))
    throw new Error(`${at}.${field} ${fix}, got ${JSON.stringify(found)}`);
  return found;
};

export const secretArnField = (value: ConfigEntry, at: string): string =>
  textField(
    value,
    at,
    'secretArn',
    SECRET_ARN,
    'must be the complete Secrets Manager ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, ' +
      'as `aws secretsmanager describe-secret --secret-id <name>` prints it)',
  );

export const scheduleField = (value: ConfigEntry, at: string): string =>
  value.schedule === undefined
    ? DEFAULT_ACQUISITION_SCHEDULE
    : textField(
        value,
        at,
        'schedule',
        SCHEDULE,
        'must be an EventBridge Scheduler expression such as "rate(6 hours)" or "cron(0 */6 * * ? *)"',
      );

/** An optional `prefix` ending in `/`; `expected` says which prefixes it may be. */
export const optionalPrefixField = (
  value: ConfigEntry,
  at: string,
  expected: string,
): { prefix?: string } => {
  const prefix = value.prefix;
  if (prefix === undefined) return {};
  if (typeof prefix !== 'string' || !prefix.endsWith('/'))
    throw new Error(
      `${at}.prefix must be ${expected} (ending in "/"), got ${JSON.stringify(prefix)}`,
    );
  return { prefix };
};

export interface AcquisitionEntry {
  readonly tenant: string;
  readonly prefix?: string;
  readonly schedule: string;
}

const quotedList = (items: readonly string[]): string => items.map((p) => `"${p}"`).join(', ');

/**
 * Problems of one provider's entries against the tenants' prefixes: a tenant without a prefix, a
 * prefix `allowed` refuses, several prefixes and none named, two schedules for one tenant.
 */
export const tenantPrefixProblem = (
  entries: readonly AcquisitionEntry[],
  exportSources: readonly ExportSourceConfig[],
  names: { key: string; verb: string; sources: string; allowed: AllowedPrefix },
): string | undefined => {
  for (const [index, entry] of entries.entries()) {
    const at = `${names.key}[${index}]`;
    const prefixes = exportSources.filter((s) => s.tenant === entry.tenant).map((s) => s.prefix);
    if (prefixes.length === 0)
      return (
        `${at}.tenant: tenant "${entry.tenant}" has no export prefix; the copies land under it, so add ` +
        `{"tenant": "${entry.tenant}", "prefix": "${entry.tenant}/"} to exportSources`
      );
    if (entry.prefix !== undefined && !names.allowed.test(entry.prefix, prefixes))
      return `${at}.prefix: "${entry.prefix}" is not ${names.allowed.rule} tenant "${entry.tenant}"'s exportSources prefixes (${quotedList(prefixes)})`;
    if (entry.prefix === undefined && prefixes.length > 1)
      return `${at}.prefix: tenant "${entry.tenant}" has several export prefixes (${quotedList(prefixes)}); name the one the copies land under`;
    const other = entries.find((e) => e.tenant === entry.tenant && e.schedule !== entry.schedule);
    if (other)
      return (
        `${at}.schedule: tenant "${entry.tenant}" has ${names.sources} on "${entry.schedule}" and "${other.schedule}"; ` +
        `one schedule ${names.verb} all of a tenant's ${names.sources}, so give them the same schedule`
      );
  }
  return undefined;
};

export interface AllowedPrefix {
  /** Completes `"<prefix>" is not … tenant "t"'s exportSources prefixes`. */
  rule: string;
  test(prefix: string, tenantPrefixes: readonly string[]): boolean;
}

export const ONE_OF_PREFIXES: AllowedPrefix = {
  rule: 'one of',
  test: (prefix, tenantPrefixes) => tenantPrefixes.includes(prefix),
};

export const INSIDE_PREFIXES: AllowedPrefix = {
  rule: 'one of, or inside one of,',
  test: (prefix, tenantPrefixes) => tenantPrefixes.some((p) => prefix.startsWith(p)),
};

/** The entry's prefix (or the tenant's only one), without its trailing `/`; config is valid. */
export const resolvedPrefix = (
  entry: AcquisitionEntry,
  exportSources: readonly ExportSourceConfig[],
): string =>
  (
    entry.prefix ??
    (exportSources.find((s) => s.tenant === entry.tenant) as ExportSourceConfig).prefix
  ).replace(/\/$/, '');

/** An entry naming a tenant not in `tenants` (when tenants are configured). */
export const unknownTenantProblem = (
  entries: readonly AcquisitionEntry[],
  tenantIds: readonly string[],
  key: string,
): string | undefined => {
  if (tenantIds.length === 0) return undefined;
  const ids = new Set(tenantIds);
  const index = entries.findIndex((entry) => !ids.has(entry.tenant));
  return index === -1
    ? undefined
    : `${key}[${index}].tenant: "${entries[index].tenant}" is not one of tenants[].id (${[...ids].join(', ')}); use the same id or add the tenant`;
};
