/**
 * The `azureExports` configuration: Azure Cost Management exports the stage copies into a tenant's
 * prefix of the export bucket (docs/azure-acquisition.md). Parsed and checked at synth; the function
 * and its schedules are built by lib/constructs/scheduled-acquisition.ts.
 */
import type { AzureExportSource } from '../contract/azure-acquisition';
import type { ExportSourceConfig } from '../contract/export-sources';
import { SLUG_PATTERN, SLUG_RULE } from '../contract/slugs';
import {
  entryObject,
  ONE_OF_PREFIXES,
  optionalPrefixField,
  resolvedPrefix,
  scheduleField,
  secretArnField,
  tenantPrefixProblem,
  textField,
} from './acquisition-config';

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

const entryAt = (entry: unknown, index: number): AzureExportConfig => {
  const at = `azureExports[${index}]`;
  const value = entryObject(
    entry,
    at,
    KNOWN,
    '{ tenant, storageAccountUrl, container, exportFolder, secretArn, prefix?, schedule? }',
  );
  const prefix = optionalPrefixField(value, at, "one of the tenant's exportSources[].prefix");
  return {
    tenant: textField(value, at, 'tenant', SLUG_PATTERN, `must be a tenant slug (${SLUG_RULE})`),
    storageAccountUrl: textField(
      value,
      at,
      'storageAccountUrl',
      ACCOUNT_URL,
      "must be the storage account's blob endpoint, https://<account>.blob.core.windows.net",
    ),
    container: textField(
      value,
      at,
      'container',
      CONTAINER,
      'must be a Blob Storage container name (3-63 lower-case letters, digits and single hyphens)',
    ),
    exportFolder: textField(
      value,
      at,
      'exportFolder',
      FOLDER,
      'must be the export\'s folder in the container, <rootFolderPath>/<export name>/ (ending in "/", no leading "/")',
    ),
    secretArn: secretArnField(value, at),
    ...prefix,
    schedule: scheduleField(value, at),
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
): string | undefined =>
  tenantPrefixProblem(entries, exportSources, {
    key: 'azureExports',
    verb: 'copies',
    sources: 'Azure exports',
    allowed: ONE_OF_PREFIXES,
  });

/** The sources the function reads (prefix resolved, without its trailing `/`); config is valid. */
export const resolveAzureSources = (
  entries: readonly AzureExportConfig[],
  exportSources: readonly ExportSourceConfig[],
): AzureExportSource[] =>
  entries.map((entry) => ({
    tenant: entry.tenant,
    storageAccountUrl: entry.storageAccountUrl.replace(/\/$/, ''),
    container: entry.container,
    exportFolder: entry.exportFolder,
    secretArn: entry.secretArn,
    prefix: resolvedPrefix(entry, exportSources),
  }));
