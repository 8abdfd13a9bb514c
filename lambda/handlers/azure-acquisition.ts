import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ContainerClient } from '@azure/storage-blob';
import type { Context } from 'aws-lambda';
import {
  AZURE_ACQUISITION_ENV,
  azureSourceId,
  parseAzureSourcesEnv,
  type AzureAcquisitionEvent,
  type AzureExportSource,
} from '../../contract/azure-acquisition';
import { ENV, readRequired } from '../../contract/environment';
import { AzureAcquisitionCursor } from '../adapters/azure-acquisition-cursor';
import { AzureBlobContainer } from '../adapters/azure-blob-container';
import { azureCredentialFor, type SecretReader } from '../adapters/azure-credentials';
import { AzureExportBucket } from '../adapters/azure-export-bucket';
import { secretsManagerReader } from '../adapters/secrets-manager-reader';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import {
  copyAzureExport,
  type AzureContainerPort,
  type AzureCursorPort,
  type CopyReport,
  type ExportBucketPort,
} from '../core/acquisition/azure-export-copy';
import { onFirstInvocation } from './consumer';
import { RemainingTime } from './remaining-time';

/** A run is not started with less than this left: a run's blobs are copied within one invocation. */
export const AZURE_PASS_RESERVE_MS = 3 * 60_000;

export interface AzureSourcePorts {
  container: AzureContainerPort;
  bucket: ExportBucketPort;
  cursor: AzureCursorPort;
}

/** The ports of one source for this run (its secret read now: a rotated secret needs no redeploy). */
export type AzurePortsFactory = (source: AzureExportSource) => Promise<AzureSourcePorts>;

export const productionPorts = (env: NodeJS.ProcessEnv): AzurePortsFactory => {
  const dynamo = new DynamoDBClient({});
  const s3 = new S3Client({});
  const readSecret: SecretReader = secretsManagerReader(new SecretsManagerClient({}));
  const ledgerTable = readRequired(env, ENV.ledgerTableName);
  const exportBucket = readRequired(env, ENV.exportBucketName);
  return async (source) => {
    const credential = await azureCredentialFor(readSecret, source.secretArn);
    const container = new AzureBlobContainer(
      new ContainerClient(
        `${source.storageAccountUrl.replace(/\/$/, '')}/${source.container}`,
        credential,
      ),
    );
    return {
      container,
      bucket: new AzureExportBucket(s3, exportBucket, container),
      cursor: new AzureAcquisitionCursor({
        client: dynamo,
        ledgerTable,
        sourceId: azureSourceId(source),
      }),
    };
  };
};

export interface SourcePass {
  sourceId: string;
  report?: CopyReport;
  /** The pass did not start: the invocation had no time left. */
  skipped?: boolean;
  error?: string;
}

/**
 * One copy pass per Azure export source of the event's tenant (docs/azure-acquisition.md). A pass stops
 * before a run when the invocation has less than `AZURE_PASS_RESERVE_MS` left; the next schedule
 * resumes from the cursor. A source that fails does not stop the others, but the invocation then
 * throws, naming every failed source (Lambda's error metric and the error alarm).
 */
export const createAzureAcquisitionHandler = (
  env: NodeJS.ProcessEnv = process.env,
  portsFor: AzurePortsFactory = productionPorts(env),
  telemetry: Telemetry = createTelemetry(env),
) => {
  const sources = parseAzureSourcesEnv(env[AZURE_ACQUISITION_ENV.sources]);
  const remaining = new RemainingTime();
  const keepGoing = () => remaining.ms() > AZURE_PASS_RESERVE_MS;
  return async (
    event: AzureAcquisitionEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<{ tenant: string; passes: SourcePass[] }> => {
    remaining.use(context);
    const tenant = event?.tenant;
    const mine = sources.filter((source) => source.tenant === tenant);
    if (mine.length === 0)
      throw new Error(
        `no Azure export source is configured for tenant ${JSON.stringify(tenant)} ` +
          `(configured: ${[...new Set(sources.map((s) => s.tenant))].join(', ') || 'none'})`,
      );
    const passes: SourcePass[] = [];
    for (const source of mine) {
      const sourceId = azureSourceId(source);
      if (!keepGoing()) {
        passes.push({ sourceId, skipped: true });
        continue;
      }
      try {
        const report = await copyAzureExport(
          {
            exportFolder: source.exportFolder,
            bucket: env[ENV.exportBucketName] ?? '',
            prefix: source.prefix,
          },
          await portsFor(source),
          { keepGoing },
        );
        passes.push({ sourceId, report });
        if (report.incomplete.length + report.refused.length > 0)
          telemetry.logger.warn('azure runs not copied', {
            sourceId,
            incomplete: report.incomplete.map((i) => ({
              runId: i.run.runId,
              problems: i.problems,
            })),
            refused: report.refused,
          });
      } catch (error) {
        passes.push({ sourceId, error: error instanceof Error ? error.message : String(error) });
        telemetry.logger.error('azure copy pass failed', { sourceId, error });
      }
    }
    telemetry.logger.info('azure acquisition', { tenant, passes });
    const failed = passes.filter((pass) => pass.error !== undefined);
    if (failed.length > 0)
      throw new Error(
        `Azure acquisition of tenant ${tenant}: ${failed.length} of ${passes.length} sources failed: ` +
          failed.map((pass) => `${pass.sourceId}: ${pass.error}`).join('; '),
      );
    return { tenant, passes };
  };
};

export const handler = onFirstInvocation(() => createAzureAcquisitionHandler());
