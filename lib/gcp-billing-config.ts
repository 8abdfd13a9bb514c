/**
 * The `gcpBillingExports` configuration: Google Cloud billing export tables (BigQuery) the stage reads
 * into a tenant's prefix of the export bucket (docs/gcp-acquisition.md). Parsed and checked at synth;
 * the function and its schedules are built by lib/constructs/scheduled-acquisition.ts.
 */
import type { ExportSourceConfig } from '../contract/export-sources';
import { BIGQUERY_TABLE_PATTERN, type GcpBillingSource } from '../contract/gcp-acquisition';
import { SLUG_PATTERN, SLUG_RULE } from '../contract/slugs';
import {
  entryObject,
  INSIDE_PREFIXES,
  optionalPrefixField,
  resolvedPrefix,
  scheduleField,
  secretArnField,
  tenantPrefixProblem,
  textField,
} from './acquisition-config';

export const DEFAULT_GCP_EXPORT_NAME = 'gcp-billing';

export interface GcpBillingExportConfig {
  readonly tenant: string;
  /** The project the query jobs run (and are billed) in. */
  readonly jobProject: string;
  /** `<project>.<dataset>.gcp_billing_export_v1_…` or `…gcp_billing_export_resource_v1_…`. */
  readonly table: string;
  readonly location: string;
  readonly secretArn: string;
  /** One of the tenant's `exportSources[].prefix`, or a folder inside one; optional with exactly one. */
  readonly prefix?: string;
  /** The export's folder under the prefix (default `gcp-billing`). */
  readonly exportName: string;
  readonly schedule: string;
}

const KNOWN = [
  'tenant',
  'jobProject',
  'table',
  'location',
  'secretArn',
  'prefix',
  'exportName',
  'schedule',
];
/** A project id (6-30 characters), optionally `<domain>:` scoped. */
const PROJECT = /^(?:[a-z][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** The standard and detailed usage cost tables Cloud Billing creates (not a view: the probe reads `_PARTITIONTIME`). */
const BILLING_TABLE_NAME = /^gcp_billing_export_(resource_)?v1_[0-9A-Fa-f_]+$/;
/** A BigQuery location: a multi-region or a region. */
const LOCATION = /^(US|EU|[a-z]+-[a-z]+\d+)$/;

const tableField = (value: Record<string, unknown>, at: string): string => {
  const table = textField(
    value,
    at,
    'table',
    BIGQUERY_TABLE_PATTERN,
    'must be the billing export table as <project>.<dataset>.<table> (BigQuery → the dataset → the table → Details → Table ID)',
  );
  const name = table.slice(table.lastIndexOf('.') + 1);
  if (!BILLING_TABLE_NAME.test(name))
    throw new Error(
      `${at}.table must name the standard (gcp_billing_export_v1_<billing account>) or detailed ` +
        '(gcp_billing_export_resource_v1_<billing account>) usage cost table itself, not a view, the pricing ' +
        `or the FOCUS table (the change probe reads _PARTITIONTIME), got ${JSON.stringify(table)}`,
    );
  return table;
};

const entryAt = (entry: unknown, index: number): GcpBillingExportConfig => {
  const at = `gcpBillingExports[${index}]`;
  const value = entryObject(
    entry,
    at,
    KNOWN,
    '{ tenant, jobProject, table, location, secretArn, prefix?, exportName?, schedule? }',
  );
  const prefix = optionalPrefixField(
    value,
    at,
    "one of the tenant's exportSources[].prefix or a folder inside one",
  );
  return {
    tenant: textField(value, at, 'tenant', SLUG_PATTERN, `must be a tenant slug (${SLUG_RULE})`),
    jobProject: textField(
      value,
      at,
      'jobProject',
      PROJECT,
      'must be the id of the project the query jobs run in (6-30 lower-case letters, digits and hyphens; the service account needs BigQuery Job User there)',
    ),
    table: tableField(value, at),
    location: textField(
      value,
      at,
      'location',
      LOCATION,
      'must be the billing dataset\'s location as BigQuery names it ("US", "EU" or a region such as "europe-west1"; the dataset\'s Details page)',
    ),
    secretArn: secretArnField(value, at),
    ...prefix,
    exportName:
      value.exportName === undefined
        ? DEFAULT_GCP_EXPORT_NAME
        : textField(value, at, 'exportName', SLUG_PATTERN, `must be a folder name (${SLUG_RULE})`),
    schedule: scheduleField(value, at),
  };
};

export const parseGcpBillingExports = (value: unknown): GcpBillingExportConfig[] => {
  if (!Array.isArray(value)) throw new Error('gcpBillingExports must be a JSON list');
  const entries = value.map(entryAt);
  const tables = entries.map((entry) => entry.table);
  const repeated = tables.findIndex((table, at) => tables.indexOf(table) !== at);
  if (repeated !== -1)
    throw new Error(
      `gcpBillingExports[${repeated}] names the table ${tables[repeated]} again; each billing table is read by one entry (its cursor is the table's)`,
    );
  return entries;
};

/** Problems of `gcpBillingExports` against the tenants' prefixes and each other (a cross-field rule). */
export const gcpBillingExportsProblem = (
  entries: readonly GcpBillingExportConfig[],
  exportSources: readonly ExportSourceConfig[],
): string | undefined => {
  const problem = tenantPrefixProblem(entries, exportSources, {
    key: 'gcpBillingExports',
    verb: 'reads',
    sources: 'GCP billing exports',
    allowed: INSIDE_PREFIXES,
  });
  if (problem !== undefined) return problem;
  const folders = entries.map(
    (entry) => `${resolvedPrefix(entry, exportSources)}/${entry.exportName}`,
  );
  const repeated = folders.findIndex((folder, at) => folders.indexOf(folder) !== at);
  return repeated === -1
    ? undefined
    : `gcpBillingExports[${repeated}].exportName: "${folders[repeated]}/" is written by gcpBillingExports[${folders.indexOf(folders[repeated])}] too; ` +
        'give each table of a prefix its own exportName';
};

/** The sources the function reads (prefix resolved, without its trailing `/`); config is valid. */
export const resolveGcpSources = (
  entries: readonly GcpBillingExportConfig[],
  exportSources: readonly ExportSourceConfig[],
): GcpBillingSource[] =>
  entries.map((entry) => ({
    tenant: entry.tenant,
    jobProject: entry.jobProject,
    table: entry.table,
    location: entry.location,
    secretArn: entry.secretArn,
    prefix: resolvedPrefix(entry, exportSources),
    exportName: entry.exportName,
  }));
