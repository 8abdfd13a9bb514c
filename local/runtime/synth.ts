/**
 * Synthesizes the CDK app in-process, exactly as bin/billing-dedup.ts builds it, into a temporary
 * cloud assembly, and returns the CloudFormation templates of its stacks. Offline; asset bundling is
 * skipped (`aws:cdk:bundling-stacks` = []): the local runtime runs the handler source in-process, so
 * the esbuild bundles are not needed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { FUNCTION_CONFIG_ENV } from '../../contract/function-config';
import { ConsumerFunction } from '../../lib/constructs/consumer-function';
import { buildApp } from '../../lib/app';
import { ConfigError } from '../../lib/config';
import { InvariantError } from '../../lib/invariants';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown }; Description?: string }>;
  Parameters?: Record<string, { Default?: unknown }>;
}

export interface SynthesizedStack {
  stackName: string;
  template: CfnTemplate;
  /**
   * Function logical id → the configuration bundled with its code (contract/function-config.ts). The
   * local run does not bundle: it hands the same JSON to the handler as FUNCTION_CONFIG.
   */
  functionConfigs?: Record<string, Record<string, string>>;
}

/** Each function's bundled configuration, as the extra environment the local run gives its handler. */
const functionConfigsOf = (app: App): Map<string, Record<string, Record<string, string>>> => {
  const byStack = new Map<string, Record<string, Record<string, string>>>();
  for (const node of app.node.findAll()) {
    if (!(node instanceof ConsumerFunction) || node.bundledConfig === undefined) continue;
    const stack = Stack.of(node);
    const logicalId = stack.resolve(
      stack.getLogicalId(node.fn.node.defaultChild as CfnElement),
    ) as string;
    const configs = byStack.get(stack.stackName) ?? {};
    configs[logicalId] = { [FUNCTION_CONFIG_ENV]: node.bundledConfig };
    byStack.set(stack.stackName, configs);
  }
  return byStack;
};

/** Configuration the app refused (ConfigError / InvariantError): a usage error of the local run. */
export class LocalConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalConfigError';
  }
}

/** cdk.json "context", so the local run sees the same configuration as `cdk synth`. */
const projectContext = (): Record<string, unknown> => {
  try {
    const cdkJson = JSON.parse(
      readFileSync(path.resolve(__dirname, '..', '..', 'cdk.json'), 'utf8'),
    ) as {
      context?: Record<string, unknown>;
    };
    return cdkJson.context ?? {};
  } catch {
    return {};
  }
};

export const synthesize = (context: Record<string, unknown> = {}): SynthesizedStack[] => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-local-synth-'));
  try {
    const app = new App({
      outdir,
      context: { ...projectContext(), ...context, 'aws:cdk:bundling-stacks': [] },
    });
    try {
      buildApp(app, { nag: false });
    } catch (error) {
      if (error instanceof ConfigError || error instanceof InvariantError)
        throw new LocalConfigError(error.message);
      throw error;
    }
    const assembly = app.synth();
    const configs = functionConfigsOf(app);
    return assembly.stacks.map((stack) => ({
      stackName: stack.stackName,
      functionConfigs: configs.get(stack.stackName) ?? {},
      template: JSON.parse(
        readFileSync(path.join(assembly.directory, stack.templateFile), 'utf8'),
      ) as CfnTemplate,
    }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
