/**
 * Which topic delivered a cost message decides whose it is (docs/threat-model.md). Without tenant
 * bindings every message is trusted (tenant from the message). With them, the queue is subscribed
 * without raw delivery, so each record is an SNS envelope whose `TopicArn` SNS wrote: a tenant's topic
 * binds the message to that tenant, the shared trusted topic leaves the tenant to the message, and any
 * other origin is refused.
 */
import { tenantTopicArn, type TenantBindings } from '../../contract/tenant-bindings';
import { fail } from './errors';
import type { CostEvent, DecodedRecord } from './events';
import { bindTenant, checkBoundSource } from './formats/scope';

export type Ingress =
  { kind: 'trusted' } | { kind: 'bound'; tenant: string; sources?: readonly string[] };

const TRUSTED: Ingress = { kind: 'trusted' };

/** Whose a decoded cost message is, and the event as that allows it (what the cost parser asks). */
export interface TenantIngress {
  ingressOf(decoded: DecodedRecord): Ingress;
  bind(event: CostEvent, decoded: DecodedRecord, ingress: Ingress): CostEvent;
}

export class TenantRouter implements TenantIngress {
  private readonly byTopic = new Map<string, Ingress>();

  constructor(private readonly bindings?: TenantBindings) {
    for (const [tenant, binding] of Object.entries(bindings?.tenants ?? {}))
      this.byTopic.set(tenantTopicArn(bindings as TenantBindings, tenant), {
        kind: 'bound',
        tenant,
        ...(binding.sources ? { sources: binding.sources } : {}),
      });
    if (bindings?.trustedTopicArn) this.byTopic.set(bindings.trustedTopicArn, TRUSTED);
  }

  /** Tenants with a topic of their own. */
  get tenants(): readonly string[] {
    return Object.keys(this.bindings?.tenants ?? {});
  }

  ingressOf(decoded: DecodedRecord): Ingress {
    if (!this.bindings) return TRUSTED;
    const ingress = decoded.topicArn === undefined ? undefined : this.byTopic.get(decoded.topicArn);
    if (ingress) return ingress;
    return fail(
      'tenant-mismatch',
      'TopicArn',
      decoded.topicArn === undefined
        ? "the message names no topic; with tenant topics configured only their deliveries and the trusted topic's are accepted"
        : `${decoded.topicArn} is neither a tenant's topic nor the trusted topic of this stage`,
    );
  }

  /** `event` as its ingress allows it: a bound message takes its topic's tenant and must keep to its sources. */
  bind(event: CostEvent, decoded: DecodedRecord, ingress: Ingress): CostEvent {
    if (ingress.kind === 'trusted') return event;
    const tenant = bindTenant(ingress.tenant, decoded.message, decoded.attributes);
    checkBoundSource(tenant, event.source, ingress.sources);
    return event.tenant === tenant ? event : { ...event, tenant };
  }
}

/**
 * A rebuild's binding (cli/operations/archive-replay.ts): every message read from a tenant's archive
 * partition is that tenant's, as the live consumer bound it — the archive files a record under the tenant
 * the consumer attributed it to, after its own binding. A message that names another tenant is still
 * refused (`tenant-mismatch`), as a message on that tenant's topic would be.
 */
export class ArchivedTenant implements TenantIngress {
  constructor(private readonly tenant: string) {}

  ingressOf(): Ingress {
    return { kind: 'bound', tenant: this.tenant };
  }

  bind(event: CostEvent, decoded: DecodedRecord): CostEvent {
    const tenant = bindTenant(this.tenant, decoded.message, decoded.attributes);
    return event.tenant === tenant ? event : { ...event, tenant };
  }
}
