/**
 * The `dataExports` configuration: AWS Data Exports the stack creates itself, each delivering into a
 * tenant's prefix of the export bucket. Parsed and checked at synth; the exports are built by
 * lib/data-exports-stack.ts.
 */

export const DATA_EXPORT_TABLES = ['cur2', 'focus'] as const;
export type DataExportTable = (typeof DATA_EXPORT_TABLES)[number];

export const DATA_EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type DataExportFormat = (typeof DATA_EXPORT_FORMATS)[number];

export const DATA_EXPORT_GRANULARITIES = ['hourly', 'daily', 'monthly'] as const;
export type DataExportGranularity = (typeof DATA_EXPORT_GRANULARITIES)[number];

export interface DataExportConfig {
  /** One of `exportSources[].prefix`: the export delivers under it, so its rows are that tenant's. */
  readonly prefix: string;
  /** The export's name in Data Exports; also the folder under the prefix (part of the source identity). */
  readonly name: string;
  /** `cur2` (Cost and Usage Report 2.0) or `focus` (FOCUS 1.0 with AWS columns). */
  readonly table: DataExportTable;
  /** File format, default `parquet` (CSV is delivered gzip-compressed). */
  readonly format: DataExportFormat;
  /** Replace the previous delivery's files instead of writing new ones beside them (default false). */
  readonly overwrite: boolean;
  /** CUR 2.0 line-item granularity (default `daily`); FOCUS has none to choose. */
  readonly granularity?: DataExportGranularity;
}

/** CloudFormation's pattern for `AWS::BCMDataExports::Export` names (stricter than the API's). */
const NAME = /^[0-9A-Za-z_-]{1,128}$/;
const KNOWN = ['prefix', 'name', 'table', 'format', 'overwrite', 'granularity'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const oneOf = <T extends string>(allowed: readonly T[], value: unknown, where: string): T => {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
    return value as T;
  throw new Error(
    `${where} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${JSON.stringify(value)}`,
  );
};

const entryAt = (value: unknown, index: number): DataExportConfig => {
  const at = `dataExports[${index}]`;
  if (!isRecord(value))
    throw new Error(
      `${at} must be an object { prefix, name, table, format?, overwrite?, granularity? }`,
    );
  const unknown = Object.keys(value).find((key) => !KNOWN.includes(key));
  if (unknown !== undefined)
    throw new Error(`${at}.${unknown} is not a known field (known: ${KNOWN.join(', ')})`);
  const { prefix, name, table, format, overwrite, granularity } = value;
  if (typeof prefix !== 'string' || !prefix.endsWith('/')) {
    throw new Error(
      `${at}.prefix must be one of exportSources[].prefix (ending in "/"), got ${JSON.stringify(prefix)}`,
    );
  }
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new Error(
      `${at}.name must be 1-128 letters, digits, "-" or "_" (CloudFormation's rule for Data Exports names), got ${JSON.stringify(name)}`,
    );
  }
  const parsedTable = oneOf(DATA_EXPORT_TABLES, table, `${at}.table`);
  if (overwrite !== undefined && typeof overwrite !== 'boolean') {
    throw new Error(`${at}.overwrite must be true or false, got ${JSON.stringify(overwrite)}`);
  }
  if (granularity !== undefined && parsedTable !== 'cur2') {
    throw new Error(
      `${at}.granularity applies to table "cur2" only; FOCUS exports have no granularity to choose`,
    );
  }
  return {
    prefix,
    name,
    table: parsedTable,
    format: format === undefined ? 'parquet' : oneOf(DATA_EXPORT_FORMATS, format, `${at}.format`),
    overwrite: overwrite ?? false,
    ...(parsedTable === 'cur2'
      ? {
          granularity:
            granularity === undefined
              ? 'daily'
              : oneOf(DATA_EXPORT_GRANULARITIES, granularity, `${at}.granularity`),
        }
      : {}),
  };
};

/** Parses the whole list; the first problem is thrown with the entry and field it is about. */
export function parseDataExports(value: unknown): DataExportConfig[] {
  if (!Array.isArray(value))
    throw new Error('dataExports must be a JSON list of { prefix, name, table, … }');
  const entries = value.map(entryAt);
  const names = entries.map((entry) => entry.name);
  const repeated = names.find((name, at) => names.indexOf(name) !== at);
  if (repeated !== undefined) {
    throw new Error(
      `dataExports: the name "${repeated}" is used twice; Data Exports names are unique per account`,
    );
  }
  return entries;
}
