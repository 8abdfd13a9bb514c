import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import {
  AZURE_ACQUISITION_ENV,
  parseAzureSourcesEnv,
  type AzureAcquisitionEvent,
} from '../../contract/azure-acquisition';
import { ENV, readRequired } from '../../contract/environment';
import { azureSourcePorts } from '../adapters/azure-source-ports';
import { secretsManagerReader } from '../adapters/secrets-manager-reader';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import {
  copySources,
  failedSourcesError,
  sourcesOfTenant,
  type AzurePortsFactory,
  type SourcePass,
} from '../core/acquisition/azure-source-passes';
import { onFirstInvocation } from './consumer';
import { RemainingTime } from './remaining-time';

/** A run is not started with less than this left: a run's blobs are copied within one invocation. */
export const AZURE_PASS_RESERVE_MS = 3 * 60_000;

/**
 * The scheduled Azure export copier (docs/azure-acquisition.md): one copy pass per Azure export source
 * of the event's tenant. A pass stops before a run when the invocation has less than
 * `AZURE_PASS_RESERVE_MS` left; the next schedule resumes from the cursor. A failed source does not stop
 * the others, but the invocation then throws naming it (Lambda's error metric, the error alarm).
 */
export const createAzureAcquisitionHandler = (
  env: NodeJS.ProcessEnv = process.env,
  portsFor?: AzurePortsFactory,
  telemetry: Telemetry = createTelemetry(env),
) => {
  const sources = parseAzureSourcesEnv(env[AZURE_ACQUISITION_ENV.sources]);
  const exportBucket = readRequired(env, ENV.exportBucketName);
  const ports =
    portsFor ??
    azureSourcePorts({
      dynamo: new DynamoDBClient({}),
      s3: new S3Client({}),
      readSecret: secretsManagerReader(new SecretsManagerClient({})),
      ledgerTable: readRequired(env, ENV.ledgerTableName),
      exportBucket,
    });
  const remaining = new RemainingTime();
  return async (
    event: AzureAcquisitionEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<{ tenant: string; passes: SourcePass[] }> => {
    remaining.use(context);
    const tenant = event?.tenant;
    const passes = await copySources(sourcesOfTenant(sources, tenant), ports, {
      exportBucket,
      keepGoing: () => remaining.ms() > AZURE_PASS_RESERVE_MS,
    });
    for (const pass of passes) {
      const { report } = pass;
      if (pass.error !== undefined) telemetry.logger.error('azure copy pass failed', { ...pass });
      else if (report && report.incomplete.length + report.refused.length > 0)
        telemetry.logger.warn('azure runs not copied', {
          sourceId: pass.sourceId,
          incomplete: report.incomplete.map((i) => ({ runId: i.run.runId, problems: i.problems })),
          refused: report.refused,
        });
    }
    telemetry.logger.info('azure acquisition', { tenant, passes });
    const failed = failedSourcesError(tenant, passes);
    if (failed) throw failed;
    return { tenant, passes };
  };
};

export const handler = onFirstInvocation(() => createAzureAcquisitionHandler());
