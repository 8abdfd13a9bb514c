/**
 * One pass of the Azure export copier over ports: list the export's folder in the customer's container,
 * read the manifests that may be new, pick the runs to copy (`azure-runs.ts`), copy each run's blobs
 * into the export bucket (a blob already there with its size and Azure ETag is skipped), then its
 * planner manifest, then advance the cursor. A pass stopped anywhere is resumed by the next one: the
 * cursor has not moved past the run, finished blobs are skipped, and without its manifest a partly
 * copied run is invisible to the planner.
 */
import { ValidationError } from '../errors';
import { AZURE_MANIFEST_NAME, parseAzureManifest, type AzureExportRun } from './azure-manifest';
import {
  mayBeAfterCursor,
  selectRuns,
  type AzureRunCursor,
  type IncompleteRun,
  type ListedBlob,
} from './azure-runs';
import { azureTarget } from './azure-target';
import { writeManifestLast, type AcquisitionBucketPort } from './manifest-last';

export interface AzureContainerPort {
  /** Every blob whose name starts with `prefix`. */
  list(prefix: string): Promise<ListedBlob[]>;
  readText(name: string): Promise<string>;
}

export interface TargetObject {
  size: number;
  /** The Azure ETag the copy was made from (object metadata), when the object is a copy. */
  sourceEtag?: string;
}

export interface ExportBucketPort extends AcquisitionBucketPort {
  /** Undefined when there is no such object. */
  head(key: string): Promise<TargetObject | undefined>;
  /** Streams the blob into the object, recording the blob's ETag with it. */
  copyBlob(blob: { name: string; size: number; etag: string }, key: string): Promise<void>;
}

export interface AzureCursorPort {
  read(): Promise<AzureRunCursor | undefined>;
  /** Moves the cursor to `to` unless it is already at or past it. */
  advance(to: AzureRunCursor & { period: string }): Promise<void>;
}

export interface AzureExportSourceSpec {
  /** Folder of the export in the container: `<rootFolderPath>/<exportName>/` ('' root allowed). */
  exportFolder: string;
  /** Our export bucket and the tenant's `exportSources` prefix (without trailing `/`). */
  bucket: string;
  prefix: string;
}

export interface CopiedRun {
  runId: string;
  period: string;
  manifestKey: string;
  blobsCopied: number;
  blobsSkipped: number;
  manifestWritten: boolean;
}

export interface CopyReport {
  copied: CopiedRun[];
  incomplete: IncompleteRun[];
  superseded: string[];
  /** Manifests that do not validate (or runs we cannot read), with the reason. */
  refused: { manifestName: string; runId?: string; reason: string }[];
  manifestsRead: number;
  /** Runs left for the next pass because this one ran out of time (`keepGoing` said stop). */
  leftForNextPass: number;
}

export interface CopyPassOptions {
  /** Asked before each run: false ends the pass cleanly; the cursor stays before the runs left. */
  keepGoing?: () => boolean;
  /**
   * Only runs of this billing period (`YYYY-MM`). The cursor, one for every period, does not move:
   * the next full pass finds the run again, skips its blobs and manifest, and moves it then.
   */
  period?: string;
}

const reasonOf = (error: ValidationError): string => `${error.field}: ${error.reason}`;

const readRuns = async (
  container: AzureContainerPort,
  manifests: readonly ListedBlob[],
  report: CopyReport,
): Promise<AzureExportRun[]> => {
  const runs: AzureExportRun[] = [];
  for (const listed of manifests) {
    report.manifestsRead++;
    try {
      runs.push(parseAzureManifest(await container.readText(listed.name), listed.name));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      report.refused.push({ manifestName: listed.name, reason: reasonOf(error) });
    }
  }
  return runs;
};

const copyRun = async (
  run: AzureExportRun,
  listed: ReadonlyMap<string, ListedBlob>,
  spec: AzureExportSourceSpec,
  ports: { bucket: ExportBucketPort; cursor: AzureCursorPort },
  moveCursor: boolean,
): Promise<CopiedRun> => {
  const target = azureTarget(spec.bucket, spec.prefix, run);
  let blobsCopied = 0;
  let blobsSkipped = 0;
  for (const file of target.files) {
    const blob = listed.get(file.blobName) as ListedBlob;
    const existing = await ports.bucket.head(file.key);
    if (existing?.size === blob.size && existing.sourceEtag === blob.etag) {
      blobsSkipped++;
      continue;
    }
    await ports.bucket.copyBlob(blob, file.key);
    blobsCopied++;
  }
  const { manifestKey } = target.manifest;
  const manifestWritten = await writeManifestLast(ports.bucket, target.manifest);
  if (moveCursor)
    await ports.cursor.advance({
      submittedTime: run.submittedTime,
      runId: run.runId,
      period: run.period,
    });
  return {
    runId: run.runId,
    period: run.period,
    manifestKey,
    blobsCopied,
    blobsSkipped,
    manifestWritten,
  };
};

/** One pass: copies every run to copy, oldest first; returns what it did and what it refused. */
export const copyAzureExport = async (
  spec: AzureExportSourceSpec,
  ports: { container: AzureContainerPort; bucket: ExportBucketPort; cursor: AzureCursorPort },
  options: CopyPassOptions = {},
): Promise<CopyReport> => {
  const report: CopyReport = {
    copied: [],
    incomplete: [],
    superseded: [],
    refused: [],
    manifestsRead: 0,
    leftForNextPass: 0,
  };
  const cursor = await ports.cursor.read();
  const blobs = await ports.container.list(spec.exportFolder);
  const listed = new Map(blobs.map((blob) => [blob.name, blob]));
  const manifests = blobs.filter(
    (blob) =>
      (blob.name === AZURE_MANIFEST_NAME || blob.name.endsWith(`/${AZURE_MANIFEST_NAME}`)) &&
      mayBeAfterCursor(blob, cursor),
  );
  const runs = (await readRuns(ports.container, manifests, report)).filter(
    (run) => options.period === undefined || run.period === options.period,
  );
  const selection = selectRuns(runs, listed, cursor);
  report.incomplete = selection.incomplete;
  report.superseded = selection.superseded.map((run) => run.runId);
  for (const [index, run] of selection.toCopy.entries()) {
    if (options.keepGoing && !options.keepGoing()) {
      report.leftForNextPass = selection.toCopy.length - index;
      break;
    }
    try {
      report.copied.push(await copyRun(run, listed, spec, ports, options.period === undefined));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      report.refused.push({
        manifestName: run.manifestName,
        runId: run.runId,
        reason: reasonOf(error),
      });
    }
  }
  return report;
};
