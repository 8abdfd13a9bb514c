/**
 * `acquire run --period`: a pass limited to one billing period takes only that period, and leaves the
 * other periods to the next full pass (Azure: the cursor does not move; GCP: only that month's
 * watermarks do).
 */
import type { MonthCursor } from '../../../lambda/core/acquisition/gcp-billing-pull';
import { copyAzureExport } from '../../../lambda/core/acquisition/azure-export-copy';
import { pullGcpBilling } from '../../../lambda/core/acquisition/gcp-billing-pull';
import type { Watermarks } from '../../../lambda/core/acquisition/gcp-watermarks';
import { memoryBucket, memoryContainer, memoryCursor } from '../../support/azure-memory-export';

const FOLDER = 'cost-exports/acme-focus-daily/';

describe('an Azure copy pass limited to a period', () => {
  it('copies only that period’s run and leaves the cursor; the next full pass copies the rest once', async () => {
    const container = memoryContainer(FOLDER, ['2024-07', '2024-08', '2024-09']);
    const ports = { container, bucket: memoryBucket(container), cursor: memoryCursor() };
    const spec = { exportFolder: FOLDER, bucket: 'exports', prefix: 'acme' };

    const august = await copyAzureExport(spec, ports, { period: '2024-08' });
    expect(august.copied.map((run) => run.period)).toEqual(['2024-08']);
    expect(ports.cursor.at).toBeUndefined();

    const full = await copyAzureExport(spec, ports);
    expect(full.copied.map((run) => [run.period, run.blobsCopied, run.manifestWritten])).toEqual([
      ['2024-07', 1, true],
      ['2024-08', 0, false],
      ['2024-09', 1, true],
    ]);
    expect(ports.cursor.at?.runId).toBe('00000000-0000-0000-0000-000000000003');
  });
});

describe('a GCP pull limited to a period', () => {
  const probe = [
    ['2024-08-20', '202408', '2024-08-20T08:00:00.000000Z'],
    ['2024-09-20', '202409', '2024-09-20T08:00:00.000000Z'],
  ].map((cells) => ({ f: cells.map((v) => ({ v })) }));
  const world = () => {
    let watermarks: Watermarks = {};
    const months = new Map<string, MonthCursor>();
    const files = new Map<string, string>();
    return {
      months,
      ports: {
        bigquery: {
          queryAll: async () => ({ rows: probe, bytesBilled: 10 }),
          insertJob: async () => undefined,
          page: async () => ({ rows: [] }),
        },
        bucket: {
          readText: async (key: string) => files.get(key),
          putText: async (key: string, text: string) => void files.set(key, text),
        },
        cursor: {
          readWatermarks: async () => watermarks,
          writeWatermarks: async (marks: Watermarks) => void (watermarks = marks),
          readMonth: async (period: string) => months.get(period),
          writeMonth: async (cursor: MonthCursor) => void months.set(cursor.period, cursor),
        },
      },
    };
  };
  const spec = {
    table: 'acme-billing.billing.gcp_billing_export_v1_0',
    location: 'US',
    bucket: 'exports',
    prefix: 'acme',
    exportName: 'gcp-billing',
  };
  const now = () => Date.parse('2024-10-01T00:00:00Z');

  it('acquires only that invoice month; the next full pass takes the other one', async () => {
    const { ports, months } = world();
    const september = await pullGcpBilling(spec, ports, { period: '2024-09', now });
    expect(september.months.map((month) => month.period)).toEqual(['2024-09']);
    expect([...months.keys()]).toEqual(['2024-09']);

    const full = await pullGcpBilling(spec, ports, { now });
    expect(full.changed).toEqual(['202408']);
    expect(full.months.map((month) => month.period)).toEqual(['2024-08']);
  });
});
