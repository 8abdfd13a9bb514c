/**
 * The scheduled Azure acquisition handler over in-memory ports: one pass per source of the event's
 * tenant, a pass that runs out of invocation time stops before the next run and the next invocation
 * resumes from the cursor, and a failed source surfaces as a thrown error after the others ran.
 */
import { AZURE_ACQUISITION_ENV, type AzureExportSource } from '../../../contract/azure-acquisition';
import { ENV } from '../../../contract/environment';
import { createTelemetry } from '../../../lambda/adapters/telemetry';
import type { AzureSourcePorts } from '../../../lambda/core/acquisition/azure-source-passes';
import { ACQUISITION_PASS_RESERVE_MS } from '../../../lambda/handlers/acquisition-handler';
import { createAzureAcquisitionHandler } from '../../../lambda/handlers/azure-acquisition';
import { memoryBucket, memoryContainer, memoryCursor } from '../../support/azure-memory-export';

const FOLDER = 'cost-exports/acme-focus-daily/';
const source = (tenant: string, container: string): AzureExportSource => ({
  tenant,
  storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
  container,
  exportFolder: FOLDER,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:acme-azure-AbCdEf',
  prefix: `${tenant}/azure`,
});
const SOURCES = [source('acme', 'exports'), source('acme', 'more'), source('globex', 'exports')];
const env = {
  [AZURE_ACQUISITION_ENV.sources]: JSON.stringify(SOURCES),
  [ENV.exportBucketName]: 'export-bucket',
  [ENV.ledgerTableName]: 'ledger',
  POWERTOOLS_DEV: 'false',
  [ENV.logLevel]: 'ERROR',
};

/** Each source's ports, kept across invocations (the cursor and the bucket are durable). */
const world = (months: string[], failing: string[] = []) => {
  const ports = new Map<string, AzureSourcePorts & { bucket: ReturnType<typeof memoryBucket> }>();
  const factory = async (s: AzureExportSource) => {
    if (failing.includes(s.container)) throw new Error(`AuthorizationFailure on ${s.container}`);
    const key = `${s.tenant}/${s.container}`;
    if (!ports.has(key)) {
      const container = memoryContainer(FOLDER, months);
      ports.set(key, { container, bucket: memoryBucket(container), cursor: memoryCursor() });
    }
    return ports.get(key) as AzureSourcePorts & { bucket: ReturnType<typeof memoryBucket> };
  };
  return { ports, factory };
};

/** An invocation context whose remaining time drops by `stepMs` at each look. */
const clock = (startMs: number, stepMs: number) => {
  let left = startMs + stepMs;
  return { getRemainingTimeInMillis: () => (left -= stepMs) };
};

describe('the Azure acquisition handler', () => {
  it('copies every run of each source of the tenant, and only that tenant', async () => {
    const { ports, factory } = world(['2024-07', '2024-08']);
    const handler = createAzureAcquisitionHandler(env, factory, createTelemetry(env));
    const result = await handler({ tenant: 'acme' }, clock(15 * 60_000, 0));
    expect(result.passes.map((p) => [p.sourceId, p.report?.copied.length])).toEqual([
      ['acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily', 2],
      ['acmecosts.blob.core.windows.net/more/cost-exports/acme-focus-daily', 2],
    ]);
    expect([...ports.keys()]).toEqual(['acme/exports', 'acme/more']);
    const keys = [...(ports.get('acme/exports')?.bucket.objects.keys() ?? [])];
    expect(keys.filter((k) => k.endsWith('-Manifest.json'))).toHaveLength(2);
    expect(keys.every((k) => k.startsWith('acme/azure/'))).toBe(true);
  });

  it('stops before a run when the invocation runs short; the next invocation resumes from the cursor', async () => {
    const { ports, factory } = world(['2024-07', '2024-08', '2024-09']);
    const handler = createAzureAcquisitionHandler(
      { ...env, [AZURE_ACQUISITION_ENV.sources]: JSON.stringify([SOURCES[0]]) },
      factory,
      createTelemetry(env),
    );
    // One look before the source, one before each run: time for the source and one run only.
    const short = await handler({ tenant: 'acme' }, clock(ACQUISITION_PASS_RESERVE_MS + 2, 1));
    expect(short.passes[0].report?.copied.map((r) => r.period)).toEqual(['2024-07']);
    expect(short.passes[0].report?.leftForNextPass).toBe(2);
    const next = await handler({ tenant: 'acme' }, clock(15 * 60_000, 0));
    expect(next.passes[0].report?.copied.map((r) => r.period)).toEqual(['2024-08', '2024-09']);
    const manifests = [...(ports.get('acme/exports')?.bucket.objects.keys() ?? [])].filter((k) =>
      k.endsWith('-Manifest.json'),
    );
    expect(manifests).toHaveLength(3);
  });

  it('skips the remaining sources when no time is left, without failing', async () => {
    const { ports, factory } = world(['2024-07']);
    const handler = createAzureAcquisitionHandler(env, factory, createTelemetry(env));
    const result = await handler({ tenant: 'acme' }, clock(ACQUISITION_PASS_RESERVE_MS, 0));
    expect(result.passes.map((p) => p.skipped)).toEqual([true, true]);
    expect(ports.size).toBe(0);
  });

  it('runs the other sources, then throws naming the source that failed', async () => {
    const { ports, factory } = world(['2024-07'], ['exports']);
    const handler = createAzureAcquisitionHandler(env, factory, createTelemetry(env));
    await expect(handler({ tenant: 'acme' }, clock(15 * 60_000, 0))).rejects.toThrow(
      'Azure acquisition of tenant acme: 1 of 2 sources failed: ' +
        'acmecosts.blob.core.windows.net/exports/cost-exports/acme-focus-daily: AuthorizationFailure on exports',
    );
    expect(ports.get('acme/more')?.bucket.objects.size).toBe(2);
  });

  it('refuses a tenant without an Azure source, naming the configured ones', async () => {
    const handler = createAzureAcquisitionHandler(env, world([]).factory, createTelemetry(env));
    await expect(handler({ tenant: 'initech' })).rejects.toThrow(
      'no Azure export source is configured for tenant "initech" (configured: acme, globex)',
    );
  });
});
