/**
 * Which stack holds a tenant's per-tenant resources (its cost-events topic, subscription, rate alarms,
 * dashboard rows). The stateless stack holds none of them, so it does not grow with tenants; each
 * tenant stack holds the tenants whose id hashes to it. The hash depends on the tenant id only: adding
 * or removing a tenant never moves another tenant to a different stack (a move would delete its topic
 * in one stack while creating the same name in another).
 */
/**
 * Stacks the tenants are spread over. 1,000 tenants put ~31 in each (the fullest ~45, ~5 resources
 * each: far below CloudFormation's 500 per stack); never change it on a deployed stage.
 */
export const TENANT_STACK_COUNT = 32;

/** FNV-1a (32 bit) of the tenant id: stable across releases and platforms. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

/** 0 .. TENANT_STACK_COUNT-1. */
export const tenantStackIndex = (tenant: string): number => fnv1a(tenant) % TENANT_STACK_COUNT;

/** The stateless stack's name + `-tenants-07`. */
export const tenantStackName = (statelessStackName: string, index: number): string =>
  `${statelessStackName}-tenants-${String(index).padStart(2, '0')}`;
