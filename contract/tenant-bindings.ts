/**
 * Tenant-bound publishing (docs/threat-model.md): the `tenants` configuration gives each tenant its own
 * cost-events topic, and the tenant of a message is the one its topic is bound to. The CDK app validates
 * the list at synth and tells the cost consumer the bindings as JSON (TENANT_BINDINGS); the consumer
 * parses them back with `parseTenantBindingsJson`.
 */
import { isSlug, slugProblem } from './slugs';

export interface TenantConfig {
  /** Tenant slug, exactly as the ledger keys hold it (`contract/slugs.ts`). */
  readonly id: string;
  /** Principals allowed to publish to this tenant's topic: 12-digit account IDs or IAM role ARNs. */
  readonly publishers: readonly string[];
  /** The sources this tenant's publishers may claim; absent: any. */
  readonly sources?: readonly string[];
  /** Accepted events per minute above which the tenant's ceiling alarm fires; absent: no ceiling alarm. */
  readonly maxEventsPerMinute?: number;
}

export const TENANTS_KEY = 'tenants';
/** Stands for the tenant id in `TenantBindings.topicArnPattern`. */
export const TENANT_PLACEHOLDER = '{tenant}';
/** The most events per minute a ceiling may name (far above any single queue's throughput). */
export const MAX_EVENTS_PER_MINUTE = 10_000_000;

/** What the cost consumer is told (TENANT_BINDINGS). */
export interface TenantBindings {
  /** Every tenant topic's ARN, `{tenant}` standing for the tenant id. */
  readonly topicArnPattern: string;
  /** The shared topic of trusted producers (the tenant comes from the message), when there is one. */
  readonly trustedTopicArn?: string;
  /** Tenant id → the sources its publishers may claim (no `sources`: any). */
  readonly tenants: Readonly<Record<string, { readonly sources?: readonly string[] }>>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const problem = (index: number, field: string, reason: string): Error =>
  new Error(`${TENANTS_KEY}[${index}]${field ? `.${field}` : ''} ${reason}`);

const slugList = (value: unknown, index: number, field: string, what: string): string[] => {
  if (!Array.isArray(value) || value.length === 0 || value.some((s) => typeof s !== 'string'))
    throw problem(index, field, `must be a non-empty list of ${what}`);
  return [...new Set(value as string[])];
};

const tenantAt = (
  value: unknown,
  index: number,
  checkPrincipal: (principal: string) => string | undefined,
): TenantConfig => {
  const fields = ['id', 'publishers', 'sources', 'maxEventsPerMinute'];
  if (!isRecord(value))
    throw problem(index, '', 'must be an object { id, publishers, sources?, maxEventsPerMinute? }');
  const unknown = Object.keys(value).find((key) => !fields.includes(key));
  if (unknown) throw problem(index, unknown, `is not a known field (known: ${fields.join(', ')})`);
  const { id, publishers, sources, maxEventsPerMinute } = value;
  if (!isSlug(id)) throw problem(index, 'id', slugProblem('tenant', id));
  const principals = slugList(
    publishers,
    index,
    'publishers',
    '12-digit account IDs or IAM role ARNs',
  );
  for (const principal of principals) {
    const why = checkPrincipal(principal);
    if (why) throw problem(index, 'publishers', `${JSON.stringify(principal)} ${why}`);
  }
  let allowed: string[] | undefined;
  if (sources !== undefined) {
    allowed = slugList(sources, index, 'sources', 'source slugs such as "aws"');
    const bad = allowed.find((source) => !isSlug(source));
    if (bad !== undefined) throw problem(index, 'sources', slugProblem('source', bad));
  }
  if (
    maxEventsPerMinute !== undefined &&
    (typeof maxEventsPerMinute !== 'number' ||
      !Number.isInteger(maxEventsPerMinute) ||
      maxEventsPerMinute < 1 ||
      maxEventsPerMinute > MAX_EVENTS_PER_MINUTE)
  )
    throw problem(
      index,
      'maxEventsPerMinute',
      `must be a whole number from 1 to ${MAX_EVENTS_PER_MINUTE}, got ${JSON.stringify(maxEventsPerMinute)}`,
    );
  return {
    id,
    publishers: principals,
    ...(allowed ? { sources: allowed } : {}),
    ...(maxEventsPerMinute !== undefined ? { maxEventsPerMinute: maxEventsPerMinute } : {}),
  };
};

/** Validates the `tenants` list (every entry well-formed, ids unique); errors name the entry and the fix. */
export const parseTenants = (
  value: unknown,
  checkPrincipal: (principal: string) => string | undefined,
): TenantConfig[] => {
  if (!Array.isArray(value))
    throw new Error(
      `${TENANTS_KEY} must be a list of { id, publishers, sources?, maxEventsPerMinute? }`,
    );
  const tenants = value.map((entry, index) => tenantAt(entry, index, checkPrincipal));
  tenants.forEach((tenant, index) => {
    const first = tenants.findIndex((other) => other.id === tenant.id);
    if (first !== index)
      throw problem(
        index,
        'id',
        `"${tenant.id}" is already ${TENANTS_KEY}[${first}].id: one entry per tenant`,
      );
  });
  return tenants;
};

/** The bindings the consumer is told, from the validated list. */
export const tenantBindingsOf = (
  tenants: readonly TenantConfig[],
  topicArnPattern: string,
  trustedTopicArn?: string,
): TenantBindings => ({
  topicArnPattern,
  ...(trustedTopicArn !== undefined ? { trustedTopicArn } : {}),
  tenants: Object.fromEntries(
    tenants.map((tenant) => [tenant.id, tenant.sources ? { sources: tenant.sources } : {}]),
  ),
});

/** The topic ARN of one tenant. */
export const tenantTopicArn = (
  bindings: Pick<TenantBindings, 'topicArnPattern'>,
  tenant: string,
): string => bindings.topicArnPattern.split(TENANT_PLACEHOLDER).join(tenant);

const stringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** TENANT_BINDINGS text → bindings; unset → undefined (no tenant topics: every publisher is trusted). */
export const parseTenantBindingsJson = (
  text: string | undefined,
  variable: string,
  /** The tenants when the text names none (they come from the function config, contract/function-config.ts). */
  configuredTenants?: unknown,
): TenantBindings | undefined => {
  if (text === undefined || text.trim() === '') return undefined;
  const bad = (why: string) => new Error(`Environment variable ${variable} ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad('is not JSON');
  }
  if (isRecord(value) && value.tenants === undefined && configuredTenants !== undefined)
    value = { ...value, tenants: configuredTenants };
  if (!isRecord(value) || typeof value.topicArnPattern !== 'string' || !isRecord(value.tenants))
    throw bad(
      'must be {"topicArnPattern", "trustedTopicArn"?, "tenants"?: {…}}, the tenants here or in the function config',
    );
  if (!value.topicArnPattern.includes(TENANT_PLACEHOLDER))
    throw bad(`topicArnPattern must contain ${TENANT_PLACEHOLDER}`);
  if (value.trustedTopicArn !== undefined && typeof value.trustedTopicArn !== 'string')
    throw bad('trustedTopicArn must be a topic ARN');
  const tenants: Record<string, { sources?: string[] }> = {};
  for (const [tenant, binding] of Object.entries(value.tenants)) {
    if (!isSlug(tenant) || !isRecord(binding))
      throw bad(`names tenant ${JSON.stringify(tenant)} badly`);
    if (binding.sources !== undefined && !stringList(binding.sources))
      throw bad(`tenants.${tenant}.sources must be a list of source slugs`);
    tenants[tenant] = binding.sources ? { sources: binding.sources } : {};
  }
  return {
    topicArnPattern: value.topicArnPattern,
    ...(typeof value.trustedTopicArn === 'string'
      ? { trustedTopicArn: value.trustedTopicArn }
      : {}),
    tenants,
  };
};
