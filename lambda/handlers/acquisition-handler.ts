import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import type { AcquisitionEvent } from '../../contract/acquisition';
import { ENV, readRequired } from '../../contract/environment';
import type { SourcePortsClients } from '../adapters/source-ports-clients';
import { secretsManagerReader } from '../adapters/secrets-manager-reader';
import type { Telemetry } from '../adapters/telemetry';
import {
  failedSourcesError,
  runSourcePasses,
  sourcesOfTenant,
  type PortsFactory,
  type SourcePass,
  type SourcePassProvider,
} from '../core/acquisition/source-passes';
import { RemainingTime } from './remaining-time';

/** A source's next step is not started with less than this left (an Azure run, a GCP month). */
export const ACQUISITION_PASS_RESERVE_MS = 3 * 60_000;

export interface AcquisitionHandlerOptions<Source extends { tenant: string }, Ports, Report> {
  provider: SourcePassProvider<Source, Ports, Report>;
  /** The provider's sources, from its env var. */
  sources: readonly Source[];
  env: NodeJS.ProcessEnv;
  /** The ports of a source; by default the provider's adapters on this account's clients. */
  portsFor: PortsFactory<Source, Ports> | undefined;
  defaultPorts: (clients: SourcePortsClients) => PortsFactory<Source, Ports>;
  telemetry: Telemetry;
  /** Logs what a finished pass left out (a warning), if anything. */
  warnAbout?: (pass: SourcePass<Report> & { report: Report }, telemetry: Telemetry) => void;
}

/**
 * A scheduled acquisition function: one pass per source of the event's tenant. A pass stops before
 * its next step when the invocation has less than `ACQUISITION_PASS_RESERVE_MS` left; the next
 * schedule resumes from the cursor. A failed source does not stop the others, but the invocation then
 * throws naming it (Lambda's error metric, the error alarm).
 */
export const createAcquisitionHandler = <Source extends { tenant: string }, Ports, Report>(
  options: AcquisitionHandlerOptions<Source, Ports, Report>,
) => {
  const { provider, sources, env, telemetry } = options;
  const exportBucket = readRequired(env, ENV.exportBucketName);
  const ports =
    options.portsFor ??
    options.defaultPorts({
      dynamo: new DynamoDBClient({}),
      s3: new S3Client({}),
      readSecret: secretsManagerReader(new SecretsManagerClient({})),
      ledgerTable: readRequired(env, ENV.ledgerTableName),
      exportBucket,
    });
  const logName = provider.name.toLowerCase();
  const remaining = new RemainingTime();
  return async (
    event: AcquisitionEvent,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<{ tenant: string; passes: SourcePass<Report>[] }> => {
    remaining.use(context);
    const tenant = event?.tenant;
    const passes = await runSourcePasses(
      provider,
      sourcesOfTenant(provider, sources, tenant),
      ports,
      {
        exportBucket,
        keepGoing: () => remaining.ms() > ACQUISITION_PASS_RESERVE_MS,
      },
    );
    for (const pass of passes) {
      if (pass.error !== undefined)
        telemetry.logger.error(`${logName} source pass failed`, { ...pass });
      else if (pass.report !== undefined && options.warnAbout)
        options.warnAbout({ ...pass, report: pass.report }, telemetry);
    }
    telemetry.logger.info(`${logName} acquisition`, { tenant, passes });
    const failed = failedSourcesError(provider, tenant, passes);
    if (failed) throw failed;
    return { tenant, passes };
  };
};
