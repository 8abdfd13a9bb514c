/**
 * The local run's Azure export source: Azurite (local/emulators/azurite.ts) as the customer's storage
 * account, holding runs of a month-to-date FOCUS cost export of a dedicated tenant as Cost Management
 * writes them — the partition CSV (test/fixtures/focus/focus-sample-data-1.1-excerpt.csv) and the run's
 * `manifest.json` (test/fixtures/azure/manifest.json; sources and licences in those folders' READMEs) —
 * and the copier's ports over it. `azureSourcePorts` always builds a client-secret credential for the
 * real account; locally the container is Azurite's, with its development key, through the same adapters.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import Big from 'big.js';
import { azureSourceId, type AzureExportSource } from '../../contract/azure-acquisition';
import { AzureAcquisitionCursor } from '../../lambda/adapters/azure-acquisition-cursor';
import { AzureBlobContainer } from '../../lambda/adapters/azure-blob-container';
import { AzureExportBucket } from '../../lambda/adapters/azure-export-bucket';
import type { SourcePortsClients } from '../../lambda/adapters/source-ports-clients';
import type { AzurePortsFactory } from '../../lambda/core/acquisition/azure-source-passes';
import { formatDecimal } from '../../lambda/core/decimal';
import { readCsvRows } from '../../lambda/core/exports/readers/csv';
import { startAzurite, type LocalAzurite } from '../emulators/azurite';

export const AZURE_TENANT = 'acq-azure';
export const AZURE_PERIOD = '2024-09';
const CONTAINER = 'cost-exports';
const EXPORT_NAME = 'acq-azure-focus-daily';
const EXPORT_FOLDER = `${CONTAINER}/${EXPORT_NAME}/`;
const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures');
const readFixture = (relative: string): string =>
  readFileSync(path.join(FIXTURES, relative), 'utf8');

export interface AzureRunSpec {
  runId: string;
  submittedTime: string;
  endDate: string;
  /** The run's one partition (a FOCUS CSV). */
  csv: string;
}

/** The first run: the FOCUS sample excerpt as the month's partition. */
export const azureFirstRun = (): AzureRunSpec => ({
  runId: 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598',
  submittedTime: '2024-09-20T18:33:03.1032074Z',
  endDate: '2024-09-19T00:00:00',
  csv: readFixture('focus/focus-sample-data-1.1-excerpt.csv'),
});

/**
 * A later run of the same month: every row again and one more, a copy of the excerpt's last row
 * with another BilledCost (a new day of usage).
 */
export const azureCorrectionRun = (): AzureRunSpec => {
  const csv = readFixture('focus/focus-sample-data-1.1-excerpt.csv').replace(/\n*$/, '\n');
  const lines = csv.trimEnd().split('\n');
  const last = lines[lines.length - 1];
  const added = `17.25${last.slice(last.indexOf(','))}`;
  return {
    runId: '5f0e9b42-7c1d-4e8a-9b3f-2a6d8c1e4f70',
    submittedTime: '2024-09-27T18:31:12.4470012Z',
    endDate: '2024-09-26T00:00:00',
    csv: `${csv}${added}\n`,
  };
};

/** Σ BilledCost of a run's rows, per currency, exactly (read with the pipeline's CSV reader). */
export const azureRunTotals = async (
  run: AzureRunSpec,
): Promise<{ rows: number; totals: Record<string, string> }> => {
  const sums = new Map<string, Big>();
  let rows = 0;
  for await (const row of readCsvRows(Readable.from([Buffer.from(run.csv)]), { gzip: false })) {
    rows++;
    const currency = String(row.cells.BillingCurrency);
    sums.set(currency, (sums.get(currency) ?? new Big(0)).plus(String(row.cells.BilledCost)));
  }
  return {
    rows,
    totals: Object.fromEntries([...sums].map(([currency, sum]) => [currency, formatDecimal(sum)])),
  };
};

export interface LocalAzureSource {
  azurite: LocalAzurite;
  source: AzureExportSource;
  /** Writes a run as Cost Management does: its partition, then its manifest. */
  upload(run: AzureRunSpec): Promise<void>;
  portsFor(clients: SourcePortsClients): AzurePortsFactory;
  stop(): Promise<void>;
}

export const startLocalAzureSource = async (prefix: string): Promise<LocalAzureSource> => {
  const azurite = await startAzurite();
  const container = azurite.client.getContainerClient(CONTAINER);
  try {
    await container.create();
  } catch (error) {
    await azurite.stop();
    throw error;
  }
  const template = JSON.parse(readFixture('azure/manifest.json')) as Record<
    string,
    Record<string, unknown>
  >;
  return {
    azurite,
    source: {
      tenant: AZURE_TENANT,
      storageAccountUrl: azurite.endpoint,
      container: CONTAINER,
      exportFolder: EXPORT_FOLDER,
      secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:acq-azure-export-reader',
      prefix,
    },
    upload: async (run) => {
      const exportTime = run.submittedTime.slice(0, 16).replace(/[-T:]/g, '');
      const folder = `${EXPORT_FOLDER}20240901-20240930/${exportTime}/${run.runId}/`;
      const bytes = Buffer.from(run.csv);
      const blobName = `${folder}part_0_0001.csv`;
      await container.getBlockBlobClient(blobName).uploadData(bytes);
      const manifest = {
        ...template,
        exportConfig: {
          ...template.exportConfig,
          exportName: EXPORT_NAME,
          resourceId: String(template.exportConfig.resourceId).replace(/[^/]+$/, EXPORT_NAME),
        },
        deliveryConfig: { ...template.deliveryConfig, rootFolderPath: CONTAINER },
        runInfo: {
          ...template.runInfo,
          runId: run.runId,
          submittedTime: run.submittedTime,
          endDate: run.endDate,
        },
        blobs: [{ blobName, byteCount: bytes.length }],
      };
      await container
        .getBlockBlobClient(`${folder}manifest.json`)
        .uploadData(Buffer.from(JSON.stringify(manifest, null, 2)));
    },
    portsFor: (clients) => (source) => {
      const blobs = new AzureBlobContainer(azurite.client.getContainerClient(source.container));
      return Promise.resolve({
        container: blobs,
        bucket: new AzureExportBucket(clients.s3, clients.exportBucket, blobs),
        cursor: new AzureAcquisitionCursor({
          client: clients.dynamo,
          ledgerTable: clients.ledgerTable,
          sourceId: azureSourceId(source),
        }),
      });
    },
    stop: () => azurite.stop(),
  };
};
