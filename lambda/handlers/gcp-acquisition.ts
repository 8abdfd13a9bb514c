import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { ENV, readRequired } from '../../contract/environment';
import {
  GCP_ACQUISITION_ENV,
  parseGcpSourcesEnv,
  type GcpAcquisitionEvent,
} from '../../contract/gcp-acquisition';
import { gcpSourcePorts } from '../adapters/gcp-source-ports';
import { secretsManagerReader } from '../adapters/secrets-manager-reader';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import {
  pullSources,
  type GcpPortsFactory,
  type GcpSourcePass,
} from '../core/acquisition/gcp-source-passes';
import { onFirstInvocation } from './consumer';
import { RemainingTime } from './remaining-time';

/** A month is not started with less than this left. */
export const GCP_PASS_RESERVE_MS = 3 * 60_000;

/**
 * The scheduled Google Cloud billing acquisition (docs/gcp-acquisition.md): one pull per source of
 * the event's tenant. A failed source does not stop the others, but the invocation then throws naming
 * it (Lambda's error metric). Not wired into a stack yet.
 */
export const createGcpAcquisitionHandler = (
  env: NodeJS.ProcessEnv = process.env,
  portsFor?: GcpPortsFactory,
  telemetry: Telemetry = createTelemetry(env),
) => {
  const sources = parseGcpSourcesEnv(env[GCP_ACQUISITION_ENV.sources]);
  const exportBucket = readRequired(env, ENV.exportBucketName);
  const ports =
    portsFor ??
    gcpSourcePorts({
      dynamo: new DynamoDBClient({}),
      s3: new S3Client({}),
      readSecret: secretsManagerReader(new SecretsManagerClient({})),
      ledgerTable: readRequired(env, ENV.ledgerTableName),
      exportBucket,
    });
  const remaining = new RemainingTime();
  return async (
    event: GcpAcquisitionEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<{ tenant: string; passes: GcpSourcePass[] }> => {
    remaining.use(context);
    const tenant = event?.tenant;
    const mine = sources.filter((source) => source.tenant === tenant);
    if (mine.length === 0)
      throw new Error(`no GCP billing source is configured for tenant ${JSON.stringify(tenant)}`);
    const passes = await pullSources(mine, ports, {
      exportBucket,
      keepGoing: () => remaining.ms() > GCP_PASS_RESERVE_MS,
    });
    telemetry.logger.info('gcp acquisition', { tenant, passes });
    const failed = passes.filter((pass) => pass.error !== undefined);
    if (failed.length > 0)
      throw new Error(
        `GCP acquisition of tenant ${tenant}: ${failed.length} of ${passes.length} sources failed: ` +
          failed.map((pass) => `${pass.sourceId}: ${pass.error}`).join('; '),
      );
    return { tenant, passes };
  };
};

export const handler = onFirstInvocation(() => createGcpAcquisitionHandler());
