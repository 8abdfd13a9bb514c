/**
 * The message the planner sends to the chunk queue for each task of a plan: the execution it belongs
 * to, the bucket and the task. The worker trusts none of it blindly: the bucket must be its own and
 * the tenant must be the one the configured sources give the object's key.
 */
import { fail } from '../errors';
import { isObject } from '../formats/fields';
import type { ExportTask, FilePin } from './plan';
import type { ExecutionRef } from './run-task';

export const TASK_MESSAGE_VERSION = 1;

export interface ExportTaskMessage {
  version: typeof TASK_MESSAGE_VERSION;
  bucket: string;
  ref: ExecutionRef;
  task: ExportTask;
}

const text = (value: unknown, field: string): string =>
  typeof value === 'string' && value !== '' ? value : fail('missing-field', field, 'required');

const count = (value: unknown, field: string): number =>
  Number.isSafeInteger(value) && (value as number) >= 0
    ? (value as number)
    : fail('invalid-field', field, 'expected a whole number ≥ 0');

/** The pinned version of the task's file, when the plan pinned one. */
const pinOf = (value: unknown): { pin?: FilePin } => {
  if (value === undefined) return {};
  if (!isObject(value)) return fail('invalid-field', 'task.pin', 'expected {versionId?, eTag}');
  const eTag = text(value.eTag, 'task.pin.eTag');
  if (value.versionId === undefined) return { pin: { eTag } };
  return { pin: { versionId: text(value.versionId, 'task.pin.versionId'), eTag } };
};

const taskOf = (value: unknown): ExportTask => {
  if (!isObject(value)) return fail('missing-field', 'task', 'required');
  const index = count(value.index, 'task.index');
  const objectKey = text(value.objectKey, 'task.objectKey');
  const pin = pinOf(value.pin);
  if (value.kind === 'csv-file') {
    if (value.format !== 'csv' && value.format !== 'csv.gz') {
      return fail('invalid-field', 'task.format', 'expected csv or csv.gz');
    }
    return { index, kind: 'csv-file', objectKey, format: value.format, ...pin };
  }
  if (value.kind === 'parquet-range') {
    return {
      index,
      kind: 'parquet-range',
      objectKey,
      format: 'parquet',
      ...pin,
      firstRowGroup: count(value.firstRowGroup, 'task.firstRowGroup'),
      endRowGroup: count(value.endRowGroup, 'task.endRowGroup'),
      firstRow: count(value.firstRow, 'task.firstRow'),
      rows: count(value.rows, 'task.rows'),
    };
  }
  return fail('invalid-field', 'task.kind', 'expected csv-file or parquet-range');
};

export const taskMessageBody = (message: Omit<ExportTaskMessage, 'version'>): string =>
  JSON.stringify({ version: TASK_MESSAGE_VERSION, ...message });

export const parseTaskMessage = (body: string): ExportTaskMessage => {
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch {
    return fail('malformed-body', '$', 'an export task message is JSON');
  }
  if (!isObject(value)) return fail('malformed-body', '$', 'an export task message is an object');
  if (value.version !== TASK_MESSAGE_VERSION) {
    return fail('invalid-field', 'version', `expected ${TASK_MESSAGE_VERSION}`);
  }
  const ref = isObject(value.ref) ? value.ref : fail('missing-field', 'ref', 'required');
  return {
    version: TASK_MESSAGE_VERSION,
    bucket: text(value.bucket, 'bucket'),
    ref: {
      tenant: text(ref.tenant, 'ref.tenant'),
      source: text(ref.source, 'ref.source'),
      period: text(ref.period, 'ref.period'),
      executionId: text(ref.executionId, 'ref.executionId'),
    },
    task: taskOf(value.task),
  };
};
