/**
 * The scheduled GCP acquisition handler over in-memory ports: only the event's tenant's sources are
 * pulled, and a failed source surfaces as a thrown error naming it after the others ran.
 */
import { ENV } from '../../../contract/environment';
import { GCP_ACQUISITION_ENV, type GcpBillingSource } from '../../../contract/gcp-acquisition';
import { createTelemetry } from '../../../lambda/adapters/telemetry';
import type { GcpSourcePorts } from '../../../lambda/core/acquisition/gcp-source-passes';
import { createGcpAcquisitionHandler } from '../../../lambda/handlers/gcp-acquisition';

const source = (tenant: string, table: string): GcpBillingSource => ({
  tenant,
  jobProject: 'billing-proj',
  table,
  location: 'US',
  secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gcp-AbCdEf',
  prefix: `${tenant}/gcp`,
  exportName: 'gcp-billing',
});
const env = {
  [GCP_ACQUISITION_ENV.sources]: JSON.stringify([
    source('acme', 'billing-proj.billing.one'),
    source('acme', 'billing-proj.billing.two'),
    source('globex', 'billing-proj.billing.three'),
  ]),
  [ENV.exportBucketName]: 'export-bucket',
  [ENV.ledgerTableName]: 'ledger',
  POWERTOOLS_DEV: 'false',
  [ENV.logLevel]: 'ERROR',
};

const emptyPorts = (): GcpSourcePorts => ({
  bigquery: {
    queryAll: async () => ({ rows: [], bytesBilled: 0 }),
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
});

describe('the GCP acquisition handler', () => {
  it("pulls each source of the event's tenant, and only that tenant", async () => {
    const pulled: string[] = [];
    const handler = createGcpAcquisitionHandler(
      env,
      async (s) => {
        pulled.push(s.table);
        return emptyPorts();
      },
      createTelemetry(env),
    );
    const result = await handler({ tenant: 'acme' });
    expect(pulled).toEqual(['billing-proj.billing.one', 'billing-proj.billing.two']);
    expect(result.passes.every((pass) => pass.report !== undefined)).toBe(true);
  });

  it('a failed source throws naming it, after the other source ran', async () => {
    const pulled: string[] = [];
    const handler = createGcpAcquisitionHandler(
      env,
      async (s) => {
        pulled.push(s.table);
        if (s.table.endsWith('one')) throw new Error('invalid_grant');
        return emptyPorts();
      },
      createTelemetry(env),
    );
    await expect(handler({ tenant: 'acme' })).rejects.toThrow(
      /1 of 2 sources failed: billing-proj.billing.one: invalid_grant/,
    );
    expect(pulled).toHaveLength(2);
  });

  it('a tenant without a source is refused', async () => {
    const handler = createGcpAcquisitionHandler(
      env,
      async () => emptyPorts(),
      createTelemetry(env),
    );
    await expect(handler({ tenant: 'initech' })).rejects.toThrow(/no GCP billing source/);
  });
});
