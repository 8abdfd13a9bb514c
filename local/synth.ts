/**
 * Synthesizes the CDK app in-process, exactly as bin/billing-dedup.ts builds it, into a temporary
 * cloud assembly, and returns the CloudFormation templates of its stacks. Offline; asset bundling is
 * skipped (`aws:cdk:bundling-stacks` = []): the local runtime runs the handler source in-process, so
 * the esbuild bundles are not needed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { ConfigError } from '../lib/config';
import { InvariantError } from '../lib/invariants';

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
}

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
    const cdkJson = JSON.parse(readFileSync(path.resolve(__dirname, '..', 'cdk.json'), 'utf8')) as {
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
    return assembly.stacks.map((stack) => ({
      stackName: stack.stackName,
      template: JSON.parse(
        readFileSync(path.join(assembly.directory, stack.templateFile), 'utf8'),
      ) as CfnTemplate,
    }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
