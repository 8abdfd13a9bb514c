import { GCP_ACQUISITION_ENV, parseGcpSourcesEnv } from '../../contract/gcp-acquisition';
import { gcpSourcePorts } from '../adapters/gcp-source-ports';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import { GCP_SOURCE_PASSES, type GcpPortsFactory } from '../core/acquisition/gcp-source-passes';
import { createAcquisitionHandler, type AcquisitionStepSeams } from './acquisition-handler';
import { onFirstInvocation } from './consumer';

/**
 * The scheduled Google Cloud billing acquisition (docs/gcp-acquisition.md): one pull per billing
 * source of the event's tenant (`acquisition-handler.ts`).
 */
export const createGcpAcquisitionHandler = (
  env: NodeJS.ProcessEnv = process.env,
  portsFor?: GcpPortsFactory,
  telemetry: Telemetry = createTelemetry(env),
  steps?: AcquisitionStepSeams,
) =>
  createAcquisitionHandler({
    provider: GCP_SOURCE_PASSES,
    sources: parseGcpSourcesEnv(env[GCP_ACQUISITION_ENV.sources]),
    env,
    portsFor,
    defaultPorts: gcpSourcePorts,
    telemetry,
    ...(steps ? { steps } : {}),
  });

export const handler = onFirstInvocation(() => createGcpAcquisitionHandler());
