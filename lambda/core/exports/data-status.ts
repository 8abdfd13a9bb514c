/**
 * The legacy Cost and Usage Report's Athena integration keeps one small Parquet object per report,
 * `<prefix>/<report>/cost_and_usage_data_status/cost_and_usage_data_status.parquet`, with one `status`
 * column: `UPDATING` while AWS rewrites the report's Parquet files, `READY` when the rewrite is done
 * (AWS's guide, "Creating a Cost and Usage Reports status table"). The planner plans an Athena
 * delivery only when it reads READY (`plan-delivery.ts`).
 */
import { parquetReadObjects } from 'hyparquet';
import { fail } from '../errors';
import type { AsyncBuffer } from './readers/parquet';

/** A status object is one row; anything bigger is not one. */
const MAX_STATUS_BYTES = 1024 * 1024;

/** The `status` cell of the data-status object (trimmed, upper case); a `ValidationError` when unreadable. */
export const readDataStatus = async (file: AsyncBuffer): Promise<string> => {
  if (file.byteLength > MAX_STATUS_BYTES) {
    return fail(
      'too-large',
      'dataStatus',
      `${file.byteLength} bytes: a data-status object is one row`,
    );
  }
  let rows: Record<string, unknown>[];
  try {
    rows = (await parquetReadObjects({ file, columns: ['status'] })) as Record<string, unknown>[];
  } catch (error) {
    return fail(
      'malformed-body',
      'dataStatus',
      `not a data-status Parquet object: ${(error as Error).message}`,
    );
  }
  const status = rows[0]?.status;
  if (rows.length !== 1 || typeof status !== 'string') {
    return fail('invalid-field', 'dataStatus', 'expected one row with a status text');
  }
  return status.trim().toUpperCase();
};
