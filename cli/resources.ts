/**
 * Resource discovery. Precedence: explicit flags (--topic, --queue-url, --dlq-url, --table) > the local run's
 * outputs file (--outputs-file / BILLING_DEDUP_OUTPUTS_FILE) > CloudFormation stack outputs (--stack).
 * Discovery is lazy: a command whose resources are all explicit never calls CloudFormation.
 *
 * `--stack NAME`:
 * - NAME ends in `-stateful` / `-stateless`: that stack must exist; its sibling is read too when it exists
 *   (the ledger table lives in the stateful stack, queues and topics in the stateless one);
 * - otherwise NAME is a stage prefix (`billing-dedup-dev`): `NAME-stateful` and `NAME-stateless` are read;
 *   when neither exists, NAME itself is tried (a single-stack deployment). Nothing found → "unknown stack".
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { parseAzureSourcesEnv, type AzureExportSource } from '../contract/azure-acquisition';
import { parseExportSourcesJson, type ExportSourceConfig } from '../contract/export-sources';
import { parseGcpSourcesEnv, type GcpBillingSource } from '../contract/gcp-acquisition';
import {
  AZURE_EXPORT_SOURCES_OUTPUT,
  GCP_BILLING_SOURCES_OUTPUT,
  STACK_OUTPUTS,
  streamOutputs,
  TENANT_STACKS_OUTPUT,
  TENANT_TOPICS_OUTPUT,
} from '../contract/outputs';
import { STREAM_NAMES, type StreamName, isStreamName } from '../contract/streams';
import { CliError, UsageError } from './errors';

export const STREAMS = STREAM_NAMES;
export type Stream = StreamName;
export const isStream = isStreamName;

export interface ResourceFlags {
  stack?: string;
  outputsFile?: string;
  topic?: string;
  queueUrl?: string;
  dlqUrl?: string;
  table?: string;
  bucket?: string;
  archiveBucket?: string;
}

export interface DiscoveredOutputs {
  outputs: Record<string, string>;
  /** Where they came from, for messages: stack names or the outputs file path. */
  origin: string;
}

export interface LocalEndpoints {
  sqs?: string;
  dynamodb?: string;
  sns?: string;
  s3?: string;
  /** Local stand-ins of BigQuery's REST API and Google's token endpoint (GCP acquisition). */
  bigquery?: string;
  googleToken?: string;
}

export interface OutputsFile extends DiscoveredOutputs {
  endpoints: LocalEndpoints;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The stage prefix of a stack name (tenant stacks: `…-stateless-tenants-07`). */
const stagePrefix = (name: string): string =>
  name.replace(/-(stateful|stateless(-tenants-\d+)?)$/, '');

/**
 * Outputs of several stacks as one record. Each tenant stack outputs its own tenants' topics under the
 * same id (TENANT_TOPICS_OUTPUT): those JSON maps are merged, not overwritten.
 */
const mergeOutputs = (stacks: Record<string, string>[]): Record<string, string> => {
  const merged: Record<string, string> = Object.assign({}, ...stacks) as Record<string, string>;
  const topicMaps = stacks.flatMap((outputs) =>
    outputs[TENANT_TOPICS_OUTPUT] === undefined ? [] : [outputs[TENANT_TOPICS_OUTPUT]],
  );
  if (topicMaps.length > 1) {
    try {
      merged[TENANT_TOPICS_OUTPUT] = JSON.stringify(
        Object.assign({}, ...topicMaps.map((text) => JSON.parse(text) as object)),
      );
    } catch {
      // Left as is: tenantTopicArn reports the output as not JSON.
    }
  }
  return merged;
};

/** `.local/stack-outputs.json` of the local run: `{ "<stack>": {OutputKey: value}, "endpoints": {…} }`. */
export const readOutputsFile = (path: string, stack?: string): OutputsFile => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String(error);
    throw new UsageError(
      `Cannot read outputs file ${path} (${reason}): start the local run (npm start) or fix --outputs-file`,
    );
  }
  if (!isRecord(parsed))
    throw new UsageError(`Outputs file ${path} is not a JSON object of stack outputs`);
  const endpoints: LocalEndpoints = {};
  if (isRecord(parsed.endpoints)) {
    for (const service of ['sqs', 'dynamodb', 'sns', 's3', 'bigquery', 'googleToken'] as const) {
      const value = parsed.endpoints[service];
      if (typeof value === 'string' && value) endpoints[service] = value;
    }
  }
  const stacks = Object.entries(parsed).filter(
    ([name, value]) => name !== 'endpoints' && isRecord(value),
  ) as [string, Record<string, unknown>][];
  const wanted = stack
    ? stacks.filter(([name]) => name === stack || stagePrefix(name) === stagePrefix(stack))
    : stacks;
  if (stack && wanted.length === 0) {
    throw new UsageError(
      `Outputs file ${path} has no stack ${stack} (it has ${stacks.map(([n]) => n).join(', ') || 'none'}): fix --stack or drop it`,
    );
  }
  const outputs = mergeOutputs(
    wanted.map(([, values]) =>
      Object.fromEntries(
        Object.entries(values).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      ),
    ),
  );
  return { outputs, origin: path, endpoints };
};

const describeOne = async (
  cfn: CloudFormationClient,
  name: string,
): Promise<Record<string, string> | undefined> => {
  try {
    const result = await cfn.send(new DescribeStacksCommand({ StackName: name }));
    const stack = result.Stacks?.[0];
    if (!stack) return undefined;
    return Object.fromEntries(
      (stack.Outputs ?? [])
        .filter((output) => output.OutputKey && output.OutputValue !== undefined)
        .map((output) => [output.OutputKey as string, output.OutputValue as string]),
    );
  } catch (error) {
    const e = error as { name?: string; message?: string };
    if (e.name === 'ValidationError' && /does not exist/i.test(e.message ?? '')) return undefined;
    throw error;
  }
};

const regionOf = async (cfn: CloudFormationClient): Promise<string> => {
  try {
    return await cfn.config.region();
  } catch {
    return 'the configured region';
  }
};

/** Stack outputs by stack name or stage prefix (see the module comment). */
export const describeStackOutputs = async (
  cfn: CloudFormationClient,
  name: string,
): Promise<DiscoveredOutputs> => {
  const suffixed = /-(stateful|stateless)$/.exec(name);
  const tried: string[] = [];
  const found: [string, Record<string, string>][] = [];
  const read = async (stackName: string) => {
    tried.push(stackName);
    const outputs = await describeOne(cfn, stackName);
    if (outputs) found.push([stackName, outputs]);
    return outputs;
  };
  if (suffixed) {
    if (await read(name)) {
      const sibling = `${stagePrefix(name)}-${suffixed[1] === 'stateful' ? 'stateless' : 'stateful'}`;
      await read(sibling);
    }
  } else {
    await read(`${name}-stateful`);
    await read(`${name}-stateless`);
    if (found.length === 0) await read(name);
  }
  // The tenant stacks the stateless stack names (their tenants' topics), read side by side.
  const tenantStacks = found.flatMap(([, outputs]) => {
    try {
      const names: unknown = JSON.parse(outputs[TENANT_STACKS_OUTPUT] ?? '[]');
      return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
    } catch {
      return [];
    }
  });
  await Promise.all(tenantStacks.map(read));
  if (found.length === 0) {
    throw new CliError(
      `Stack ${name} not found in ${await regionOf(cfn)} (tried ${tried.join(', ')}): ` +
        'pass a deployed stack name or stage prefix (e.g. billing-dedup-dev) to --stack and check AWS_REGION / --region',
    );
  }
  return {
    outputs: mergeOutputs(found.map(([, outputs]) => outputs)),
    origin:
      found.length > 3
        ? `${found[0][0]} + ${found.length - 1} more stacks`
        : found.map(([stackName]) => stackName).join(' + '),
  };
};

/** Resolves the resources a command needs; each getter names the flag that fixes a miss. */
export class Resources {
  private discovered?: Promise<DiscoveredOutputs | undefined>;

  constructor(
    readonly flags: ResourceFlags,
    private readonly discover: () => Promise<DiscoveredOutputs | undefined>,
  ) {}

  private outputs(): Promise<DiscoveredOutputs | undefined> {
    return (this.discovered ??= this.discover());
  }

  private async lookup(key: string, flag: string, what: string): Promise<string> {
    const discovered = await this.outputs();
    const value = discovered?.outputs[key];
    if (value) return value;
    if (!discovered)
      throw new UsageError(`No ${what}: pass ${flag}, --stack <name> or --outputs-file <file>`);
    throw new UsageError(
      `${discovered.origin} has no output ${key} (${what}): pass ${flag}, or point --stack at a deployed billing-dedup stage`,
    );
  }

  async topicArn(stream: Stream): Promise<string> {
    return (
      this.flags.topic ??
      this.lookup(streamOutputs(stream).topicArn, '--topic', `${stream} topic ARN`)
    );
  }

  /**
   * The cost-events topic bound to `tenant` (docs/threat-model.md); undefined when `--topic` is given or
   * the stage has no tenant topics (then the tenant travels as a message attribute to the shared topic).
   */
  async tenantTopicArn(tenant: string): Promise<string | undefined> {
    if (this.flags.topic) return undefined;
    const discovered = await this.outputs();
    const text = discovered?.outputs[TENANT_TOPICS_OUTPUT];
    if (!discovered || !text) return undefined;
    let topics: Record<string, unknown>;
    try {
      topics = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new UsageError(`${discovered.origin}: output ${TENANT_TOPICS_OUTPUT} is not JSON`);
    }
    const arn = topics[tenant];
    if (typeof arn === 'string') return arn;
    throw new UsageError(
      `${discovered.origin} has no cost-events topic for tenant "${tenant}" (tenants with a topic: ` +
        `${Object.keys(topics).join(', ') || 'none'}): fix --tenant, or add the tenant to the stage's ` +
        '`tenants` configuration and deploy',
    );
  }

  async queueUrl(stream: Stream): Promise<string> {
    return (
      this.flags.queueUrl ??
      this.lookup(streamOutputs(stream).queueUrl, '--queue-url', `${stream} source queue URL`)
    );
  }

  /** The source queue is optional for a redrive (SQS can find it from the DLQ): undefined when unknown. */
  async optionalQueueUrl(stream: Stream): Promise<string | undefined> {
    if (this.flags.queueUrl) return this.flags.queueUrl;
    if (this.flags.dlqUrl && !this.flags.stack && !this.flags.outputsFile) return undefined;
    return (await this.outputs())?.outputs[streamOutputs(stream).queueUrl];
  }

  async dlqUrl(stream: Stream): Promise<string> {
    return (
      this.flags.dlqUrl ??
      this.lookup(streamOutputs(stream).dlqUrl, '--dlq-url', `${stream} dead-letter queue URL`)
    );
  }

  async exportBucket(): Promise<string> {
    return (
      this.flags.bucket ??
      this.lookup(STACK_OUTPUTS.exportBucketName, '--bucket', 'billing export bucket name')
    );
  }

  /**
   * The stage's `exportSources` when discovered; undefined without --stack / --outputs-file, or from a
   * stack deployed before it had the output.
   */
  async exportSources(): Promise<{ sources: ExportSourceConfig[]; origin: string } | undefined> {
    const discovered = await this.outputs();
    const text = discovered?.outputs[STACK_OUTPUTS.exportSources];
    if (!discovered || text === undefined) return undefined;
    try {
      return { sources: parseExportSourcesJson(text), origin: discovered.origin };
    } catch (error) {
      throw new UsageError(
        `${discovered.origin}: output ${STACK_OUTPUTS.exportSources}: ${(error as Error).message}`,
      );
    }
  }

  /** The stage's late-charge policy when discovered (undefined otherwise: the caller asks for a flag). */
  async lateChargePolicy(): Promise<string | undefined> {
    return (await this.outputs())?.outputs[STACK_OUTPUTS.lateChargePolicy];
  }

  /**
   * The stage's acquisition sources: Azure exports (config `azureExports`) and GCP billing tables
   * (`gcpBillingExports`); a stage with neither is a usage error.
   */
  async acquisitionSources(): Promise<{ azure: AzureExportSource[]; gcp: GcpBillingSource[] }> {
    const discovered = await this.outputs();
    const what =
      'acquisition sources; configure azureExports (docs/azure-acquisition.md) or gcpBillingExports (docs/gcp-acquisition.md)';
    if (!discovered)
      throw new UsageError(`No ${what}: pass --stack <name> or --outputs-file <file>`);
    const azure = discovered.outputs[AZURE_EXPORT_SOURCES_OUTPUT];
    const gcp = discovered.outputs[GCP_BILLING_SOURCES_OUTPUT];
    if (!azure && !gcp)
      throw new UsageError(
        `${discovered.origin} has no output ${AZURE_EXPORT_SOURCES_OUTPUT} or ${GCP_BILLING_SOURCES_OUTPUT} (${what})`,
      );
    const parsed = <T>(output: string, parse: (text: string) => T[], text?: string): T[] => {
      try {
        return parse(text ?? '');
      } catch (error) {
        throw new UsageError(`output ${output}: ${(error as Error).message}`);
      }
    };
    return {
      azure: parsed(AZURE_EXPORT_SOURCES_OUTPUT, parseAzureSourcesEnv, azure),
      gcp: parsed(GCP_BILLING_SOURCES_OUTPUT, parseGcpSourcesEnv, gcp),
    };
  }

  async archiveBucket(): Promise<string> {
    return (
      this.flags.archiveBucket ??
      this.lookup(
        STACK_OUTPUTS.archiveBucketName,
        '--archive-bucket',
        'evidence archive bucket name',
      )
    );
  }

  async ledgerTable(): Promise<string> {
    return (
      this.flags.table ?? this.lookup(STACK_OUTPUTS.ledgerTableName, '--table', 'ledger table name')
    );
  }
}

export const resolvePath = (cwd: string, path: string): string => resolve(cwd, path);
