/**
 * The `manifest.json` a Cost Management export run writes next to its data blobs (the documented shape:
 * `exportConfig`, `deliveryConfig`, `runInfo`, `blobs`; test/fixtures/azure). Only what the copier uses
 * is read: the export's name and dataset type, the run's id, submission time and period, and each
 * blob's name and byte count. Other fields are ignored.
 */
import { fail } from '../errors';
import { isObject, own } from '../formats/fields';
import { monthOf, toInstant } from '../instant';
import { parseDocument, requiredText } from '../exports/manifest';

export interface AzureBlobEntry {
  /** Path inside the container, as the manifest names it. */
  name: string;
  byteCount: number;
}

export interface AzureExportRun {
  /** Blob path of the manifest inside the container. */
  manifestName: string;
  exportName: string;
  /** `exportConfig.resourceId`: the export's Azure resource id, when the manifest has it. */
  resourceId?: string;
  /** `exportConfig.type`, e.g. `FocusCost`, `ActualCost`. */
  datasetType: string;
  runId: string;
  /** `runInfo.submittedTime`, normalized to a UTC instant: orders two runs. */
  submittedTime: string;
  /** `YYYY-MM` of `runInfo.startDate` (an export run covers part or all of one month). */
  period: string;
  blobs: AzureBlobEntry[];
}

export const AZURE_MANIFEST_NAME = 'manifest.json';
const MAX_BLOBS = 10_000;
const RUN_ID = /^[0-9A-Za-z_.-]{1,128}$/;

const invalid = (field: string, reason: string): never => fail('invalid-field', field, reason);

const section = (document: Record<string, unknown>, field: string): Record<string, unknown> => {
  const value = own(document, field);
  return isObject(value) ? value : fail('missing-field', field, 'required (an object)');
};

const folderOf = (name: string): string => name.slice(0, name.lastIndexOf('/') + 1);

const readBlobs = (document: Record<string, unknown>, manifestName: string): AzureBlobEntry[] => {
  const raw = own(document, 'blobs');
  if (!Array.isArray(raw) || raw.length === 0)
    return invalid('blobs', 'expected a non-empty list of {blobName, byteCount}');
  if (raw.length > MAX_BLOBS) return invalid('blobs', `more than ${MAX_BLOBS} blobs`);
  const folder = folderOf(manifestName);
  const seen = new Set<string>();
  return raw.map((entry, index): AzureBlobEntry => {
    const field = `blobs[${index}]`;
    if (!isObject(entry)) return invalid(field, 'expected {blobName, byteCount}');
    const name = requiredText(entry, 'blobName');
    const count = own(entry, 'byteCount');
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
      return invalid(`${field}.byteCount`, 'expected a whole number of bytes');
    // The run's blobs sit in the manifest's folder: anything else would pull another run's data in.
    const relative = name.startsWith(folder) ? name.slice(folder.length) : '';
    if (
      relative === '' ||
      relative.split('/').some((part) => part === '' || part === '.' || part === '..')
    )
      return invalid(`${field}.blobName`, `not inside the run's folder ${folder}: ${name}`);
    if (seen.has(name)) return invalid(`${field}.blobName`, `lists ${name} twice`);
    seen.add(name);
    return { name, byteCount: count };
  });
};

const periodOf = (runInfo: Record<string, unknown>): string => {
  const start = toInstant(own(runInfo, 'startDate'), 'runInfo.startDate');
  const endValue = own(runInfo, 'endDate');
  if (endValue !== undefined && endValue !== null) {
    const end = toInstant(endValue, 'runInfo.endDate');
    if (monthOf(end) !== monthOf(start))
      invalid(
        'runInfo.endDate',
        `the run covers ${monthOf(start)} to ${monthOf(end)}: export one month per run (a monthly or month-to-date export)`,
      );
  }
  return monthOf(start);
};

/** Reads and validates one run's manifest (`manifestName` is its blob path in the container). */
export const parseAzureManifest = (json: unknown, manifestName: string): AzureExportRun => {
  if (!manifestName.endsWith(`/${AZURE_MANIFEST_NAME}`) && manifestName !== AZURE_MANIFEST_NAME)
    invalid('manifestName', `not a ${AZURE_MANIFEST_NAME}: ${manifestName}`);
  const document = parseDocument(json);
  const exportConfig = section(document, 'exportConfig');
  const runInfo = section(document, 'runInfo');
  const runId = requiredText(runInfo, 'runId');
  if (!RUN_ID.test(runId) || runId.startsWith('.'))
    invalid('runInfo.runId', 'letters, digits, "_", "-" and "." (not first), at most 128');
  return {
    manifestName,
    exportName: requiredText(exportConfig, 'exportName'),
    ...(typeof own(exportConfig, 'resourceId') === 'string'
      ? { resourceId: own(exportConfig, 'resourceId') as string }
      : {}),
    datasetType: requiredText(exportConfig, 'type'),
    runId,
    submittedTime: toInstant(own(runInfo, 'submittedTime'), 'runInfo.submittedTime'),
    period: periodOf(runInfo),
    blobs: readBlobs(document, manifestName),
  };
};
