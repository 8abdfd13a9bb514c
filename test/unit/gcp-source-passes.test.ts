import type { GcpBillingSource } from '../../contract/gcp-acquisition';
import { GCP_SOURCE_PASSES } from '../../lambda/core/acquisition/gcp-source-passes';
import { runSourcePasses } from '../../lambda/core/acquisition/source-passes';

const source = (table: string): GcpBillingSource => ({
  tenant: 'acme',
  jobProject: 'p',
  table,
  location: 'US',
  secretArn: 'arn',
  prefix: 'acme',
  exportName: 'gcp-billing',
});

describe('GCP source passes', () => {
  it('a failing source is reported and the next one still runs; no time left skips the rest', async () => {
    const seen: string[] = [];
    const passes = await runSourcePasses(
      GCP_SOURCE_PASSES,
      [source('billing-proj.d.broken'), source('billing-proj.d.ok'), source('billing-proj.d.late')],
      async (s) => {
        seen.push(s.table);
        if (s.table === 'billing-proj.d.broken') throw new Error('the key cannot be read');
        return {
          bigquery: {
            queryAll: async () => ({ rows: [], bytesBilled: 10 }),
            insertJob: async () => undefined,
            page: async () => ({ rows: [] }),
          },
          bucket: { readText: async () => undefined, putText: async () => undefined },
          cursor: {
            readWatermarks: async () => ({}),
            writeWatermarks: async () => undefined,
            readMonth: async () => undefined,
            writeMonth: async () => undefined,
          },
        };
      },
      { exportBucket: 'exports', keepGoing: () => seen.length < 2 },
    );
    expect(passes).toEqual([
      { sourceId: 'billing-proj.d.broken', error: 'the key cannot be read' },
      {
        sourceId: 'billing-proj.d.ok',
        report: { changed: [], months: [], probeBytesBilled: 10, leftForNextPass: 0 },
      },
      { sourceId: 'billing-proj.d.late', skipped: true },
    ]);
  });
});
