/**
 * The benchmark workload: a deterministic (seeded) sequence of SQS deliveries of canonical cost events,
 * with duplicate deliveries, restatements and poison, and the truth the ledger must end up holding,
 * computed here with big.js from what was generated — never from the code under test.
 *
 * Every ledger effect a charge can have (applied at version v: +a_v; restated from u to v: a_v − a_u) is
 * a distinct decimal within its ledger cell (partition + currency), so a journal of committed total
 * updates can be attributed to charges exactly (see ./verify.ts).
 */
import Big from 'big.js';
import { decodeRecord } from '../../lambda/core/envelope';
import { parseCostEvent } from '../../lambda/core/formats';
import { costContentHash, fifoGroupId } from '../../lambda/core/keys';
import { mulberry32 } from '../../local/scenarios/random';

export interface WorkloadOptions {
  events: number;
  seed: number;
  duplicateShare: number;
  restatementShare: number;
  poisonShare: number;
  tenants: number;
  accountsPerTenant: number;
  /** Every charge into one tenant, account, month and currency (tenants and accounts are ignored). */
  hotAccount?: boolean;
}

export const DEFAULT_WORKLOAD: Omit<WorkloadOptions, 'events'> = {
  seed: 20261103,
  duplicateShare: 0.3,
  restatementShare: 0.1,
  poisonShare: 0.01,
  tenants: 6,
  accountsPerTenant: 8,
};

/** The hot-account workload: the default mix of deliveries, all of them on one ledger cell. */
export const HOT_WORKLOAD: Omit<WorkloadOptions, 'events'> = {
  ...DEFAULT_WORKLOAD,
  tenants: 1,
  accountsPerTenant: 1,
  hotAccount: true,
};

export type DeliveryKind = 'new' | 'duplicate' | 'restatement' | 'poison';

export interface Delivery {
  seq: number;
  messageId: string;
  body: string;
  /** The FIFO MessageGroupId, as keys.ts derives it from tenant and account. */
  groupId: string;
  kind: DeliveryKind;
  chargeId?: string;
  version?: number;
}

export interface TruthCharge {
  id: string;
  cell: string;
  identityKind: 'event' | 'line-item' | 'content';
  /** Amount per version (version 0 for event and content identities). */
  amounts: Map<number, string>;
}

export interface Effect {
  chargeId: string;
  /** Version the effect starts from (restated), absent for a first application. */
  from?: number;
  to: number;
  delta: string;
  charges: number;
}

export interface CellTruth {
  total: string;
  charges: number;
}

export interface Workload {
  options: WorkloadOptions;
  deliveries: Delivery[];
  charges: Map<string, TruthCharge>;
  /** cell → `${charges}:${normalized delta}` → effect. */
  effects: Map<string, Map<string, Effect>>;
  /** `${identityKind}|${identityId}` as the ledger's charge items carry it → charge id. */
  chargeByIdentity: Map<string, string>;
  counts: Record<DeliveryKind, number>;
}

/** Ledger cell: partition key and currency, the unit a TOTAL item sums. */
export const cellOf = (pk: string, currency: string): string => `${pk}|${currency}`;
export const effectKey = (charges: number | string, delta: string): string =>
  `${Number(charges)}:${new Big(delta).toString()}`;

export const identityKey = (kind: string, id: string): string => `${kind}|${id}`;

interface Origin {
  chargeId: string;
  version: number;
  fields: Record<string, unknown>;
  groupId: string;
}

const SERVICES = ['AmazonEC2', 'AmazonS3', 'AWSLambda', 'AmazonDynamoDB', 'AmazonRDS'];
const POISON_BODIES = [
  'not json {',
  '[1,2,3]',
  JSON.stringify({ hello: 'world' }),
  JSON.stringify({
    accountId: '1',
    chargePeriodStart: '2026-11-01T00:00:00Z',
    chargeCategory: 'usage',
    amount: 'twelve',
    currency: 'USD',
    source: 'aws',
  }),
  JSON.stringify({
    accountId: '1',
    chargePeriodStart: 'yesterday',
    chargeCategory: 'usage',
    amount: '1',
    currency: 'USD',
    source: 'aws',
  }),
];

const shuffled = <T>(items: T[], random: () => number): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

/** Same content, different bytes: reordered keys, amount as a JSON number when exact, indentation. */
const reserialize = (
  fields: Record<string, unknown>,
  random: () => number,
  seq: number,
): string => {
  const entries = shuffled(Object.entries(fields), random);
  const amount = String(fields.amount);
  const asNumber = Number(amount);
  const reordered = Object.fromEntries(
    entries.map(([key, value]) =>
      key === 'amount' && String(asNumber) === amount ? [key, asNumber] : [key, value],
    ),
  );
  // Raw message delivery: the body is the message itself (an SNS envelope here would be poison).
  return JSON.stringify(reordered, null, random() < 0.5 ? undefined : 1 + (seq % 3));
};

export const generateWorkload = (options: WorkloadOptions): Workload => {
  const random = mulberry32(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const deliveries: Delivery[] = [];
  const charges = new Map<string, TruthCharge>();
  const effects = new Map<string, Map<string, Effect>>();
  const origins: Origin[] = [];
  const lineItems: { chargeId: string; fields: Record<string, unknown>; groupId: string }[] = [];
  const counts: Record<DeliveryKind, number> = { new: 0, duplicate: 0, restatement: 0, poison: 0 };
  const chargeByIdentity = new Map<string, string>();

  const accounts = Array.from({ length: options.hotAccount ? 1 : options.tenants }, (_, t) =>
    Array.from({ length: options.hotAccount ? 1 : options.accountsPerTenant }, (_, a) => ({
      tenant: `tenant-${t + 1}`,
      accountId: `${100000000000 + t * 1000 + a}`,
      currency: (t + a) % 4 === 3 ? 'EUR' : 'USD',
    })),
  ).flat();

  /** Random amount with 6 fraction digits, occasionally a (negative) credit. */
  const randomAmount = (): string => {
    const micros = Math.floor(random() * 500_000_000) + 1;
    const value = new Big(micros).div(1_000_000);
    return (random() < 0.03 ? value.neg() : value).toString();
  };

  /** Registers the effects a new version makes possible, resampling until they are unique in the cell. */
  const newVersionAmount = (charge: TruthCharge, version: number): string => {
    const cellEffects = effects.get(charge.cell) ?? new Map<string, Effect>();
    effects.set(charge.cell, cellEffects);
    for (;;) {
      const amount = randomAmount();
      const candidates: Effect[] = [
        { chargeId: charge.id, to: version, delta: amount, charges: 1 },
        ...[...charge.amounts.entries()].map(([from, previous]) => ({
          chargeId: charge.id,
          from,
          to: version,
          delta: new Big(amount).minus(previous).toString(),
          charges: 0,
        })),
      ];
      const keys = candidates.map((effect) => effectKey(effect.charges, effect.delta));
      const zeroDelta = candidates.some(
        (effect) => effect.charges === 0 && new Big(effect.delta).eq(0),
      );
      if (
        zeroDelta ||
        keys.some((key) => cellEffects.has(key)) ||
        new Set(keys).size !== keys.length
      )
        continue;
      candidates.forEach((effect, index) => cellEffects.set(keys[index], effect));
      charge.amounts.set(version, amount);
      return amount;
    }
  };

  const deliver = (
    kind: DeliveryKind,
    body: string,
    groupId: string,
    chargeId?: string,
    version?: number,
  ) => {
    const seq = deliveries.length;
    deliveries.push({
      seq,
      messageId: `msg-${String(seq).padStart(7, '0')}`,
      body,
      groupId,
      kind,
      chargeId,
      version,
    });
    counts[kind]++;
  };

  for (let i = 0; i < options.events; i++) {
    const roll = random();
    if (roll < options.poisonShare) {
      const account = pick(accounts);
      deliver('poison', pick(POISON_BODIES), fifoGroupId(account.tenant, account.accountId));
      continue;
    }
    if (roll < options.poisonShare + options.duplicateShare && origins.length > 0) {
      const origin =
        random() < 0.6
          ? origins[Math.max(0, origins.length - 1 - Math.floor(random() * 30))]
          : pick(origins);
      const body =
        random() < 0.5 ? JSON.stringify(origin.fields) : reserialize(origin.fields, random, i);
      deliver('duplicate', body, origin.groupId, origin.chargeId, origin.version);
      continue;
    }
    if (
      roll < options.poisonShare + options.duplicateShare + options.restatementShare &&
      lineItems.length > 0
    ) {
      const item = pick(lineItems);
      const charge = charges.get(item.chargeId) as TruthCharge;
      const version = Math.max(...charge.amounts.keys()) + 1;
      const fields = { ...item.fields, version, amount: newVersionAmount(charge, version) };
      origins.push({ chargeId: charge.id, version, fields, groupId: item.groupId });
      deliver('restatement', JSON.stringify(fields), item.groupId, charge.id, version);
      continue;
    }
    const account = pick(accounts);
    const period = random() < 0.3 && !options.hotAccount ? '2026-10' : '2026-11';
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    const hour = String(Math.floor(random() * 24)).padStart(2, '0');
    const kindRoll = random();
    const identityKind = kindRoll < 0.5 ? 'event' : kindRoll < 0.9 ? 'line-item' : 'content';
    const chargeId = `c${i}`;
    const pk = `TENANT#${account.tenant}#ACCOUNT#${account.accountId}#PERIOD#${period}`;
    const charge: TruthCharge = {
      id: chargeId,
      cell: cellOf(pk, account.currency),
      identityKind,
      amounts: new Map(),
    };
    charges.set(chargeId, charge);
    const version = identityKind === 'line-item' ? 1 : 0;
    const service = pick(SERVICES);
    const fields: Record<string, unknown> = {
      tenant: account.tenant,
      source: 'aws',
      accountId: account.accountId,
      chargePeriodStart: `${period}-${day}T${hour}:00:00Z`,
      chargePeriodEnd: `${period}-${day}T${hour}:59:59Z`,
      chargeCategory: 'usage',
      service,
      skuId: `${service}:sku-${Math.floor(random() * 50)}`,
      resourceId: `arn:aws:${service.toLowerCase()}:us-east-1:${account.accountId}:resource/r-${Math.floor(random() * 1e6)}`,
      description: `${service} usage, ${Math.floor(random() * 1000)} units`,
      usageQuantity: String(Math.floor(random() * 10000) / 100),
      usageUnit: 'Hrs',
      ...(identityKind === 'event' ? { eventId: `evt-${options.seed}-${i}` } : {}),
      ...(identityKind === 'line-item'
        ? { lineItemId: `li-${options.seed}-${i}`, version: 1 }
        : {}),
      currency: account.currency,
    };
    fields.amount = newVersionAmount(charge, version);
    const groupId = fifoGroupId(account.tenant, account.accountId);
    origins.push({ chargeId, version, fields, groupId });
    if (identityKind === 'line-item') lineItems.push({ chargeId, fields, groupId });
    // The identity id of a content-keyed charge is its content hash: computed once here
    // with the project's normalization, only to name the charge item, never to decide an effect.
    const identityId =
      identityKind === 'event'
        ? String(fields.eventId)
        : identityKind === 'line-item'
          ? String(fields.lineItemId)
          : costContentHash(parseCostEvent(decodeRecord({ body: JSON.stringify(fields) })).event);
    chargeByIdentity.set(identityKey(identityKind, identityId), chargeId);
    deliver('new', JSON.stringify(fields), groupId, chargeId, version);
  }
  return { options, deliveries, charges, effects, chargeByIdentity, counts };
};

/** The ledger every correct implementation must end with: latest version of every charge. */
export const truthTotals = (workload: Workload): Map<string, CellTruth> => {
  const cells = new Map<string, { total: Big; charges: number }>();
  for (const charge of workload.charges.values()) {
    const finalVersion = Math.max(...charge.amounts.keys());
    const cell = cells.get(charge.cell) ?? { total: new Big(0), charges: 0 };
    cell.total = cell.total.plus(charge.amounts.get(finalVersion) as string);
    cell.charges += 1;
    cells.set(charge.cell, cell);
  }
  return new Map(
    [...cells.entries()].map(([cell, value]) => [
      cell,
      { total: value.total.toString(), charges: value.charges },
    ]),
  );
};
