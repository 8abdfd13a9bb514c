import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BillingDedupApp, buildApp } from '../../lib/app';
import { checkDeployLimits } from '../../lib/deploy-limits';

export interface SynthOptions {
  /** Run esbuild (default false: assertions do not need the bundle, and stay fast). */
  readonly bundle?: boolean;
  /** Apply cdk-nag (default false). */
  readonly nag?: boolean;
}

export interface Synthesized extends BillingDedupApp {
  readonly app: App;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
  /** Every tenant stack's resources in one template (outputs left out: each stack has its own). */
  readonly tenantsTemplate: Template;
}

/** Build the whole app the way bin/billing-dedup.ts does, with extra context. */
export function synth(
  context: Record<string, unknown> = {},
  options: SynthOptions = {},
): Synthesized {
  const app = new App({
    context: { ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...context },
  });
  const built = buildApp(app, { nag: options.nag ?? false });
  // Every configuration a test synthesizes must also deploy (what bin/billing-dedup.ts checks).
  checkDeployLimits(app.synth());
  return {
    app,
    ...built,
    statefulTemplate: Template.fromStack(built.stateful),
    statelessTemplate: Template.fromStack(built.stateless),
    tenantsTemplate: Template.fromJSON({
      Resources: Object.assign(
        {},
        ...built.tenantStacks.map((stack) => Template.fromStack(stack).toJSON().Resources),
      ),
    }),
  };
}

const HASH = /[0-9a-f]{64}/g;

/** Template JSON with every asset / bundle hash replaced, so snapshots survive unrelated lambda edits. */
export function maskedTemplate(stack: Stack): unknown {
  const json = JSON.stringify(Template.fromStack(stack).toJSON());
  return JSON.parse(json.replace(HASH, '<ASSET_HASH>'));
}

type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, unknown>; [k: string]: unknown }
>;

export function resourcesOfType(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** The single resource of `type` whose properties contain `needle` (throws otherwise). */
export function onlyResource(template: Template, type: string, props: Record<string, unknown>) {
  const found = template.findResources(type, { Properties: props }) as Resources;
  const ids = Object.keys(found);
  if (ids.length !== 1)
    throw new Error(`expected exactly one ${type} matching, found ${ids.length}`);
  return { id: ids[0], resource: found[ids[0]] };
}

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

export function actionsOf(s: Statement): string[] {
  return Array.isArray(s.Action) ? s.Action : [s.Action];
}

export function statementsOf(
  resource: { Properties?: Record<string, unknown> },
  key = 'PolicyDocument',
): Statement[] {
  const doc = resource.Properties?.[key] as { Statement: Statement[] };
  return doc.Statement;
}

/** A CloudFormation value referencing an exported output of the stateful stack whose id contains `fragment`. */
export function importOf(value: unknown): string | undefined {
  if (value && typeof value === 'object' && 'Fn::ImportValue' in value) {
    return String((value as Record<string, unknown>)['Fn::ImportValue']);
  }
  return undefined;
}

export function queueByName(template: Template, name: string) {
  return onlyResource(template, 'AWS::SQS::Queue', { QueueName: name });
}

export function fnByName(template: Template, name: string) {
  return onlyResource(template, 'AWS::Lambda::Function', { FunctionName: name });
}

/** The DLQ named in the RedrivePolicy of the source queue `queueName` (DLQs have generated names). */
export function dlqOf(template: Template, queueName: string) {
  const target = (
    queueByName(template, queueName).resource.Properties?.RedrivePolicy as {
      deadLetterTargetArn: { 'Fn::GetAtt': [string, string] };
    }
  ).deadLetterTargetArn['Fn::GetAtt'][0];
  return { id: target, resource: resourcesOfType(template, 'AWS::SQS::Queue')[target] };
}
