/** Canonical cost events for tests (camelCase, lambda/core/formats/cost-canonical.ts). */
export interface CostEventInput {
  tenant?: string;
  source?: string;
  accountId?: string;
  eventId?: string;
  lineItemId?: string;
  version?: number;
  chargePeriodStart?: string;
  skuId?: string;
  amount: string | number;
  currency?: string;
}

export const costEvent = (input: CostEventInput): Record<string, unknown> => ({
  tenant: input.tenant ?? 'acme',
  source: input.source ?? 'aws',
  accountId: input.accountId ?? '200000000011',
  chargePeriodStart: input.chargePeriodStart ?? '2026-11-03T14:00:00Z',
  chargeCategory: 'usage',
  skuId: input.skuId ?? 'BoxUsage:m6i.large',
  amount: input.amount,
  currency: input.currency ?? 'USD',
  ...(input.eventId ? { eventId: input.eventId } : {}),
  ...(input.lineItemId ? { lineItemId: input.lineItemId, version: input.version ?? 1 } : {}),
});
