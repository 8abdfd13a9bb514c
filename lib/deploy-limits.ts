/**
 * What CloudFormation, IAM, SQS, SNS, S3, KMS and Lambda refuse at deploy time although `cdk synth`
 * accepts it, checked on the synthesized templates. bin/billing-dedup.ts runs it after every synth,
 * so a configuration that synthesizes also deploys; each problem names the limit, the number and the fix.
 */
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { InvariantError } from './invariants';

/** Service limits (bytes or characters), as AWS documents them. */
export const DEPLOY_LIMITS = {
  /** CloudFormation: template body uploaded to S3 (CDK uploads every template). */
  templateBytes: 1_000_000,
  resourcesPerStack: 500,
  outputsPerStack: 200,
  /** SQS: a queue's policy. */
  sqsPolicyBytes: 8_192,
  /** SNS: a topic's access policy. */
  snsPolicyBytes: 30_720,
  /** S3: a bucket policy. */
  s3PolicyBytes: 20_480,
  /** KMS: a key policy. */
  kmsPolicyBytes: 32_768,
  /** IAM: every inline policy of one role together, whitespace not counted. */
  roleInlinePolicyChars: 10_240,
  /** Lambda: the environment variables of a function, names and values together. */
  lambdaEnvironmentBytes: 4_096,
} as const;

type Template = {
  Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, unknown>;
};

/**
 * The longest value each pseudo parameter can take; any other reference (Ref, GetAtt, ImportValue…)
 * counts as 100 characters, longer than any ARN or URL of this app's resources.
 */
const PSEUDO_PARAMETER_LENGTHS: Record<string, number> = {
  'AWS::AccountId': 12,
  'AWS::Region': 14,
  'AWS::Partition': 10,
  'AWS::URLSuffix': 16,
  'AWS::StackName': 128,
  'AWS::StackId': 160,
};
const REFERENCE_LENGTH = 100;

/** A value as CloudFormation will deploy it, each reference replaced by its longest rendering. */
export function rendered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rendered);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [fn, arg] = entries[0];
    if (fn === 'Ref')
      return 'x'.repeat(PSEUDO_PARAMETER_LENGTHS[arg as string] ?? REFERENCE_LENGTH);
    if (fn === 'Fn::Join') {
      const [separator, parts] = arg as [string, unknown[]];
      return (rendered(parts) as unknown[]).map(String).join(separator);
    }
    if (fn === 'Fn::Sub' && typeof arg === 'string')
      return arg.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
        'x'.repeat(PSEUDO_PARAMETER_LENGTHS[name] ?? REFERENCE_LENGTH),
      );
    if (fn.startsWith('Fn::')) return 'x'.repeat(REFERENCE_LENGTH);
  }
  return Object.fromEntries(entries.map(([key, inner]) => [key, rendered(inner)]));
}

const renderedLength = (document: unknown): number =>
  Buffer.byteLength(JSON.stringify(rendered(document)), 'utf8');

/** The bytes of a template as CDK writes it (what CloudFormation receives). */
export const templateBytes = (template: unknown): number =>
  Buffer.byteLength(JSON.stringify(template, undefined, 1), 'utf8');

interface ResourcePolicyKind {
  readonly property: string;
  readonly limit: number;
  readonly service: string;
  readonly fix: string;
}

const RESOURCE_POLICIES: Record<string, ResourcePolicyKind> = {
  'AWS::SQS::QueuePolicy': {
    property: 'PolicyDocument',
    limit: DEPLOY_LIMITS.sqsPolicyBytes,
    service: 'SQS queue policy',
    fix: 'admit senders by an ArnLike name pattern instead of one ARN each',
  },
  'AWS::SNS::TopicPolicy': {
    property: 'PolicyDocument',
    limit: DEPLOY_LIMITS.snsPolicyBytes,
    service: 'SNS topic policy',
    fix: 'admit publishers by an ArnLike name pattern or fewer principals (tenants[].publishers, costEventsPublishers)',
  },
  'AWS::S3::BucketPolicy': {
    property: 'PolicyDocument',
    limit: DEPLOY_LIMITS.s3PolicyBytes,
    service: 'S3 bucket policy',
    fix: 'grant by key prefix pattern instead of one statement per prefix',
  },
  'AWS::KMS::Key': {
    property: 'KeyPolicy',
    limit: DEPLOY_LIMITS.kmsPolicyBytes,
    service: 'KMS key policy',
    fix: 'name fewer distinct cross-account producers (costEventsPublishers, budgetAlertsPublishers, tenants[].publishers): use account IDs rather than one role ARN each',
  },
};

/** Every problem of one stack's template; empty when it deploys within every limit above. */
export function deployLimitProblems(stackName: string, template: Template): string[] {
  const resources = template.Resources ?? {};
  const problems: string[] = [];
  const resourceCount = Object.keys(resources).length;
  if (resourceCount > DEPLOY_LIMITS.resourcesPerStack)
    problems.push(
      `${stackName}: ${resourceCount} resources, over CloudFormation's ${DEPLOY_LIMITS.resourcesPerStack} per stack. ` +
        'Fix: fewer tenants in this stage (each tenant adds a topic, its policy, a subscription and its alarms): ' +
        'split the tenants across stages',
    );
  const outputCount = Object.keys(template.Outputs ?? {}).length;
  if (outputCount > DEPLOY_LIMITS.outputsPerStack)
    problems.push(
      `${stackName}: ${outputCount} outputs, over CloudFormation's ${DEPLOY_LIMITS.outputsPerStack} per stack. Fix: output a JSON map instead of one output per item`,
    );
  const bytes = templateBytes(template);
  if (bytes > DEPLOY_LIMITS.templateBytes)
    problems.push(
      `${stackName}: template of ${bytes} bytes, over CloudFormation's ${DEPLOY_LIMITS.templateBytes}. ` +
        'Fix: fewer tenants in this stage (dashboard rows and alarms grow per tenant): split the tenants across stages',
    );

  for (const [id, resource] of Object.entries(resources)) {
    const kind = RESOURCE_POLICIES[resource.Type];
    const document = kind && resource.Properties?.[kind.property];
    if (document) {
      const size = renderedLength(document);
      if (size > kind.limit)
        problems.push(
          `${stackName}/${id}: ${kind.service} of about ${size} bytes, over the ${kind.limit} bytes it accepts. Fix: ${kind.fix}`,
        );
    }
    if (resource.Type === 'AWS::IAM::ManagedPolicy' && id.includes('OverflowPolicy'))
      problems.push(
        `${stackName}/${id}: CDK moved part of a role's policy into a managed policy (the role's inline policy ` +
          'would be over IAM’s limit by CDK’s count). Fix: grant by a pattern that does not grow per tenant or prefix',
      );
    if (resource.Type === 'AWS::Lambda::Function') {
      const variables = (resource.Properties?.Environment as { Variables?: unknown } | undefined)
        ?.Variables as Record<string, unknown> | undefined;
      const size = Object.entries(variables ?? {}).reduce(
        (sum, [name, value]) =>
          sum + Buffer.byteLength(name) + Buffer.byteLength(String(rendered(value))),
        0,
      );
      if (size > DEPLOY_LIMITS.lambdaEnvironmentBytes)
        problems.push(
          `${stackName}/${id}: environment of about ${size} bytes, over Lambda's ${DEPLOY_LIMITS.lambdaEnvironmentBytes}. ` +
            'Fix: shorter or fewer tenants / exportSources / azureExports / gcpBillingExports in this stage',
        );
    }
  }

  for (const [role, size] of inlinePolicySizes(resources))
    if (size > DEPLOY_LIMITS.roleInlinePolicyChars)
      problems.push(
        `${stackName}/${role}: inline policies of about ${size} characters, over IAM's ${DEPLOY_LIMITS.roleInlinePolicyChars} per role. ` +
          'Fix: grant by a pattern that does not grow per tenant or prefix',
      );
  return problems;
}

/** Role logical id → characters of all its inline policies (AWS::IAM::Policy resources and the role's own). */
export function inlinePolicySizes(
  resources: NonNullable<Template['Resources']>,
): Map<string, number> {
  const sizes = new Map<string, number>();
  const add = (role: string, document: unknown) =>
    sizes.set(role, (sizes.get(role) ?? 0) + renderedLength(document));
  for (const [id, resource] of Object.entries(resources)) {
    const props = resource.Properties ?? {};
    if (resource.Type === 'AWS::IAM::Role')
      for (const policy of (props.Policies as { PolicyDocument: unknown }[] | undefined) ?? [])
        add(id, policy.PolicyDocument);
    if (resource.Type === 'AWS::IAM::Policy')
      for (const role of (props.Roles as unknown[] | undefined) ?? []) {
        const ref = (role as { Ref?: string }).Ref;
        if (ref) add(ref, props.PolicyDocument);
      }
  }
  return sizes;
}

/** Throws an InvariantError listing every problem of every stack of the assembly. */
export function checkDeployLimits(assembly: CloudAssembly): void {
  const problems = assembly.stacks.flatMap((stack) =>
    deployLimitProblems(stack.stackName, stack.template as Template),
  );
  if (problems.length > 0)
    throw new InvariantError(
      'deploy-limits',
      `the synthesized templates would be refused at deploy:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
}
