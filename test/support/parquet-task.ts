/** A file's Parquet tasks as the planner cuts them, and their chunk results by either booking path. */
import { chunkResults, type ChunkResult } from '../../lambda/core/exports/chunk';
import type { ExportTask } from '../../lambda/core/exports/plan';
import {
  parquetRowSource,
  planParquetChunks,
  readParquetRows,
  type AsyncBuffer,
  type ParquetChunk,
  type ParquetFile,
} from '../../lambda/core/exports/readers/parquet';
import type { RowContext } from '../../lambda/core/exports/rows';

/** A Parquet task of one planned chunk of a file (no pin). */
export const parquetTaskOf = (
  index: number,
  objectKey: string,
  chunk: ParquetChunk,
): ExportTask & { kind: 'parquet-range' } => ({
  index,
  kind: 'parquet-range',
  objectKey,
  format: 'parquet',
  firstRowGroup: chunk.fromGroup,
  endRowGroup: chunk.toGroup,
  firstRow: chunk.rowStart,
  rows: chunk.rowCount,
});

export interface BookingOptions {
  /** The columnar booking (`parquetRowSource`), else the row path (`readParquetRows`). */
  columnar: boolean;
  /** Rows per task (whole row groups); default: one task for the file. */
  taskRows?: number;
  sliceRows?: number;
}

/** Every task's chunk results, in order. */
export const parquetChunkResults = async (
  file: AsyncBuffer,
  parquet: ParquetFile,
  context: RowContext,
  options: BookingOptions,
): Promise<ChunkResult[]> => {
  const read = { sliceRows: options.sliceRows };
  const results: ChunkResult[] = [];
  for (const [index, chunk] of planParquetChunks(parquet, options.taskRows ?? 1e9).entries()) {
    const source = options.columnar
      ? parquetRowSource(() => Promise.resolve({ file, parquet }), chunk, undefined, read)
      : readParquetRows(file, parquet, chunk, undefined, read);
    for await (const result of chunkResults({
      task: parquetTaskOf(index, context.objectKey, chunk),
      rows: source,
      fromRow: 0,
      context,
      subChunkRows: 50_000,
    })) {
      results.push(result);
    }
  }
  return results;
};
