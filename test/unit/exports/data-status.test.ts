/** The legacy CUR Athena integration's data-status object, read as the planner reads it. */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { readDataStatus } from '../../../lambda/core/exports/data-status';
import { CUR_SAMPLES_DIR, DATA_STATUS_PARQUET, dataStatusParquet } from '../../support/cur-samples';
import { rangedBuffer, validationErrorOf } from './helpers';
import { readFileSync } from 'node:fs';
import path from 'node:path';

describe('readDataStatus', () => {
  it('reads READY and UPDATING', async () => {
    const committed = new Uint8Array(readFileSync(path.join(CUR_SAMPLES_DIR, DATA_STATUS_PARQUET)));
    expect(await readDataStatus(rangedBuffer(committed))).toBe('READY');
    expect(await readDataStatus(rangedBuffer(dataStatusParquet('UPDATING')))).toBe('UPDATING');
  });

  it('refuses an object that is not one status row', async () => {
    const two = new Uint8Array(
      parquetWriteBuffer({
        columnData: [{ name: 'status', data: ['READY', 'READY'], type: 'STRING' }],
      }),
    );
    expect((await validationErrorOf(() => readDataStatus(rangedBuffer(two)))).code).toBe(
      'invalid-field',
    );
    const garbage = rangedBuffer(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
    expect((await validationErrorOf(() => readDataStatus(garbage))).code).toBe('malformed-body');
  });
});
