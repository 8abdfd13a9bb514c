/**
 * The `azureExports` configuration: Azure Cost Management exports the stage copies into a tenant's
 * prefix of the export bucket (docs/azure-acquisition.md). Parsed and checked at synth; the function
 * and its schedules are built by lib/constructs/azure-acquisition.ts.
 */
import type { AzureExportSource } from '../contract/azure-acquisition';
import type { ExportSourceConfig } from '../contract/export-sources';
import { SLUG_PATTERN, SLUG_RULE } from '../contract/slugs';

export const DEFAULT_AZURE_SCHEDULE = 'rate(6 hours)';

export interface AzureExportConfig {
  readonly tenant: string;
  readonly storageAccountUrl: string;
  readonly container: string;
  readonly exportFolder: string;
  readonly secretArn: string;
  /** One of the tenant's `exportSources[].prefix`; may be left out when the tenant has exactly one. */
  readonly prefix?: string;
  /** EventBridge Scheduler expression, `rate(…)` or `cron(…)` (default `rate(6 hours)`). */
  readonly schedule: string;
}

const KNOWN = [
  'tenant',
  'storageAccountUrl',
  'container',
  'exportFolder',
  'secretArn',
  'prefix',
  'schedule',
];
const ACCOUNT_URL = /^https:\/\/[a-z0-9]{3,24}\.blob\.[a-z0-9.-]+[a-z0-9]\/?$/;
const CONTAINER = /^(?=.{3,63}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FOLDER = /^[^/](?:[^/]|\/(?!\/))*\/$/;
/** The complete ARN (with the 6 characters Secrets Manager appends), as `describe-secret` prints it. */
const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;
const SCHEDULE =
  /^(rate\((1 (minute|hour|day)|([2-9]|[1-9]\d+) (minutes|hours|days))\)|cron\(\S+( \S+){5}\))$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (
  value: Record<string, unknown>,
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

const entryAt = (value: unknown, index: number): AzureExportConfig => {
  const at = `azureExports[${index}]`;
  if (!isRecord(value))
    throw new Error(
      `${at} must be an object { tenant, storageAccountUrl, container, exportFolder, secretArn, prefix?, schedule? }`,
    );
  const unknown = Object.keys(value).find((key) => !KNOWN.includes(key));
  if (unknown !== undefined)
    throw new Error(`${at}.${unknown} is not a known field (known: ${KNOWN.join(', ')})`);
  const prefix = value.prefix;
  if (prefix !== undefined && (typeof prefix !== 'string' || !prefix.endsWith('/')))
    throw new Error(
      `${at}.prefix must be one of the tenant's exportSources[].prefix (ending in "/"), got ${JSON.stringify(prefix)}`,
    );
  return {
    tenant: text(value, at, 'tenant', SLUG_PATTERN, `must be a tenant slug (${SLUG_RULE})`),
    storageAccountUrl: text(
      value,
      at,
      'storageAccountUrl',
      ACCOUNT_URL,
      "must be the storage account's blob endpoint, https://<account>.blob.core.windows.net",
    ),
    container: text(
      value,
      at,
      'container',
      CONTAINER,
      'must be a Blob Storage container name (3-63 lower-case letters, digits and single hyphens)',
    ),
    exportFolder: text(
      value,
      at,
      'exportFolder',
      FOLDER,
      'must be the export\'s folder in the container, <rootFolderPath>/<export name>/ (ending in "/", no leading "/")',
    ),
    secretArn: text(
      value,
      at,
      'secretArn',
      SECRET_ARN,
      'must be the complete Secrets Manager ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, ' +
        'as `aws secretsmanager describe-secret --secret-id <name>` prints it)',
    ),
    ...(prefix === undefined ? {} : { prefix }),
    schedule:
      value.schedule === undefined
        ? DEFAULT_AZURE_SCHEDULE
        : text(
            value,
            at,
            'schedule',
            SCHEDULE,
            'must be an EventBridge Scheduler expression such as "rate(6 hours)" or "cron(0 */6 * * ? *)"',
          ),
  };
};

export const parseAzureExports = (value: unknown): AzureExportConfig[] => {
  if (!Array.isArray(value)) throw new Error('azureExports must be a JSON list');
  const entries = value.map(entryAt);
  const ids = entries.map(
    (e) => `${e.storageAccountUrl.replace(/\/$/, '')}/${e.container}/${e.exportFolder}`,
  );
  const repeated = ids.findIndex((id, at) => ids.indexOf(id) !== at);
  if (repeated !== -1)
    throw new Error(
      `azureExports[${repeated}] names the export folder ${ids[repeated]} again; each export is copied by one entry`,
    );
  return entries;
};

/** Problems of `azureExports` against the tenants' prefixes and each other (a cross-field rule). */
export const azureExportsProblem = (
  entries: readonly AzureExportConfig[],
  exportSources: readonly ExportSourceConfig[],
): string | undefined => {
  for (const [index, entry] of entries.entries()) {
    const at = `azureExports[${index}]`;
    const prefixes = exportSources.filter((s) => s.tenant === entry.tenant).map((s) => s.prefix);
    if (prefixes.length === 0)
      return (
        `${at}.tenant: tenant "${entry.tenant}" has no export prefix; the copies land under it, so add ` +
        `{"tenant": "${entry.tenant}", "prefix": "${entry.tenant}/"} to exportSources`
      );
    if (entry.prefix !== undefined && !prefixes.includes(entry.prefix))
      return `${at}.prefix: "${entry.prefix}" is not one of tenant "${entry.tenant}"'s exportSources prefixes (${prefixes.map((p) => `"${p}"`).join(', ')})`;
    if (entry.prefix === undefined && prefixes.length > 1)
      return `${at}.prefix: tenant "${entry.tenant}" has several export prefixes (${prefixes.map((p) => `"${p}"`).join(', ')}); name the one the copies land under`;
    const other = entries.find((e) => e.tenant === entry.tenant && e.schedule !== entry.schedule);
    if (other)
      return (
        `${at}.schedule: tenant "${entry.tenant}" has Azure exports on "${entry.schedule}" and "${other.schedule}"; ` +
        "one schedule copies all of a tenant's Azure exports, so give them the same schedule"
      );
  }
  return undefined;
};

/** The sources the function reads (prefix resolved, without its trailing `/`); config is valid. */
export const resolveAzureSources = (
  entries: readonly AzureExportConfig[],
  exportSources: readonly ExportSourceConfig[],
): AzureExportSource[] =>
  entries.map((entry) => {
    const prefix =
      entry.prefix ??
      (exportSources.find((s) => s.tenant === entry.tenant) as ExportSourceConfig).prefix;
    return {
      tenant: entry.tenant,
      storageAccountUrl: entry.storageAccountUrl.replace(/\/$/, ''),
      container: entry.container,
      exportFolder: entry.exportFolder,
      secretArn: entry.secretArn,
      prefix: prefix.replace(/\/$/, ''),
    };
  });
