/**
 * The legacy AWS Cost and Usage Report's delivery ("create new report versions"): every update of a
 * report is an assembly, delivered to its own folder of the report's period folder, and its manifest
 * is written twice — into the assembly folder (never overwritten) and into the period folder
 * (overwritten by every later assembly):
 *   <prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json
 *   <prefix>/<report>/<yyyymmdd-yyyymmdd>/<assemblyId>/<report>-Manifest.json
 *   <prefix>/<report>/<yyyymmdd-yyyymmdd>/<assemblyId>/<report>-<n>.csv.gz
 * Manifest fields read: `assemblyId` (the execution), `reportKeys` (keys of the data files in
 * `bucket`), `columns` ({category, name}: the CSV header's `category/name`), `billingPeriod.start`
 * (`20180501T000000.000Z`), `bucket`, `compression`; `reportId` names the export when present.
 *
 * The same tenant binding as Data Exports: the data files must be in the manifest's bucket and inside
 * the assembly's folder of this report and period. Both copies of one assembly's manifest describe the
 * same execution (the period folder's manifest key stands for both), so the second is a duplicate.
 *
 * A report set to "overwrite existing report" has only the period folder's manifest, and its data files
 * are in one of two places, both read through the same planner:
 *   <prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-<n>.csv.gz                       (CSV / GZIP)
 *   <prefix>/<report>/<report>/year=YYYY/month=M/<report>-0000n.snappy.parquet      (Parquet, Athena)
 * The Athena layout also keeps `<prefix>/<report>/cost_and_usage_data_status/cost_and_usage_data_status.parquet`,
 * whose one `status` cell is UPDATING while AWS rewrites the report and READY when it is done
 * (`dataStatusKeyOf`; the planner plans such a delivery only when it reads READY).
 */
import { fail } from '../errors';
import { isObject, own } from '../formats/fields';
import {
  dataFileFormat,
  hasDotSegment,
  manifestFormat,
  MAX_COLUMNS,
  MAX_DATA_FILES,
  parseDocument,
  parseS3Uri,
  requiredText,
  type DataFile,
  type ExportManifest,
  type ManifestColumn,
  type ManifestSpec,
} from './manifest';

const LEGACY_MANIFEST_KEY =
  /^(?:(.+)\/)?([^/]+)\/(\d{8})-(\d{8})\/(?:([^/]+)\/)?([^/]+)-Manifest\.json$/;
const COMPACT_INSTANT = /^(\d{4})(\d{2})(\d{2})T\d{6}(?:\.\d{3})?Z$/;

const invalid = (field: string, reason: string): never => fail('invalid-field', field, reason);

interface LegacyLocation {
  prefix: string;
  reportName: string;
  exportRoot: string;
  /** `yyyymmdd-yyyymmdd`. */
  periodFolder: string;
  /** `YYYY-MM`. */
  billingPeriod: string;
  assemblyFolder?: string;
}

const utcDate = (yyyymmdd: string): Date | undefined => {
  const [year, month, day] = [yyyymmdd.slice(0, 4), yyyymmdd.slice(4, 6), yyyymmdd.slice(6)].map(
    Number,
  );
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
    ? date
    : undefined;
};

/**
 * The period a folder covers: it starts on the 1st of a month and ends on the 1st of the next (as AWS
 * names real folders, `20180501-20180601`) or on the month's last day (as AWS's guide shows them).
 */
const periodOfFolder = (start: string, end: string): string | undefined => {
  const from = utcDate(start);
  const to = utcDate(end);
  if (!from || !to || from.getUTCDate() !== 1) return undefined;
  const next = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
  const last = new Date(next.getTime() - 86_400_000);
  if (to.getTime() !== next.getTime() && to.getTime() !== last.getTime()) return undefined;
  return `${start.slice(0, 4)}-${start.slice(4, 6)}`;
};

/** Whether a key is in the legacy CUR layout (the Data Exports layout is `manifest.ts`'s). */
export const isLegacyCurManifestKey = (key: string): boolean => {
  const match = LEGACY_MANIFEST_KEY.exec(key);
  return match !== null && match[2] === match[6];
};

const locate = (key: string): LegacyLocation => {
  if (hasDotSegment(key)) return invalid('manifestKey', 'has an empty, "." or ".." path segment');
  const match = LEGACY_MANIFEST_KEY.exec(key);
  if (!match || match[2] !== match[6]) {
    return invalid(
      'manifestKey',
      `expected <prefix>/<report>/<yyyymmdd-yyyymmdd>/[<assemblyId>/]<report>-Manifest.json, got ${JSON.stringify(key)}`,
    );
  }
  const [, prefix = '', reportName, start, end, assemblyFolder] = match;
  const billingPeriod = periodOfFolder(start, end);
  if (billingPeriod === undefined) {
    return invalid(
      'manifestKey',
      `${start}-${end} is not one month (from the 1st to the 1st of the next month)`,
    );
  }
  return {
    prefix,
    reportName,
    exportRoot: prefix === '' ? reportName : `${prefix}/${reportName}`,
    periodFolder: `${start}-${end}`,
    billingPeriod,
    assemblyFolder,
  };
};

const readColumns = (document: Record<string, unknown>): ManifestColumn[] => {
  const raw = own(document, 'columns');
  if (raw === undefined || raw === null) return fail('missing-field', 'columns', 'required');
  if (!Array.isArray(raw)) return invalid('columns', 'expected a list of {category, name}');
  if (raw.length > MAX_COLUMNS) return invalid('columns', `more than ${MAX_COLUMNS} columns`);
  const columns = raw.map((column, index): ManifestColumn => {
    const field = `columns[${index}]`;
    if (!isObject(column)) return invalid(field, 'expected an object {category, name}');
    const category = own(column, 'category');
    const name = own(column, 'name');
    if (typeof category !== 'string' || category.trim() === '')
      return invalid(`${field}.category`, 'expected a column category');
    if (typeof name !== 'string' || name.trim() === '')
      return invalid(`${field}.name`, 'expected a column name');
    const type = own(column, 'type');
    return { name: `${category}/${name}`, type: typeof type === 'string' ? type : '' };
  });
  if (new Set(columns.map((column) => column.name)).size !== columns.length) {
    return invalid('columns', 'the same category/name twice');
  }
  return columns;
};

const checkDeclaredPeriod = (document: Record<string, unknown>, location: LegacyLocation) => {
  const declared = own(document, 'billingPeriod');
  const start = isObject(declared) ? own(declared, 'start') : undefined;
  if (start === undefined) return fail('missing-field', 'billingPeriod.start', 'required');
  const match = typeof start === 'string' ? COMPACT_INSTANT.exec(start) : null;
  if (!match) return invalid('billingPeriod.start', 'expected yyyymmddThhmmss.sssZ');
  if (`${match[1]}-${match[2]}` !== location.billingPeriod || match[3] !== '01') {
    invalid(
      'billingPeriod.start',
      `${match.input} does not start the period folder ${location.periodFolder} of the manifest's location`,
    );
  }
};

const checkCompression = (document: Record<string, unknown>): void => {
  const compression = own(document, 'compression');
  if (typeof compression === 'string' && compression.toUpperCase() === 'ZIP') {
    invalid('compression', 'ZIP reports are not read: set the report to GZIP (or Parquet)');
  }
};

/** Where the Athena integration writes a report's Parquet files of the location's month. */
const athenaDataPrefix = (location: LegacyLocation): string => {
  const [year, month] = location.billingPeriod.split('-');
  return `${location.exportRoot}/${location.reportName}/year=${year}/month=${Number(month)}/`;
};

/** The Athena integration's data-status object of a report (`<prefix>/<report>/`). */
export const dataStatusKeyOf = (exportRoot: string): string =>
  `${exportRoot}/cost_and_usage_data_status/cost_and_usage_data_status.parquet`;

/**
 * Where the data files of this manifest may be: the assembly's folder; for the period folder's
 * manifest (the only one an overwritten report has) also the period folder itself (files directly in
 * it) and the Athena partition of the period's month.
 */
const dataPrefixesOf = (
  location: LegacyLocation,
  periodRoot: string,
  assemblyId: string,
): DataPrefix[] =>
  location.assemblyFolder !== undefined
    ? [{ prefix: `${periodRoot}/${assemblyId}/` }]
    : [
        { prefix: `${periodRoot}/${assemblyId}/` },
        { prefix: `${periodRoot}/`, direct: true },
        { prefix: athenaDataPrefix(location), direct: true },
      ];

interface DataPrefix {
  prefix: string;
  /** Files directly in the folder only (not in a subfolder). */
  direct?: boolean;
}

const inside = (key: string, { prefix, direct }: DataPrefix): boolean =>
  key.startsWith(prefix) && !(direct === true && key.slice(prefix.length).includes('/'));

const readDataFiles = (
  document: Record<string, unknown>,
  bucket: string,
  prefixes: readonly DataPrefix[],
): DataFile[] => {
  const raw = own(document, 'reportKeys');
  if (raw === undefined || raw === null) return fail('missing-field', 'reportKeys', 'required');
  if (!Array.isArray(raw)) return invalid('reportKeys', 'expected a list of object keys');
  if (raw.length === 0) return invalid('reportKeys', 'lists no data file');
  if (raw.length > MAX_DATA_FILES)
    return invalid('reportKeys', `more than ${MAX_DATA_FILES} files`);
  const seen = new Set<string>();
  return raw.map((key, index): DataFile => {
    const field = `reportKeys[${index}]`;
    if (typeof key !== 'string' || key === '') return invalid(field, 'expected an object key');
    if (hasDotSegment(key) || !prefixes.some((prefix) => inside(key, prefix))) {
      return invalid(
        field,
        `outside the folders of this report and period (${prefixes.map((prefix) => prefix.prefix).join(', ')}): ${key}`,
      );
    }
    if (seen.has(key)) return invalid(field, `lists ${key} twice`);
    seen.add(key);
    const format = dataFileFormat(key);
    if (format === undefined) {
      return invalid(field, `unsupported file type (expected .csv, .csv.gz or .parquet): ${key}`);
    }
    return { uri: `s3://${bucket}/${key}`, bucket, key, format };
  });
};

/** Reads and validates a legacy CUR manifest delivered at `manifestUri` (`s3://bucket/key`). */
export const parseLegacyCurManifest = (json: unknown, manifestUri: string): ExportManifest => {
  const { bucket, key } = parseS3Uri(manifestUri, 'manifestKey');
  const location = locate(key);
  const document = parseDocument(json);
  const assemblyId = requiredText(document, 'assemblyId');
  if (location.assemblyFolder !== undefined && location.assemblyFolder !== assemblyId) {
    invalid(
      'assemblyId',
      `${assemblyId} does not match the manifest's folder ${location.assemblyFolder}`,
    );
  }
  if (hasDotSegment(assemblyId) || assemblyId.includes('/')) {
    invalid('assemblyId', 'must be one path segment');
  }
  const declaredBucket = requiredText(document, 'bucket');
  if (declaredBucket !== bucket) {
    invalid('bucket', `names ${declaredBucket}, not the bucket the manifest is in (${bucket})`);
  }
  checkDeclaredPeriod(document, location);
  checkCompression(document);
  const columns = readColumns(document);
  const periodRoot = `${location.exportRoot}/${location.periodFolder}`;
  const reportId = own(document, 'reportId');
  const dataFiles = readDataFiles(
    document,
    bucket,
    dataPrefixesOf(location, periodRoot, assemblyId),
  );
  return {
    bucket,
    manifestKey: `${periodRoot}/${location.reportName}-Manifest.json`,
    exportRoot: location.exportRoot,
    prefix: location.prefix,
    exportName: location.reportName,
    billingPeriod: location.billingPeriod,
    executionId: assemblyId,
    exportArn:
      typeof reportId === 'string' && reportId !== ''
        ? reportId
        : `legacy-cur:${location.reportName}`,
    columns,
    format: manifestFormat(columns),
    dataFiles,
    ...(dataFiles.some((file) => file.key.startsWith(athenaDataPrefix(location)))
      ? { dataStatusKey: dataStatusKeyOf(location.exportRoot) }
      : {}),
  };
};

export interface BuiltLegacyCurManifest {
  /** The period folder's manifest (written last: AWS overwrites it with each assembly). */
  manifestKey: string;
  manifestUri: string;
  /** The assembly folder's copy (never overwritten). */
  assemblyManifestKey: string;
  /** Data file keys in manifest order: upload these before the manifests. */
  dataFileKeys: string[];
  json: string;
}

const compactDate = (period: string, monthsAfter: number): string => {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1 + monthsAfter, 1))
    .toISOString()
    .slice(0, 10)
    .replace(/-/g, '');
};

/**
 * A legacy CUR delivery ("create new report versions") for files we upload ourselves (`export put`, the
 * local run): the assembly's files in its own folder of the period folder, and the manifest for both of
 * its places. `executionId` is the assembly id; columns are `category/name`. Parses back with
 * `parseLegacyCurManifest` to the same export (checked here).
 */
export const legacyCurManifestFor = (spec: ManifestSpec): BuiltLegacyCurManifest => {
  const root = spec.prefix === '' ? spec.exportName : `${spec.prefix}/${spec.exportName}`;
  const periodFolder = `${root}/${compactDate(spec.billingPeriod, 0)}-${compactDate(spec.billingPeriod, 1)}`;
  const dataFileKeys = spec.dataFileNames.map(
    (name) => `${periodFolder}/${spec.executionId}/${name}`,
  );
  const gzip = spec.dataFileNames.every((name) => name.endsWith('.gz'));
  const document = {
    assemblyId: spec.executionId,
    reportName: spec.exportName,
    ...(spec.exportArn === undefined ? {} : { reportId: spec.exportArn }),
    bucket: spec.bucket,
    billingPeriod: {
      start: `${compactDate(spec.billingPeriod, 0)}T000000.000Z`,
      end: `${compactDate(spec.billingPeriod, 1)}T000000.000Z`,
    },
    columns: spec.columns.map((column) => {
      const name = typeof column === 'string' ? column : column.name;
      const at = name.indexOf('/');
      if (at <= 0) return invalid('columns', `${name} is not category/name`);
      return { category: name.slice(0, at), name: name.slice(at + 1), type: 'String' };
    }),
    charset: 'UTF-8',
    compression: gzip ? 'GZIP' : 'NONE',
    contentType: 'text/csv',
    reportKeys: dataFileKeys,
    additionalArtifactKeys: [],
  };
  const manifestKey = `${periodFolder}/${spec.exportName}-Manifest.json`;
  const json = JSON.stringify(document);
  parseLegacyCurManifest(JSON.parse(json), `s3://${spec.bucket}/${manifestKey}`);
  return {
    manifestKey,
    manifestUri: `s3://${spec.bucket}/${manifestKey}`,
    assemblyManifestKey: `${periodFolder}/${spec.executionId}/${spec.exportName}-Manifest.json`,
    dataFileKeys,
    json,
  };
};
