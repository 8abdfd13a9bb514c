import {
  assessCompleteness,
  MAX_FILES_LISTED,
  type ChunkRows,
} from '../../../lambda/core/reconciliation/completeness';
import type { CsvTask, ExportTask, ParquetTask } from '../../../lambda/core/exports/plan';

const parquet = (index: number, key: string, firstRow: number, rows: number): ParquetTask => ({
  index,
  kind: 'parquet-range',
  objectKey: key,
  format: 'parquet',
  firstRowGroup: index,
  endRowGroup: index + 1,
  firstRow,
  rows,
});
const csv = (index: number, key: string): CsvTask => ({
  index,
  kind: 'csv-file',
  objectKey: key,
  format: 'csv',
});
const chunk = (taskIndex: number, fromRow: number, toRow: number, rows = toRow - fromRow) =>
  ({ taskIndex, fromRow, toRow, rows }) satisfies ChunkRows;

const P = 'data/part-0.parquet';
const C = 'data/part-1.csv';
const files = [
  { key: P, format: 'parquet' as const },
  { key: C, format: 'csv' as const },
];
const tasks: ExportTask[] = [parquet(0, P, 0, 10), parquet(1, P, 10, 5), csv(2, C)];

describe('assessCompleteness', () => {
  it('complete: every Parquet range read to the footer count, the CSV sub-chunks tile the file', () => {
    expect(
      assessCompleteness(files, tasks, [
        chunk(0, 0, 10),
        chunk(1, 10, 15),
        chunk(2, 0, 2),
        chunk(2, 2, 4),
        chunk(2, 4, 5),
      ]),
    ).toEqual({
      status: 'complete',
      filesPlanned: 2,
      filesRead: 2,
      rowsExpected: 20,
      rowsRead: 20,
      files: [],
      filesWrong: 0,
    });
  });

  it('a Parquet chunk one row short of its range is incomplete against the footer', () => {
    const result = assessCompleteness(files, tasks, [
      chunk(0, 0, 10, 9),
      chunk(1, 10, 15),
      chunk(2, 0, 5),
    ]);
    expect(result).toMatchObject({ status: 'incomplete', rowsExpected: 20, rowsRead: 19 });
    expect(result.files).toEqual([
      {
        key: P,
        expected: 15,
        read: 14,
        complete: true,
        problem: "read 14 of the footer's 15 rows",
      },
    ]);
  });

  it('a Parquet range with no committed chunk: the file is not read', () => {
    const result = assessCompleteness(files, tasks, [chunk(0, 0, 10), chunk(2, 0, 5)]);
    expect(result).toMatchObject({ status: 'incomplete', filesRead: 1, rowsRead: 15 });
    expect(result.files).toEqual([
      { key: P, expected: 15, read: 10, complete: false, problem: 'tasks 1 not read' },
    ]);
  });

  it.each([
    ['a lost sub-chunk', [chunk(2, 0, 2), chunk(2, 4, 5)], 'rows 2-3 in no chunk', 5, 3],
    ['a doubled sub-chunk', [chunk(2, 0, 3), chunk(2, 2, 5)], 'rows 2-2 in two chunks', 5, 6],
    [
      'a sub-chunk that counted other rows than its range',
      [chunk(2, 0, 2), chunk(2, 2, 5, 2)],
      'chunk of rows 2-4 counted 2 rows',
      5,
      4,
    ],
    ['no sub-chunk at all', [], 'not read', 0, 0],
  ])('CSV: %s is incomplete', (_name, csvChunks, problem, expected, read) => {
    const result = assessCompleteness(files, tasks, [
      chunk(0, 0, 10),
      chunk(1, 10, 15),
      ...csvChunks,
    ]);
    expect(result.status).toBe('incomplete');
    expect(result.files).toEqual([expect.objectContaining({ key: C, expected, read, problem })]);
  });

  it('an empty Parquet file (no row groups, no task) is complete with 0 rows; a CSV file with no task is not read', () => {
    expect(assessCompleteness([{ key: P, format: 'parquet' }], [], [])).toMatchObject({
      status: 'complete',
      filesRead: 1,
      rowsExpected: 0,
      rowsRead: 0,
    });
    expect(assessCompleteness([{ key: C, format: 'csv' }], [], []).files).toEqual([
      { key: C, expected: 0, read: 0, complete: false, problem: 'no task planned' },
    ]);
  });

  it(`lists at most ${MAX_FILES_LISTED} wrong files and counts them all`, () => {
    const many = Array.from({ length: 12 }, (_, i) => ({
      key: `f${i}.csv`,
      format: 'csv' as const,
    }));
    const result = assessCompleteness(
      many,
      many.map((file, i) => csv(i, file.key)),
      [],
    );
    expect(result.files).toHaveLength(MAX_FILES_LISTED);
    expect(result.filesWrong).toBe(12);
    expect(result.filesRead).toBe(0);
  });
});
