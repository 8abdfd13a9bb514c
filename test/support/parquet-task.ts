/** A Parquet task of one planned chunk of a file, as the planner would send it (no pin). */
import type { ExportTask } from '../../lambda/core/exports/plan';
import type { ParquetChunk } from '../../lambda/core/exports/readers/parquet';

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
