/**
 * An export execution → its plan: the tasks that read it and the `order` that decides which execution
 * of a (tenant, source, billing period) is newer. Pure: the caller supplies the manifest, each data
 * file's size and, for Parquet, its row groups' row counts (from the file footer).
 *
 * Tasks: one per CSV / CSV.gz file (CSV cannot seek: the task is committed in sub-chunks and resumes
 * from a durable cursor); Parquet files are cut into ranges of whole row groups of about
 * `targetRowsPerTask` rows, each task committed once.
 */
import { createHash } from 'node:crypto';
import { fail } from '../errors';
import type { DataFileFormat, ExportManifest } from './manifest';

/**
 * The version of a data file the plan read: every read of the execution asks for exactly it. S3 gives a
 * `versionId` in a versioned bucket (the pinned version stays readable after an overwrite); elsewhere
 * the ETag is sent as `If-Match` (an overwrite then fails the read).
 */
export interface FilePin {
  versionId?: string;
  /** With its quotes, as S3 returns it. */
  eTag: string;
}

export interface FileFacts {
  key: string;
  /** Bytes. */
  size: number;
  /** Parquet only: rows of each row group, in file order. */
  rowGroups?: readonly number[];
  /** The version these facts were read from (absent only where the caller has no S3 object). */
  pin?: FilePin;
}

/** The S3 event that delivered the manifest. */
export interface ManifestEvent {
  /** `eventTime` of the S3 notification (ISO-8601). */
  eventTime: string;
  /** `s3.object.sequencer` (hex). */
  sequencer: string;
}

export interface SourceBinding {
  tenant: string;
  /** The export source within the tenant (see `sourceIdOf`). */
  source: string;
}

export interface CsvTask {
  index: number;
  kind: 'csv-file';
  objectKey: string;
  format: 'csv' | 'csv.gz';
  pin?: FilePin;
}

export interface ParquetTask {
  index: number;
  kind: 'parquet-range';
  objectKey: string;
  format: 'parquet';
  pin?: FilePin;
  /** Row groups [first, end) of the file. */
  firstRowGroup: number;
  endRowGroup: number;
  /** Data rows before `firstRowGroup` (row numbers of rejections count from the file's start). */
  firstRow: number;
  rows: number;
}

export type ExportTask = CsvTask | ParquetTask;

export interface PlannedFile {
  key: string;
  format: DataFileFormat;
  size: number;
  pin?: FilePin;
}

export interface ExecutionPlan extends SourceBinding {
  period: string;
  executionId: string;
  exportArn: string;
  manifestKey: string;
  order: string;
  /** What a redelivery must match to be the same execution (`planFingerprint`). */
  fingerprint: string;
  files: PlannedFile[];
  tasks: ExportTask[];
}

export interface PlanInput {
  manifest: ExportManifest;
  binding: SourceBinding;
  event: ManifestEvent;
  files: readonly FileFacts[];
  targetRowsPerTask: number;
}

const SEQUENCER = /^[0-9A-Fa-f]{1,32}$/;
/** Key parts of the ledger's items are joined with `#`. */
const KEY_PART = /^[^#]{1,256}$/;
const MAX_TASKS = 10_000;

const invalid = (field: string, reason: string): never => fail('invalid-field', field, reason);

/**
 * The order of executions: the manifest's S3 event time (ms) then the event's sequencer, padded so
 * that plain string comparison orders them (S3 orders the events of one key by sequencer; Data Exports
 * in overwrite mode rewrite the same manifest key).
 */
export const executionOrder = (event: ManifestEvent): string => {
  const time = Date.parse(event.eventTime);
  if (!/^\d{4}-\d\d-\d\dT/.test(event.eventTime) || Number.isNaN(time)) {
    return invalid('eventTime', `not an ISO-8601 instant: ${JSON.stringify(event.eventTime)}`);
  }
  if (!SEQUENCER.test(event.sequencer)) {
    return invalid(
      'sequencer',
      `not an S3 sequencer (1-32 hex digits): ${JSON.stringify(event.sequencer)}`,
    );
  }
  return `${new Date(time).toISOString()}#${event.sequencer.toUpperCase().padStart(32, '0')}`;
};

/** The export source's id in ledger keys: bucket and export root, `%` and `#` escaped. */
export const sourceIdOf = (bucket: string, exportRoot: string): string =>
  `${bucket}/${exportRoot}`.replace(/%/g, '%25').replace(/#/g, '%23');

const checkKeyPart = (field: string, value: string): void => {
  if (!KEY_PART.test(value)) invalid(field, 'must be 1-256 characters without "#"');
};

const isCount = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;

/**
 * The content of an execution as planned: what its manifest says (ids, period, columns, data files)
 * and the size and version of each data file. Two deliveries of one executionId with the same
 * fingerprint are the same execution; anything else re-uses the id for other content.
 */
export const planFingerprint = (
  manifest: ExportManifest,
  files: readonly PlannedFile[],
): string => {
  const canonical = {
    manifestKey: manifest.manifestKey,
    executionId: manifest.executionId,
    exportArn: manifest.exportArn,
    billingPeriod: manifest.billingPeriod,
    columns: [...manifest.columns]
      .map((column) => [column.name, column.type])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    files: [...files]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((file) => [
        file.key,
        file.format,
        file.size,
        file.pin?.versionId ?? null,
        file.pin?.eTag ?? null,
      ]),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
};

const parquetTasks = (
  key: string,
  rowGroups: readonly number[],
  targetRows: number,
  firstIndex: number,
  pin: FilePin | undefined,
): ParquetTask[] => {
  const tasks: ParquetTask[] = [];
  let first = 0;
  let firstRow = 0;
  let rows = 0;
  rowGroups.forEach((groupRows, group) => {
    rows += groupRows;
    const last = group === rowGroups.length - 1;
    if (rows >= targetRows || last) {
      tasks.push({
        index: firstIndex + tasks.length,
        kind: 'parquet-range',
        objectKey: key,
        format: 'parquet',
        ...(pin ? { pin } : {}),
        firstRowGroup: first,
        endRowGroup: group + 1,
        firstRow,
        rows,
      });
      first = group + 1;
      firstRow += rows;
      rows = 0;
    }
  });
  return tasks;
};

const factsByKey = (files: readonly FileFacts[]): Map<string, FileFacts> => {
  const byKey = new Map<string, FileFacts>();
  files.forEach((facts, index) => {
    if (!isCount(facts.size)) invalid(`files[${index}].size`, 'expected a byte count');
    if (facts.rowGroups?.some((rows) => !isCount(rows))) {
      invalid(`files[${index}].rowGroups`, 'expected row counts');
    }
    byKey.set(facts.key, facts);
  });
  return byKey;
};

export const planExecution = (input: PlanInput): ExecutionPlan => {
  const { manifest, binding } = input;
  checkKeyPart('tenant', binding.tenant);
  checkKeyPart('source', binding.source);
  checkKeyPart('executionId', manifest.executionId);
  if (!Number.isSafeInteger(input.targetRowsPerTask) || input.targetRowsPerTask < 1) {
    invalid('targetRowsPerTask', 'expected a positive whole number of rows');
  }
  const order = executionOrder(input.event);
  const facts = factsByKey(input.files);
  const files: PlannedFile[] = [];
  const tasks: ExportTask[] = [];
  manifest.dataFiles.forEach((file, index) => {
    const found = facts.get(file.key);
    const field = `dataFiles[${index}]`;
    if (!found) return invalid(field, `the data file ${file.key} is not in the bucket`);
    const pin = found.pin ? { pin: found.pin } : {};
    files.push({ key: file.key, format: file.format, size: found.size, ...pin });
    if (file.format === 'parquet') {
      if (!found.rowGroups) return invalid(field, `no row group metadata for ${file.key}`);
      tasks.push(
        ...parquetTasks(
          file.key,
          found.rowGroups,
          input.targetRowsPerTask,
          tasks.length,
          found.pin,
        ),
      );
    } else {
      tasks.push({
        index: tasks.length,
        kind: 'csv-file',
        objectKey: file.key,
        format: file.format,
        ...pin,
      });
    }
  });
  if (tasks.length > MAX_TASKS) {
    invalid(
      'targetRowsPerTask',
      `the plan has ${tasks.length} tasks (at most ${MAX_TASKS}): raise it`,
    );
  }
  return {
    tenant: binding.tenant,
    source: binding.source,
    period: manifest.billingPeriod,
    executionId: manifest.executionId,
    exportArn: manifest.exportArn,
    manifestKey: manifest.manifestKey,
    order,
    fingerprint: planFingerprint(manifest, files),
    files,
    tasks,
  };
};
