/**
 * Completeness of an export execution, decided at its snapshot switch (when every task is committed and
 * nothing more will be read): every data file of the manifest read, and per file the rows read (the sum
 * of the committed chunks' `rows`) against the rows the file holds.
 *
 * What the file holds, as far as anything other than the reader can know it:
 * - Parquet: the footer's `num_rows` of each row group, read at planning and kept in the plan's tasks
 *   (`ParquetTask.rows`). Independent of the row reader.
 * - CSV / CSV.gz: nothing outside the file counts its rows (an AWS manifest lists files, not rows), so
 *   the count is the reader's at end of file: the end of the task's last committed sub-chunk. What is
 *   checked is that the committed sub-chunks tile [0, end) with no gap or overlap and that each one's
 *   `rows` is its range: a lost or doubled sub-chunk, or a chunk that counted other rows than it covers.
 *
 * A file with a task that has no committed chunk is not read. `complete` needs every file read and every
 * file's rows read equal to its rows expected. The difference is `read − expected`.
 */
import type { DataFileFormat } from '../exports/manifest';
import type { ExportTask } from '../exports/plan';

export type CompletenessStatus = 'complete' | 'incomplete';

/** What a committed CHUNK item says about the rows it read. */
export interface ChunkRows {
  taskIndex: number;
  fromRow: number;
  toRow: number;
  rows: number;
}

export interface FileRows {
  key: string;
  /** Rows the file holds (Parquet: footer; CSV: the reader's count at end of file); 0 when not read. */
  expected: number;
  read: number;
  /** Every task of the file has a committed chunk. */
  complete: boolean;
  /** Why the file is short or over, when it is. */
  problem?: string;
}

export interface Completeness {
  status: CompletenessStatus;
  filesPlanned: number;
  filesRead: number;
  rowsExpected: number;
  rowsRead: number;
  /** Files that were not read or whose rows read differ from their rows, at most MAX_FILES_LISTED. */
  files: FileRows[];
  /** How many files are wrong (`files` lists the first of them). */
  filesWrong: number;
}

/** Files listed on a record: the record is repeated on every account of the execution. */
export const MAX_FILES_LISTED = 10;

const byFromRow = (a: ChunkRows, b: ChunkRows): number => a.fromRow - b.fromRow;

const sum = (chunks: readonly ChunkRows[]): number =>
  chunks.reduce((total, chunk) => total + chunk.rows, 0);

/** A CSV file's rows: the end of its contiguous sub-chunks; a gap, overlap or miscounted one is named. */
const csvFile = (key: string, chunks: readonly ChunkRows[]): FileRows => {
  if (chunks.length === 0)
    return { key, expected: 0, read: 0, complete: false, problem: 'not read' };
  const sorted = [...chunks].sort(byFromRow);
  let at = 0;
  let problem: string | undefined;
  for (const chunk of sorted) {
    if (problem) break;
    if (chunk.fromRow > at) problem = `rows ${at}-${chunk.fromRow - 1} in no chunk`;
    else if (chunk.fromRow < at) problem = `rows ${chunk.fromRow}-${at - 1} in two chunks`;
    else if (chunk.rows !== chunk.toRow - chunk.fromRow)
      problem = `chunk of rows ${chunk.fromRow}-${chunk.toRow - 1} counted ${chunk.rows} rows`;
    at = Math.max(at, chunk.toRow);
  }
  const expected = Math.max(...sorted.map((chunk) => chunk.toRow));
  const read = sum(sorted);
  return {
    key,
    expected,
    read,
    complete: true,
    ...(problem
      ? { problem }
      : read !== expected
        ? { problem: `read ${read} of ${expected}` }
        : {}),
  };
};

/** A Parquet file's rows: the footer's, against the chunks of each of its row-group ranges. */
const parquetFile = (
  key: string,
  tasks: readonly ExportTask[],
  chunksOf: (task: ExportTask) => ChunkRows[],
): FileRows => {
  let expected = 0;
  let read = 0;
  const unread: number[] = [];
  for (const task of tasks) {
    if (task.kind !== 'parquet-range') continue;
    expected += task.rows;
    const chunks = chunksOf(task);
    if (chunks.length === 0) unread.push(task.index);
    read += sum(chunks);
  }
  const problem =
    unread.length > 0
      ? `tasks ${unread.join(', ')} not read`
      : read !== expected
        ? `read ${read} of the footer's ${expected} rows`
        : undefined;
  return { key, expected, read, complete: unread.length === 0, ...(problem ? { problem } : {}) };
};

export const assessCompleteness = (
  files: readonly { key: string; format: DataFileFormat }[],
  tasks: readonly ExportTask[],
  chunks: readonly ChunkRows[],
): Completeness => {
  const chunksByTask = new Map<number, ChunkRows[]>();
  for (const chunk of chunks)
    chunksByTask.set(chunk.taskIndex, [...(chunksByTask.get(chunk.taskIndex) ?? []), chunk]);
  const chunksOf = (task: ExportTask) => chunksByTask.get(task.index) ?? [];
  const tasksByFile = new Map<string, ExportTask[]>();
  for (const task of tasks)
    tasksByFile.set(task.objectKey, [...(tasksByFile.get(task.objectKey) ?? []), task]);
  const rows = files.map((file): FileRows => {
    const fileTasks = tasksByFile.get(file.key) ?? [];
    if (file.format === 'parquet') return parquetFile(file.key, fileTasks, chunksOf);
    if (fileTasks.length === 0)
      return { key: file.key, expected: 0, read: 0, complete: false, problem: 'no task planned' };
    return csvFile(file.key, fileTasks.flatMap(chunksOf));
  });
  const wrong = rows.filter((file) => file.problem !== undefined);
  return {
    status: wrong.length === 0 ? 'complete' : 'incomplete',
    filesPlanned: files.length,
    filesRead: rows.filter((file) => file.complete).length,
    rowsExpected: rows.reduce((total, file) => total + file.expected, 0),
    rowsRead: rows.reduce((total, file) => total + file.read, 0),
    files: wrong.slice(0, MAX_FILES_LISTED),
    filesWrong: wrong.length,
  };
};
