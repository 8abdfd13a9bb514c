/**
 * Which tenants the local stack binds to a topic of their own (docs/threat-model.md). Without
 * `-c tenants=…` the local run configures one topic for each sample tenant and each tenant its export
 * lines name (export prefixes and tenant topics bind the same tenant ids), published to by the local
 * account, and keeps the trusted shared topic for the rest of the sample.
 */
import { TENANTS_KEY } from '../../contract/tenant-bindings';
import { LOCAL_ACCOUNT_ID } from '../emulators/local-aws';
import { TENANTS } from '../scenarios/tenants';

export const TRUSTED_COST_TOPIC_KEY = 'trustedCostTopic';

export const localTenantsContext = (
  exportTenants: readonly string[],
  context: Record<string, unknown> = {},
): Record<string, unknown> => {
  if (context[TENANTS_KEY] !== undefined) return context;
  const ids = [...new Set([...TENANTS.map((spec) => spec.tenant), ...exportTenants])].sort();
  return {
    ...context,
    [TENANTS_KEY]: JSON.stringify(ids.map((id) => ({ id, publishers: [LOCAL_ACCOUNT_ID] }))),
    [TRUSTED_COST_TOPIC_KEY]: context[TRUSTED_COST_TOPIC_KEY] ?? 'true',
  };
};
