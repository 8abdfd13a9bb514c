/**
 * Which runs of an Azure export to copy: the ones after the cursor, complete in the container (every
 * blob of the manifest listed with its byte count), the newest per billing period. Pure: the caller
 * lists the container and reads the manifests.
 */
import type { AzureExportRun } from './azure-manifest';

/** A blob as the container lists it. */
export interface ListedBlob {
  name: string;
  size: number;
  /** Azure's ETag, with its quotes. */
  etag: string;
  /** ISO-8601 instant of the blob's last write. */
  lastModified: string;
}

/** The last run handled of one export: runs are ordered by submission time, then run id. */
export interface AzureRunCursor {
  submittedTime: string;
  runId: string;
}

export interface BlobProblem {
  blobName: string;
  expectedBytes: number;
  /** Absent when the blob is missing. */
  listedBytes?: number;
}

export interface IncompleteRun {
  run: AzureExportRun;
  problems: BlobProblem[];
}

export interface RunSelection {
  /** Oldest first: copying in this order makes the planner's order (manifest delivery time) theirs. */
  toCopy: AzureExportRun[];
  /** After the cursor but a blob is missing or has another size than the manifest says: not copied. */
  incomplete: IncompleteRun[];
  /** Complete, after the cursor, but a newer complete run of the same period is copied instead. */
  superseded: AzureExportRun[];
}

const compareRuns = (a: AzureRunCursor, b: AzureRunCursor): number =>
  a.submittedTime === b.submittedTime
    ? a.runId.localeCompare(b.runId)
    : a.submittedTime < b.submittedTime
      ? -1
      : 1;

export const isAfterCursor = (run: AzureRunCursor, cursor: AzureRunCursor | undefined): boolean =>
  cursor === undefined || compareRuns(run, cursor) > 0;

/**
 * Whether a listed manifest can belong to a run after the cursor, so that it is worth reading. A run's
 * manifest is written after the run was submitted, so one last written before the cursor's submission
 * time belongs to an older run.
 */
export const mayBeAfterCursor = (
  manifest: Pick<ListedBlob, 'lastModified'>,
  cursor: AzureRunCursor | undefined,
): boolean => cursor === undefined || manifest.lastModified >= cursor.submittedTime;

/** The blobs of the run that the listing lacks or lists with another size. */
export const blobProblems = (
  run: AzureExportRun,
  listed: ReadonlyMap<string, Pick<ListedBlob, 'size'>>,
): BlobProblem[] =>
  run.blobs.flatMap((blob): BlobProblem[] => {
    const found = listed.get(blob.name);
    if (found?.size === blob.byteCount) return [];
    return [
      {
        blobName: blob.name,
        expectedBytes: blob.byteCount,
        ...(found === undefined ? {} : { listedBytes: found.size }),
      },
    ];
  });

export const selectRuns = (
  runs: readonly AzureExportRun[],
  listed: ReadonlyMap<string, Pick<ListedBlob, 'size'>>,
  cursor: AzureRunCursor | undefined,
): RunSelection => {
  const newest = new Map<string, AzureExportRun>();
  const incomplete: IncompleteRun[] = [];
  const fresh = runs.filter((run) => isAfterCursor(run, cursor)).sort(compareRuns);
  for (const run of fresh) {
    const problems = blobProblems(run, listed);
    if (problems.length > 0) incomplete.push({ run, problems });
    else newest.set(run.period, run);
  }
  const toCopy = [...newest.values()].sort(compareRuns);
  const chosen = new Set(toCopy);
  const superseded = fresh.filter(
    (run) => !chosen.has(run) && !incomplete.some((entry) => entry.run === run),
  );
  return { toCopy, incomplete, superseded };
};
