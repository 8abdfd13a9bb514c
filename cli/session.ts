/**
 * Per-invocation context built from the common flags: where resources come from, how clients are
 * configured, the clock. Commands receive it instead of reaching for globals.
 *
 * Source of resource names, first match wins: --outputs-file (with --stack as a filter) > --stack
 * (CloudFormation) > BILLING_DEDUP_OUTPUTS_FILE. Explicit --topic/--queue-url/--dlq-url/--table always win.
 *
 * Clients use the SDK's default chain (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_SQS, …).
 * Region: --region, else the chain; when the chain has none, AWS_DEFAULT_REGION (as the AWS CLI does) and,
 * for local emulators only (outputs file or AWS_ENDPOINT_URL* set), us-east-1.
 */
import { ClientPool, realSleep, type AwsSettings, type CliDeps, type CliIo } from './context';
import {
  describeStackOutputs,
  readOutputsFile,
  resolvePath,
  Resources,
  type LocalEndpoints,
  type ResourceFlags,
} from './resources';

export interface CommonFlags extends ResourceFlags {
  region?: string;
}

export interface Session {
  io: CliIo;
  clients: ClientPool;
  resources: Resources;
  /** Endpoints from the local run's outputs file (undefined when talking to AWS). */
  localEndpoints?: LocalEndpoints;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  deps: CliDeps;
  close(): void;
}

const hasEndpointEnv = (env: NodeJS.ProcessEnv): boolean =>
  Object.keys(env).some(
    (name) => name === 'AWS_ENDPOINT_URL' || name.startsWith('AWS_ENDPOINT_URL_'),
  );

export const openSession = (flags: CommonFlags, io: CliIo, deps: CliDeps = {}): Session => {
  const env = io.env;
  const filePath =
    flags.outputsFile ?? (flags.stack ? undefined : env.BILLING_DEDUP_OUTPUTS_FILE || undefined);
  const file = filePath ? readOutputsFile(resolvePath(io.cwd, filePath), flags.stack) : undefined;
  const local = Boolean(file) || hasEndpointEnv(env);
  const region =
    flags.region ??
    (env.AWS_REGION ? undefined : (env.AWS_DEFAULT_REGION ?? (local ? 'us-east-1' : undefined)));
  const settings: AwsSettings = {
    ...(region ? { region } : {}),
    endpoints: file?.endpoints ?? {},
    localCredentials: Boolean(file) && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE,
  };
  const clients = new ClientPool(settings, deps.clients);
  const resources = new Resources(
    { ...flags, ...(filePath ? { outputsFile: filePath } : {}) },
    async () => {
      if (file) return file;
      if (flags.stack) return describeStackOutputs(clients.cloudformation, flags.stack);
      return undefined;
    },
  );
  return {
    io,
    clients,
    resources,
    ...(file ? { localEndpoints: file.endpoints } : {}),
    now: deps.now ?? Date.now,
    sleep: deps.sleep ?? realSleep,
    deps,
    close: () => clients.destroy(),
  };
};
