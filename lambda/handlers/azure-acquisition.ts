import { AZURE_ACQUISITION_ENV, parseAzureSourcesEnv } from '../../contract/azure-acquisition';
import { azureSourcePorts } from '../adapters/azure-source-ports';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import {
  AZURE_SOURCE_PASSES,
  type AzurePortsFactory,
} from '../core/acquisition/azure-source-passes';
import { createAcquisitionHandler, type AcquisitionStepSeams } from './acquisition-handler';
import { onFirstInvocation } from './consumer';

/**
 * The scheduled Azure export copier (docs/azure-acquisition.md): one copy pass per Azure export source
 * of the event's tenant (`acquisition-handler.ts`); runs not copied (incomplete, refused) are logged
 * as a warning.
 */
export const createAzureAcquisitionHandler = (
  env: NodeJS.ProcessEnv = process.env,
  portsFor?: AzurePortsFactory,
  telemetry: Telemetry = createTelemetry(env),
  steps?: AcquisitionStepSeams,
) =>
  createAcquisitionHandler({
    provider: AZURE_SOURCE_PASSES,
    sources: parseAzureSourcesEnv(env[AZURE_ACQUISITION_ENV.sources]),
    env,
    portsFor,
    defaultPorts: azureSourcePorts,
    telemetry,
    ...(steps ? { steps } : {}),
    warnAbout: ({ sourceId, report }) => {
      if (report.incomplete.length + report.refused.length > 0)
        telemetry.logger.warn('azure runs not copied', {
          sourceId,
          incomplete: report.incomplete.map((i) => ({ runId: i.run.runId, problems: i.problems })),
          refused: report.refused,
        });
    },
  });

export const handler = onFirstInvocation(() => createAzureAcquisitionHandler());
