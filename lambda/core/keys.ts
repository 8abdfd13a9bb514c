import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { isSlug } from '../../contract/slugs';
import type { AlertEvent, CostEvent } from './events';

/**
 * The one place that computes hashes and identities: content hash, charge identity, effect digest,
 * alert key, FIFO ids. How they become table keys is the ledger adapter's (`adapters/table-layout.ts`).
 * Normalized events carry no transport or export metadata, so the content hash is the RFC 8785 form of
 * the event minus `version` (a restatement counter, not content).
 */

export const sha256Hex = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');
export const shortHash = (hash: string): string => hash.slice(0, 12);

export const canonicalCostForm = (event: CostEvent): string => {
  const { version: _version, ...content } = event;
  return canonicalize(content);
};

export const costContentHash = (event: CostEvent): string => sha256Hex(canonicalCostForm(event));

/**
 * Identities are scoped to the tenant, account, billing period and source, so the same eventId in two
 * accounts is two charges.
 */
export type IdentityKind = 'event' | 'line-item' | 'content';

/** Which rule makes two charges "the same charge" (in order of precedence). */
export interface CostIdentity {
  kind: IdentityKind;
  /** eventId, lineItemId or the content hash. */
  id: string;
  /** Restatement version (line-item identity only). */
  version: number;
  /** Digest of (scope, source, kind, id): the stable name of the charge. */
  digest: string;
}

/**
 * The tenant, account and billing period an identity is scoped to, as hashed into its digest. A hash
 * input, not a table key: every stored charge and claim key derives from it, so it never changes.
 */
const identityScope = (event: CostEvent): string =>
  `TENANT#${event.tenant}#ACCOUNT#${event.accountId}#PERIOD#${billingPeriodOf(event)}`;

export const costIdentity = (event: CostEvent, contentHash: string): CostIdentity => {
  const [kind, id]: [IdentityKind, string] = event.eventId
    ? ['event', event.eventId]
    : event.lineItemId
      ? ['line-item', event.lineItemId]
      : ['content', contentHash];
  const version = kind === 'line-item' ? (event.version ?? 1) : 0;
  const digest = sha256Hex(
    canonicalize({ partition: identityScope(event), source: event.source, kind, id }),
  );
  return { kind, id, version, digest };
};

/** Billing period `yyyy-mm` of a charge: FOCUS BillingPeriodStart, else the charge's start. */
export const billingPeriodOf = (event: CostEvent): string =>
  (event.billingPeriodStart ?? event.chargePeriodStart).slice(0, 7);

/**
 * SQS/SNS FIFO ids: 1–128 characters, alphanumerics and ASCII punctuation.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html
 */
const FIFO_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;
export const isValidFifoId = (id: string): boolean => FIFO_ID.test(id);

/** Marks a hashed part; a readable part never starts with it, so the two forms cannot meet. */
const HASHED = '=';
const hashedPart = (text: string): string =>
  HASHED + createHash('sha256').update(text, 'utf8').digest('base64url');

/**
 * The FIFO message group of a tenant's account: `tenant#account` when that is a valid group id,
 * otherwise the part that is not (a free-form account id, with spaces or non-ASCII characters, or too
 * long) becomes `=` + its SHA-256 in base64url. At most 64 + 1 + 44 characters; distinct inputs give
 * distinct ids (the tenant part never holds `#`, a readable part never starts with `=`).
 */
export const fifoGroupId = (tenant: string, accountId: string): string => {
  const tenantPart = isSlug(tenant) ? tenant : hashedPart(tenant);
  const readable = `${tenantPart}#${accountId}`;
  return isValidFifoId(readable) && !accountId.startsWith(HASHED)
    ? readable
    : `${tenantPart}#${hashedPart(accountId)}`;
};

/**
 * The FIFO deduplication id of a cost event: everything that makes a delivery distinct to the ledger —
 * its identity (ledger partition, source, kind, id), its version and its content. A line item restated
 * back to earlier content (v1 = 10, v2 = 20, v3 = 10) therefore is not dropped by the broker as a copy
 * of v1. 64 hex characters.
 */
export const fifoDeduplicationId = (event: CostEvent): string => {
  const contentHash = costContentHash(event);
  const identity = costIdentity(event, contentHash);
  return sha256Hex(
    canonicalize({ identity: identity.digest, version: identity.version, content: contentHash }),
  );
};

/** What a publisher of the FIFO cost topic sets: one group per tenant and account, the delivery's dedup id. */
export const fifoPublishIds = (
  event: CostEvent,
): { messageGroupId: string; messageDeduplicationId: string } => ({
  messageGroupId: fifoGroupId(event.tenant, event.accountId),
  messageDeduplicationId: fifoDeduplicationId(event),
});

/**
 * Alert identity: budget alerts by tenant, source, account, budget, period, actual/forecasted
 * and threshold; anomalies by tenant, account and anomaly id. The spend amount is not part of it: a GCP
 * budget notification re-sent with a higher cost is the same alert.
 */
export const alertKey = (alert: AlertEvent): string => {
  const identity =
    alert.kind === 'anomaly'
      ? {
          kind: alert.kind,
          tenant: alert.tenant,
          accountId: alert.accountId,
          anomalyId: alert.anomalyId,
        }
      : {
          kind: alert.kind,
          tenant: alert.tenant,
          source: alert.source,
          accountId: alert.accountId,
          budget: alert.budgetId ?? alert.budgetName,
          period: alert.period,
          thresholdType: alert.thresholdType,
          threshold: alert.threshold,
        };
  return sha256Hex(canonicalize(identity));
};
