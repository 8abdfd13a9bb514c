/**
 * AWS Data Exports manifest: what one execution of an export delivered for one billing period.
 *
 * Layout (the same for AWS and for the Azure/GCP/OCI FOCUS files we are given):
 *   <prefix>/<export-name>/metadata/BILLING_PERIOD=YYYY-MM/[<executionId>/]<export-name>-Manifest.json
 *   <prefix>/<export-name>/data/BILLING_PERIOD=YYYY-MM/…/<file>.csv | .csv.gz | .parquet
 * Manifest fields read: `executionId`, `exportArn`, `columns` ({name, type}), `dataFiles` (full s3://
 * URIs), and `billingPeriod.start` when present (it must agree with the partition). Other fields are
 * ignored.
 *
 * The export prefix binds the tenant, so a manifest may only point at data files of its own export and
 * billing period, in its own bucket: anything else is rejected, as is a data file listed twice (it would
 * be counted twice) or a file whose format we cannot read (the snapshot would be incomplete).
 */
import { fail, ValidationError } from '../errors';
import { monthOf, toInstant } from '../instant';
import { parseJsonExact } from '../json';
import { isObject, own } from '../formats/fields';
import { REQUIRED_COLUMNS, recognizeColumnFormat, type ExportColumnFormat } from './column-format';

export type DataFileFormat = 'csv' | 'csv.gz' | 'parquet';

export interface ManifestColumn {
  name: string;
  type: string;
}

export interface DataFile {
  uri: string;
  bucket: string;
  key: string;
  format: DataFileFormat;
}

export interface ExportManifest {
  bucket: string;
  manifestKey: string;
  /** `<prefix>/<export-name>` ('' prefix gives just the export name). */
  exportRoot: string;
  prefix: string;
  exportName: string;
  /** `YYYY-MM`, from the `BILLING_PERIOD=` partition of the manifest key. */
  billingPeriod: string;
  executionId: string;
  exportArn: string;
  columns: ManifestColumn[];
  /** The provider format its columns are in (`column-format.ts`). */
  format: ExportColumnFormat;
  dataFiles: DataFile[];
  /**
   * The legacy CUR's Athena layout only: the report's data-status object, which must read READY for
   * the delivery to be complete (`legacy-cur-manifest.ts`).
   */
  dataStatusKey?: string;
}

/**
 * The columns every row needs for the ledger: the amount and its currency, the account (SubAccountId
 * when set, else BillingAccountId), the billing period, and what the charge is and when it happened.
 */
export const REQUIRED_FOCUS_COLUMNS = REQUIRED_COLUMNS.focus;

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const EXPORT_NAME = /^[0-9A-Za-z!\-_.*'()]{1,128}$/;
const MANIFEST_KEY =
  /^(?:(.+)\/)?([^/]+)\/metadata\/BILLING_PERIOD=([^/]+)\/(?:([^/]+)\/)?([^/]+)-Manifest\.json$/;
const S3_URI = /^s3:\/\/([^/]+)\/(.+)$/;
export const MAX_DATA_FILES = 10_000;
export const MAX_COLUMNS = 2_000;

const invalid = (field: string, reason: string): never => fail('invalid-field', field, reason);

export const hasDotSegment = (key: string): boolean =>
  key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');

/** A data file's format from its name (`.snappy.parquet` is Parquet too). */
export const dataFileFormat = (key: string): DataFileFormat | undefined => {
  const lower = key.toLowerCase();
  if (lower.endsWith('.parquet')) return 'parquet';
  if (lower.endsWith('.csv.gz')) return 'csv.gz';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
};

export const parseS3Uri = (uri: string, field: string): { bucket: string; key: string } => {
  const match = S3_URI.exec(uri);
  if (!match)
    return invalid(field, `not an s3://bucket/key URI: ${JSON.stringify(uri.slice(0, 80))}`);
  return { bucket: match[1], key: match[2] };
};

interface ManifestLocation {
  bucket: string;
  key: string;
  prefix: string;
  exportName: string;
  exportRoot: string;
  billingPeriod: string;
  executionFolder?: string;
}

const locate = (manifestKey: string, bucket: string): ManifestLocation => {
  if (hasDotSegment(manifestKey)) {
    return invalid('manifestKey', 'has an empty, "." or ".." path segment');
  }
  const match = MANIFEST_KEY.exec(manifestKey);
  if (!match || match[2] !== match[5]) {
    return invalid(
      'manifestKey',
      `expected <prefix>/<export-name>/metadata/BILLING_PERIOD=YYYY-MM/<export-name>-Manifest.json (AWS Data Exports) or <prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json (legacy CUR), got ${JSON.stringify(manifestKey)}`,
    );
  }
  const [, prefix = '', exportName, billingPeriod, executionFolder] = match;
  if (!PERIOD.test(billingPeriod)) {
    return invalid('manifestKey', `BILLING_PERIOD=${billingPeriod} is not a YYYY-MM month`);
  }
  const exportRoot = prefix === '' ? exportName : `${prefix}/${exportName}`;
  return {
    bucket,
    key: manifestKey,
    prefix,
    exportName,
    exportRoot,
    billingPeriod,
    executionFolder,
  };
};

export const requiredText = (document: Record<string, unknown>, field: string): string => {
  const value = own(document, field);
  if (value === undefined || value === null || value === '')
    return fail('missing-field', field, 'required');
  if (typeof value !== 'string') return invalid(field, 'expected a string');
  return value;
};

const readColumns = (document: Record<string, unknown>): ManifestColumn[] => {
  const raw = own(document, 'columns');
  if (raw === undefined || raw === null) return fail('missing-field', 'columns', 'required');
  if (!Array.isArray(raw)) return invalid('columns', 'expected a list of {name, type}');
  if (raw.length > MAX_COLUMNS) return invalid('columns', `more than ${MAX_COLUMNS} columns`);
  const columns = raw.map((column, index): ManifestColumn => {
    const field = `columns[${index}]`;
    if (!isObject(column)) return invalid(field, 'expected an object {name, type}');
    const name = own(column, 'name');
    const type = own(column, 'type');
    if (typeof name !== 'string' || name.trim() === '')
      return invalid(`${field}.name`, 'expected a column name');
    return { name, type: typeof type === 'string' ? type : '' };
  });
  const names = new Set(columns.map((column) => column.name));
  if (names.size !== columns.length) return invalid('columns', 'the same column name twice');
  return columns;
};

/** The manifest's format, from its column names; columns of no known format refuse the manifest. */
export const manifestFormat = (columns: readonly ManifestColumn[]): ExportColumnFormat => {
  try {
    return recognizeColumnFormat(
      columns.map((column) => column.name),
      'columns',
    );
  } catch (error) {
    if (error instanceof ValidationError) return invalid('columns', error.reason);
    throw error;
  }
};

const readDataFiles = (
  document: Record<string, unknown>,
  location: ManifestLocation,
): DataFile[] => {
  const raw = own(document, 'dataFiles');
  if (raw === undefined || raw === null) return fail('missing-field', 'dataFiles', 'required');
  if (!Array.isArray(raw)) return invalid('dataFiles', 'expected a list of s3:// URIs');
  if (raw.length === 0) return invalid('dataFiles', 'lists no data file');
  if (raw.length > MAX_DATA_FILES) return invalid('dataFiles', `more than ${MAX_DATA_FILES} files`);
  const dataPrefix = `${location.exportRoot}/data/BILLING_PERIOD=${location.billingPeriod}/`;
  const seen = new Set<string>();
  return raw.map((uri, index): DataFile => {
    const field = `dataFiles[${index}]`;
    if (typeof uri !== 'string') return invalid(field, 'expected an s3:// URI');
    const { bucket, key } = parseS3Uri(uri, field);
    if (bucket !== location.bucket) {
      return invalid(field, `in bucket ${bucket}, not in the manifest's bucket ${location.bucket}`);
    }
    if (hasDotSegment(key) || !key.startsWith(dataPrefix)) {
      return invalid(field, `outside the export's data for this period (${dataPrefix}): ${key}`);
    }
    if (seen.has(key)) return invalid(field, `lists ${key} twice`);
    seen.add(key);
    const format = dataFileFormat(key);
    if (format === undefined) {
      return invalid(field, `unsupported file type (expected .csv, .csv.gz or .parquet): ${key}`);
    }
    return { uri, bucket, key, format };
  });
};

const checkDeclaredPeriod = (document: Record<string, unknown>, period: string): void => {
  const declared = own(document, 'billingPeriod');
  const start = isObject(declared) ? own(declared, 'start') : undefined;
  if (typeof start !== 'string') return;
  const month = monthOf(toInstant(start, 'billingPeriod.start'));
  if (month !== period) {
    invalid(
      'billingPeriod.start',
      `${start} is in ${month} (UTC), not in BILLING_PERIOD=${period} of the manifest's location`,
    );
  }
};

export const parseDocument = (json: unknown): Record<string, unknown> => {
  let document = json;
  if (typeof json === 'string') {
    try {
      document = parseJsonExact(json);
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      return fail('malformed-body', '$', 'the manifest is not JSON');
    }
  }
  return isObject(document)
    ? document
    : fail('malformed-body', '$', 'the manifest is not a JSON object');
};

/**
 * Reads and validates a manifest. `manifestUri` is `s3://bucket/key` of the manifest object; the bucket
 * and the key's prefix bind every data file to this export and billing period.
 */
export const parseManifest = (json: unknown, manifestUri: string): ExportManifest => {
  const { bucket, key } = parseS3Uri(manifestUri, 'manifestKey');
  const location = locate(key, bucket);
  const document = parseDocument(json);
  const executionId = requiredText(document, 'executionId');
  if (location.executionFolder !== undefined && location.executionFolder !== executionId) {
    invalid(
      'executionId',
      `${executionId} does not match the manifest's folder ${location.executionFolder}`,
    );
  }
  const exportArn = requiredText(document, 'exportArn');
  checkDeclaredPeriod(document, location.billingPeriod);
  const columns = readColumns(document);
  return {
    bucket,
    manifestKey: key,
    exportRoot: location.exportRoot,
    prefix: location.prefix,
    exportName: location.exportName,
    billingPeriod: location.billingPeriod,
    executionId,
    exportArn,
    columns,
    format: manifestFormat(columns),
    dataFiles: readDataFiles(document, location),
  };
};

export interface ManifestSpec {
  bucket: string;
  /** S3 prefix of the export source ('' for none), without leading or trailing `/`. */
  prefix: string;
  exportName: string;
  billingPeriod: string;
  executionId: string;
  exportArn?: string;
  columns: readonly (string | ManifestColumn)[];
  /** File names (no `/`), placed under `data/BILLING_PERIOD=…/<executionId>/`. */
  dataFileNames: readonly string[];
  /**
   * Put the manifest in `metadata/BILLING_PERIOD=…/<executionId>/`, so that each execution has its own,
   * never overwritten manifest (default: the period folder, overwritten by the next execution).
   */
  manifestInExecutionFolder?: boolean;
}

export interface BuiltManifest {
  manifestUri: string;
  manifestKey: string;
  /** Data file keys in manifest order: upload these before the manifest. */
  dataFileKeys: string[];
  document: {
    executionId: string;
    exportArn: string;
    columns: ManifestColumn[];
    dataFiles: string[];
    billingPeriod: { start: string; end: string };
  };
  json: string;
}

const nextMonth = (period: string): string => {
  const [year, month] = period.split('-').map(Number);
  return month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
};

/**
 * A manifest in the AWS Data Exports layout for files we upload ourselves (Azure, GCP, OCI FOCUS files;
 * the local run). The result parses back with `parseManifest` to the same export.
 */
export const manifestFor = (spec: ManifestSpec): BuiltManifest => {
  if (
    spec.prefix !== '' &&
    (spec.prefix.startsWith('/') || spec.prefix.endsWith('/') || hasDotSegment(spec.prefix))
  ) {
    invalid('prefix', 'must not start or end with "/" nor have empty, "." or ".." segments');
  }
  if (!EXPORT_NAME.test(spec.exportName)) {
    invalid('exportName', "1-128 characters of letters, digits and !-_.*'()");
  }
  if (!PERIOD.test(spec.billingPeriod)) invalid('billingPeriod', 'expected YYYY-MM');
  if (!/^[0-9A-Za-z_.-]{1,128}$/.test(spec.executionId) || spec.executionId.startsWith('.')) {
    invalid('executionId', 'letters, digits, "_", "-" and "." (not first), at most 128');
  }
  const root = spec.prefix === '' ? spec.exportName : `${spec.prefix}/${spec.exportName}`;
  const partition = `BILLING_PERIOD=${spec.billingPeriod}`;
  const dataFileKeys = spec.dataFileNames.map((name, index) => {
    if (name.includes('/') || name === '.' || name === '..' || dataFileFormat(name) === undefined) {
      return invalid(
        `dataFileNames[${index}]`,
        'a file name ending .csv, .csv.gz or .parquet, without "/"',
      );
    }
    return `${root}/data/${partition}/${spec.executionId}/${name}`;
  });
  const manifestFolder = spec.manifestInExecutionFolder
    ? `${partition}/${spec.executionId}`
    : partition;
  const manifestKey = `${root}/metadata/${manifestFolder}/${spec.exportName}-Manifest.json`;
  const document = {
    executionId: spec.executionId,
    exportArn:
      spec.exportArn ??
      `arn:aws:bcm-data-exports:us-east-1:000000000000:export/${spec.exportName}-local`,
    columns: spec.columns.map((column) =>
      typeof column === 'string' ? { name: column, type: 'string' } : { ...column },
    ),
    dataFiles: dataFileKeys.map((key) => `s3://${spec.bucket}/${key}`),
    billingPeriod: {
      start: `${spec.billingPeriod}-01T00:00:00.000Z`,
      end: `${nextMonth(spec.billingPeriod)}-01T00:00:00.000Z`,
    },
  };
  const manifestUri = `s3://${spec.bucket}/${manifestKey}`;
  const json = JSON.stringify(document, null, 2);
  parseManifest(json, manifestUri);
  return { manifestUri, manifestKey, dataFileKeys, document, json };
};
