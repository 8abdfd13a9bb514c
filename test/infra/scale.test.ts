/**
 * "Any configuration that synthesizes must deploy", at the caps: 1,000 tenants and 200 export prefixes
 * synthesize into stacks that are each within every limit lib/deploy-limits.ts checks, and the
 * configuration refuses one tenant / prefix more.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '../../lib/app';
import { contextFrom, resolveConfig } from '../../lib/config';
import { MAX_EXPORT_SOURCES, MAX_TENANTS } from '../../lib/config-rules';
import {
  DEPLOY_LIMITS,
  deployLimitProblems,
  inlinePolicySizes,
  rendered,
  templateBytes,
} from '../../lib/deploy-limits';
import { TENANT_STACK_COUNT } from '../../contract/tenant-stacks';

const tenants = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `tenant-${String(i).padStart(4, '0')}`,
    publishers: [`arn:aws:iam::${String(100000000000 + (i % 50))}:role/publisher-${i}`],
    sources: ['aws', 'azure'],
    maxEventsPerMinute: 1000,
  }));
const sources = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    tenant: `tenant-${String(i).padStart(4, '0')}`,
    prefix: `exports/tenant-${String(i).padStart(4, '0')}/focus/`,
    precedence: ['focus-main', 'legacy-cur'],
  }));

type Resource = { Type: string; Properties?: Record<string, unknown> };
type Template = { Resources: Record<string, Resource> };

const policyBytes = (document: unknown) =>
  Buffer.byteLength(JSON.stringify(rendered(document)), 'utf8');

const POLICY_PROPERTY: Record<string, string> = {
  'AWS::SQS::QueuePolicy': 'PolicyDocument',
  'AWS::SNS::TopicPolicy': 'PolicyDocument',
  'AWS::S3::BucketPolicy': 'PolicyDocument',
  'AWS::KMS::Key': 'KeyPolicy',
};

describe(`${MAX_TENANTS} tenants and ${MAX_EXPORT_SOURCES} export prefixes`, () => {
  const started = Date.now();
  const app = new App({
    context: {
      'aws:cdk:bundling-stacks': [],
      tenants: tenants(MAX_TENANTS),
      exportSources: sources(MAX_EXPORT_SOURCES),
    },
  });
  const built = buildApp(app, { nag: false });
  const assembly = app.synth();
  const synthSeconds = (Date.now() - started) / 1000;
  const stacks = assembly.stacks.map((s) => ({
    name: s.stackName,
    template: s.template as Template,
  }));

  it('every stack is within every deploy limit', () => {
    for (const { name, template } of stacks)
      expect(deployLimitProblems(name, template)).toEqual([]);
  });

  it('spreads the tenants over tenant stacks; the stateless stack does not grow with them', () => {
    expect(built.tenantStacks.length).toBeGreaterThan(1);
    expect(built.tenantStacks.length).toBeLessThanOrEqual(TENANT_STACK_COUNT);
    const stateless = stacks.find((s) => s.name === built.stateless.stackName) as {
      template: Template;
    };
    const small = new App({ context: { 'aws:cdk:bundling-stacks': [], tenants: tenants(2) } });
    const smallStateless = buildApp(small, { nag: false }).stateless;
    const smallCount = Object.keys(
      (small.synth().getStackByName(smallStateless.stackName).template as Template).Resources,
    ).length;
    expect(Object.keys(stateless.template.Resources).length).toBe(smallCount);
  });

  it('reports its figures', () => {
    const largest: Record<string, number> = {};
    let largestRole = 0;
    let largestEnvironment = 0;
    const perStack: string[] = [];
    for (const { name, template } of stacks) {
      for (const resource of Object.values(template.Resources)) {
        const property = POLICY_PROPERTY[resource.Type];
        if (property && resource.Properties?.[property])
          largest[resource.Type] = Math.max(
            largest[resource.Type] ?? 0,
            policyBytes(resource.Properties[property]),
          );
        if (resource.Type === 'AWS::Lambda::Function') {
          const variables = (resource.Properties?.Environment as { Variables?: object })
            ?.Variables as Record<string, unknown>;
          const size = Object.entries(variables ?? {}).reduce(
            (sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(String(rendered(v))),
            0,
          );
          largestEnvironment = Math.max(largestEnvironment, size);
        }
      }
      for (const size of inlinePolicySizes(template.Resources).values())
        largestRole = Math.max(largestRole, size);
      perStack.push(
        `${name}: ${Object.keys(template.Resources).length} resources, ${templateBytes(template)} bytes`,
      );
    }
    const report = [
      `synth: ${synthSeconds.toFixed(1)} s, ${stacks.length} stacks`,
      ...perStack,
      ...Object.entries(largest).map(([type, size]) => `largest ${type}: ${size} bytes`),
      `largest role inline policies: ${largestRole} chars`,
      `largest function environment: ${largestEnvironment} bytes`,
    ].join('\n');
    console.log(report);
    expect(largestEnvironment).toBeLessThan(DEPLOY_LIMITS.lambdaEnvironmentBytes / 2);
  });
});

describe('the caps', () => {
  it(`refuses ${MAX_TENANTS + 1} tenants and ${MAX_EXPORT_SOURCES + 1} prefixes, naming the fix`, () => {
    expect(() => resolveConfig(contextFrom({ tenants: tenants(MAX_TENANTS + 1) }))).toThrow(
      /tenants: 1001 tenants, over the 1000 a stage takes; split the tenants across stages/,
    );
    expect(() =>
      resolveConfig(
        contextFrom({
          tenants: tenants(MAX_EXPORT_SOURCES + 1),
          exportSources: sources(MAX_EXPORT_SOURCES + 1),
        }),
      ),
    ).toThrow(/exportSources: 201 prefixes, over the 200 a stage takes/);
  });
});
