import { jitteredBackoff, type Backoff } from './backoff';
import type { BatchOutcome } from './batch';
import { identityField, incomingOf, parseCharge, type ParsedCharge } from './charge';
import { KeyedSerializer, mapWithConcurrency } from './concurrency';
import type { DeliveryMode } from '../../contract/environment';
import { ConflictError, fail, PermanentError, TransientError } from './errors';
import { chooseCommitPlan, LossRate } from './group-size';
import { billingPeriodOf, fifoGroupId } from './keys';
import {
  asProvisional,
  chargeAfter,
  decideCharge,
  mayBeProvisional,
  type StoredCharge,
} from './ledger-decision';
import type { Outcome, RecordResult } from './outcomes';
import { parseRecords, parsedValues, runParsedBatch } from './parsed-batch';
import { Bookings } from './periods';
import {
  refKey,
  type ChargeCommit,
  type ChargeLeasePort,
  type CommitResult,
  type ChargeRef,
  type DeadLetterPort,
  type LateChargePolicy,
  type LedgerPort,
  type PeriodKey,
  type PeriodStatePort,
  type SqsRecordInput,
} from './ports';
import type { TenantIngress } from './tenant-binding';

export { parseCharge } from './charge';

export interface CostProcessorOptions {
  fifo: boolean;
  concurrency: number;
  /** How SNS delivers to the queue (default `raw`). */
  deliveryMode?: DeliveryMode;
  /** Tenant bindings (envelope mode): the delivering topic decides the tenant. */
  tenants?: TenantIngress;
  ledger: LedgerPort;
  deadLetters: DeadLetterPort;
  /**
   * Milliseconds left in the invocation (the Lambda context's `getRemainingTimeInMillis`). When given,
   * a record whose commit meets contention is retried for as long as time remains; without it, at most
   * `maxAttempts` times.
   */
  deadline?: () => number;
  /** Commit attempts per record when concurrent writers win the race, without a deadline (default 6). */
  maxAttempts?: number;
  /** Back-off between attempts (injected so tests need not wait). */
  pause?: (attempt: number) => Promise<void>;
  /** What happens to a charge whose billing period is closed (default `roll-forward`). */
  lateChargePolicy?: LateChargePolicy;
  /** The state of later periods, asked when rolling a late charge forward (default: assume open). */
  periods?: PeriodStatePort;
  /**
   * Share of grouped charges that lost their race lately, kept across invocations by the handler; it
   * sizes the grouped transactions (`core/group-size.ts`). Default: a fresh one (full groups).
   */
  lossRate?: LossRate;
  /**
   * Advisory leases on charges about to be committed in a group, taken when the cost model says they
   * bill less than the lost races they prevent (`core/group-size.ts`). Without: no leases.
   */
  leases?: ChargeLeasePort;
  /** Share of leased charges that still lost their race (kept like `lossRate`; default: a fresh one). */
  leasedLossRate?: LossRate;
  /** The clock leases are dated by (default `Date.now`). */
  now?: () => number;
}

/** Longest single back-off, and the time kept in hand to answer the batch before the invocation ends. */
export const MAX_PAUSE_MS = 1_000;
export const DEADLINE_MARGIN_MS = 2_000;
/** Longest charge lease: a copy whose lease outlives a crashed holder waits at most this long. */
export const MAX_LEASE_MS = 30_000;
/** Reads of a charge whose lease another invocation holds, before its record is left for redelivery. */
const CONTESTED_READS = 3;

/**
 * The default back-off (`core/backoff.ts`): up to 20 ms · 2^attempt, at most MAX_PAUSE_MS, jittered,
 * and never into the margin kept before the deadline.
 */
const defaultPause = (options: CostProcessorOptions): Backoff =>
  jitteredBackoff({
    baseMs: 20,
    capMs: MAX_PAUSE_MS,
    ...(options.deadline ? { remainingMs: options.deadline, reserveMs: DEADLINE_MARGIN_MS } : {}),
  });

/** Whether another attempt fits: within the deadline (minus margin and a full pause), else the cap. */
const mayRetry = (options: CostProcessorOptions, attemptsMade: number): boolean =>
  options.deadline
    ? options.deadline() > DEADLINE_MARGIN_MS + MAX_PAUSE_MS
    : attemptsMade < (options.maxAttempts ?? 6);

const periodKeyOf = (charge: ParsedCharge): PeriodKey => ({
  tenant: charge.event.tenant,
  accountId: charge.event.accountId,
  period: billingPeriodOf(charge.event),
});

const periodClosed = (key: PeriodKey): PermanentError =>
  new PermanentError(
    'period-closed',
    'billingPeriodStart',
    `billing period ${key.period} of tenant ${key.tenant}, account ${key.accountId} is closed and the ` +
      'late-charge policy is reject; reopen the period and redrive the message to apply it',
  );

/**
 * On a FIFO queue a record's group must be the one keys.ts derives from its tenant and account: a body
 * for one tenant sent in another tenant's group is poison, never booked.
 */
const checkMessageGroup = (record: SqsRecordInput, charge: ParsedCharge): void => {
  const expected = fifoGroupId(charge.event.tenant, charge.event.accountId);
  const actual = record.attributes?.MessageGroupId;
  if (actual === expected) return;
  fail(
    'group-mismatch',
    'MessageGroupId',
    `message group ${actual === undefined ? '(none)' : JSON.stringify(actual)} is not ` +
      `${JSON.stringify(expected)}, the group of the message's tenant and account`,
  );
};

const commitOf = (
  charge: ParsedCharge,
  decision: ReturnType<typeof decideCharge>,
): ChargeCommit | undefined =>
  decision.outcome === 'applied' || decision.outcome === 'restated'
    ? {
        ref: charge.ref,
        event: charge.event,
        contentHash: charge.contentHash,
        identity: {
          kind: charge.identity.kind,
          id: charge.identity.id,
          version: charge.identity.version,
        },
        totals: decision.totals,
        ...(decision.outcome === 'restated' ? { previous: decision.previous } : {}),
      }
    : undefined;

/**
 * One batch of the cost stream:
 * 1. parse every record and pre-read every charge the batch touches (one eventually consistent
 *    read: every decision made on it is guarded by the commit's conditions, and a conflict is
 *    confirmed by a consistent read before the message goes to the DLQ);
 * 2. the first new or restated charge of each ledger item is committed together with the others in one
 *    grouped transaction (claims + charges + summed totals), all or nothing;
 * 3. everything else — duplicates, conflicts, later copies of a charge, and every record of a group that
 *    did not commit — goes record by record: decide on what the ledger holds, commit claim + charge +
 *    totals in one transaction, and on a lost race re-read and decide again; a transaction that was
 *    only contended (another writer on a shared total) is tried again as it is.
 * Copies of one charge run one after the other, so the second sees the first's effect in memory.
 */
export const processCostBatch = async (
  records: readonly SqsRecordInput[],
  options: CostProcessorOptions,
): Promise<BatchOutcome> => {
  const pause = options.pause ?? defaultPause(options);
  const periods = options.periods;
  const bookings = new Bookings(
    options.lateChargePolicy ?? 'roll-forward',
    periods ? (key) => periods.stateOf(key) : undefined,
    periods?.supersession ? (key) => periods.supersession!(key) : undefined,
  );
  const parsed = parseRecords(records, (record) => {
    const charge = parseCharge(
      options.ledger.layout,
      record,
      options.deliveryMode,
      options.tenants,
    );
    if (options.fifo) checkMessageGroup(record, charge);
    return charge;
  });
  const charges = parsedValues(parsed);
  const holders = new Map(
    parsed.flatMap((item) => (item.parsed.ok ? [[item.parsed.value, item.messageId]] : [])),
  );
  const state = await preRead(options.ledger, charges);
  const now = options.now ?? Date.now;
  const grouped = await commitGroups(options.ledger, charges, state, {
    pause,
    bookings,
    lossRate: options.lossRate ?? new LossRate(),
    leasedLossRate: options.leasedLossRate ?? new LossRate(),
    concurrency: options.concurrency,
    ...(options.leases
      ? {
          lease: {
            port: options.leases,
            holderOf: (charge: ParsedCharge) => holders.get(charge) ?? '',
            untilMs: now() + Math.min(options.deadline?.() ?? MAX_LEASE_MS, MAX_LEASE_MS),
          },
        }
      : {}),
  });
  const { known, unconfirmed, contested } = state;

  const storedCharge = async (ref: ChargeRef): Promise<StoredCharge | null> => {
    const key = refKey(ref);
    if (!known.has(key)) known.set(key, await options.ledger.readCharge(ref));
    return known.get(key) ?? null;
  };
  const forget = (key: string) => {
    known.delete(key);
    unconfirmed.delete(key);
  };

  const applyCharge = async (
    charge: ParsedCharge,
    record: SqsRecordInput,
  ): Promise<RecordResult> => {
    const result = (outcome: Outcome): RecordResult => ({
      messageId: record.messageId,
      outcome,
      hash: charge.contentHash,
      scope: { tenant: charge.event.tenant, source: charge.event.source },
      evidence: { tenant: charge.event.tenant, period: billingPeriodOf(charge.event) },
    });
    const groupedOutcome = grouped.get(charge);
    if (groupedOutcome) return result(groupedOutcome);
    const key = refKey(charge.ref);
    // `attemptNumber` counts tries against other writers; a refusal by a closed period moves the
    // booking on (at most MAX_ROLL_FORWARD_MONTHS times) without counting.
    for (let attemptNumber = 1; ;) {
      const stored = (await storedCharge(charge.ref)) ?? undefined;
      const decision = decideCharge(incomingOf(charge), stored);
      if (decision.outcome === 'conflict' && unconfirmed.has(key)) {
        forget(key);
        continue;
      }
      if (decision.outcome === 'conflict') {
        throw new ConflictError(identityField(charge.identity), decision.reason);
      }
      const commit = commitOf(charge, decision);
      if (!commit) return result(decision.outcome);
      if (contested.has(key)) {
        // Another invocation leased this charge: it is committing a copy. Read again, never race it.
        if (attemptNumber >= CONTESTED_READS || !mayRetry(options, attemptNumber))
          throw new TransientError(
            'another invocation is committing a copy of this charge; retried once it is in the ledger',
          );
        await pause(attemptNumber);
        forget(key);
        attemptNumber++;
        continue;
      }
      const own = periodKeyOf(charge);
      // Its closed period's export supersedes its source: kept there as provisional, whatever the policy.
      const provisional =
        mayBeProvisional(stored) && (await bookings.keepsProvisional(own, charge.event.source));
      const target = provisional
        ? { kind: 'own' as const, period: own.period }
        : await bookings.target(own);
      if (target.kind === 'rejected') throw periodClosed(own);
      let committed: CommitResult;
      try {
        committed = await options.ledger.commit(
          provisional
            ? { ...commit, totals: asProvisional(commit.totals), provisional: true }
            : target.kind === 'rolled'
              ? { ...commit, bookedIn: target.period }
              : commit,
          { attempt: attemptNumber },
        );
      } catch (error) {
        forget(key);
        throw error;
      }
      if (committed === 'committed') {
        known.set(key, chargeAfter(incomingOf(charge), provisional));
        unconfirmed.delete(key);
        return result(decision.outcome);
      }
      if (committed === 'period-closed') {
        bookings.markClosed({ ...own, period: target.period });
        continue;
      }
      if (committed === 'period-open') {
        bookings.markOpen(own);
        continue;
      }
      if (committed === 'lost-race') forget(key);
      if (!mayRetry(options, attemptNumber)) break;
      // A first lost race is settled by reading what won, at once; contention, or losing again, backs off.
      if (committed !== 'lost-race' || attemptNumber > 1) await pause(attemptNumber);
      attemptNumber++;
    }
    throw new TransientError(
      options.deadline
        ? 'lost the race until the invocation ran out of time'
        : 'lost the race on every attempt',
    );
  };

  const serializer = new KeyedSerializer();
  return runParsedBatch(parsed, {
    fifo: options.fifo,
    concurrency: options.concurrency,
    deadLetters: options.deadLetters,
    hashOf: (charge) => charge.contentHash,
    process: (charge, record) =>
      serializer.run(refKey(charge.ref), () => applyCharge(charge, record)),
  });
};

interface LedgerState {
  /** What the ledger holds for each charge the batch touches, as far as this invocation knows. */
  known: Map<string, StoredCharge | null>;
  /** Keys known only from the eventually consistent pre-read. */
  unconfirmed: Set<string>;
  /** Charges whose lease another invocation holds: read until that copy is in, never committed here. */
  contested: Set<string>;
}

/** Charges the batch touches, read at once; a failed pre-read leaves them unknown (read one by one later). */
const preRead = async (ledger: LedgerPort, charges: ParsedCharge[]): Promise<LedgerState> => {
  const refs = new Map(charges.map((charge) => [refKey(charge.ref), charge.ref]));
  let known = new Map<string, StoredCharge | null>();
  if (refs.size > 0) {
    try {
      known = await ledger.readCharges([...refs.values()], { consistent: false });
    } catch {
      known = new Map();
    }
  }
  return { known, unconfirmed: new Set(known.keys()), contested: new Set() };
};

/** Attempts of one grouped transaction (each after contention, or after dropping the records that lost). */
const GROUP_ATTEMPTS = 3;

const partitionOf = (charge: ParsedCharge): string => {
  const { tenant, accountId, period } = periodKeyOf(charge);
  return `${tenant}\u0000${accountId}\u0000${period}`;
};

/**
 * Commits the first applied or restated record of each ledger item in grouped transactions: ordered by
 * partition, so that a group's charges share total shards, in groups of the size that bills the fewest
 * expected write units given how often grouped charges lose their race. Returns the
 * outcome of every record that committed. A group cancelled only by contention is tried again as it is;
 * one that lost a race on some records is tried again without them. Records left out, and every record
 * of a group that could not commit, go to the record-by-record path with their charges read again at
 * once (consistently), so that path starts from what the ledger holds.
 */
interface GroupOptions {
  pause: (attempt: number) => Promise<void>;
  bookings: Bookings;
  lossRate: LossRate;
  leasedLossRate: LossRate;
  concurrency: number;
  lease?: { port: ChargeLeasePort; holderOf: (charge: ParsedCharge) => string; untilMs: number };
}

/** A charge's lease names its version: copies of one version meet, a restatement is its own race. */
const leaseKeyOf = (commit: ChargeCommit): string =>
  `${refKey(commit.ref)}\u0000${commit.identity.version}`;

const commitGroups = async (
  ledger: LedgerPort,
  charges: ParsedCharge[],
  state: LedgerState,
  { pause, bookings, lossRate, leasedLossRate, concurrency, lease }: GroupOptions,
): Promise<Map<ParsedCharge, Outcome>> => {
  const { known, unconfirmed, contested } = state;
  type Planned = { charge: ParsedCharge; commit: ChargeCommit; outcome: Outcome };
  let planned: Planned[] = [];
  const seen = new Set<string>();
  for (const charge of charges) {
    const key = refKey(charge.ref);
    if (seen.has(key) || !known.has(key)) continue;
    seen.add(key);
    // A charge of a period known to be closed takes the record-by-record path, which books it by policy.
    if (bookings.isKnownClosed(periodKeyOf(charge))) continue;
    const decision = decideCharge(incomingOf(charge), known.get(key) ?? undefined);
    const commit = commitOf(charge, decision);
    if (commit) planned.push({ charge, commit, outcome: decision.outcome });
  }
  const outcomes = new Map<ParsedCharge, Outcome>();
  if (planned.length === 0) return outcomes;
  const leftOut: Planned[] = [];
  // Race losers whose charge came back with the cancellation: known as the ledger holds them.
  const settled = new Set<string>();
  const partitions = new Map(planned.map(({ charge }) => [charge, partitionOf(charge)]));
  planned.sort((a, b) => {
    const [pa, pb] = [partitions.get(a.charge)!, partitions.get(b.charge)!];
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
  const plan = chooseCommitPlan(
    planned.map(({ charge }) => partitions.get(charge)!),
    lossRate.value,
    ledger.layout.maxGroupSize,
    leasedLossRate.value,
  );
  const leased = plan.lease && lease !== undefined;
  // A lone charge that is not leased goes the record-by-record way, as a group of one would.
  if (planned.length < 2 && !leased) return outcomes;
  if (leased) {
    // A lease that cannot be written leaves its charge to the commit's own conditions, as without leases.
    const held = await lease.port
      .take(
        planned.map(({ charge, commit }) => ({
          key: leaseKeyOf(commit),
          holder: lease.holderOf(charge),
        })),
        lease.untilMs,
      )
      .catch(() => new Set<string>());
    lossRate.observe(planned.length, held.size);
    const isHeld = (entry: Planned) => held.has(leaseKeyOf(entry.commit));
    for (const entry of planned.filter(isHeld)) contested.add(refKey(entry.charge.ref));
    leftOut.push(...planned.filter(isHeld));
    planned = planned.filter((entry) => !isHeld(entry));
  }
  const groupSize = plan.groupSize;
  const chunks: Planned[][] = [];
  for (let start = 0; start < planned.length; start += groupSize)
    chunks.push(planned.slice(start, start + groupSize));
  // The groups hold distinct charges: they go side by side (a shared shard is mere contention, retried).
  await mapWithConcurrency(chunks, concurrency, async (chunk) => {
    let group = chunk;
    let committed = false;
    // Only contention calls for a pause: a group that shed its race losers or its closed-period
    // commits is tried again at once, since nothing it still holds was contended.
    let contended = false;
    for (
      let attemptNumber = 1;
      !committed && group.length > 0 && attemptNumber <= GROUP_ATTEMPTS;
      attemptNumber++
    ) {
      if (contended) await pause(attemptNumber - 1);
      contended = false;
      const answer = await ledger
        .commitGroup(
          group.map((entry) => entry.commit),
          { attempt: attemptNumber },
        )
        .catch(() => ({ result: 'error' }) as const);
      // The rate counts first attempts only: a group sent again after shedding its losers would count twice.
      // Leased charges were counted by their leases already: a leased one that lost anyway adds a
      // loss, and leased groups keep a rate of their own, which sizes them.
      const rate = leased ? leasedLossRate : lossRate;
      if (attemptNumber === 1 && answer.result === 'committed') rate.observe(group.length, 0);
      if (attemptNumber === 1 && answer.result === 'lost-race') {
        rate.observe(group.length, answer.losers.length);
        if (leased) lossRate.observe(0, answer.losers.length);
      }
      if (answer.result === 'committed') committed = true;
      else if (answer.result === 'lost-race' && answer.losers.length > 0) {
        const losers = new Set(answer.losers);
        for (const [index, stored] of answer.current ?? []) {
          const key = refKey(group[index].charge.ref);
          known.set(key, stored);
          unconfirmed.delete(key);
          settled.add(key);
        }
        leftOut.push(...group.filter((_, index) => losers.has(index)));
        group = group.filter((_, index) => !losers.has(index));
      } else if (answer.result === 'period-closed' && answer.closed.length > 0) {
        const closed = new Set(answer.closed);
        for (const index of closed) bookings.markClosed(periodKeyOf(group[index].charge));
        leftOut.push(...group.filter((_, index) => closed.has(index)));
        group = group.filter((_, index) => !closed.has(index));
      } else if (answer.result === 'contended') contended = true;
      else break;
    }
    if (committed) {
      for (const { charge, outcome } of group) {
        known.set(refKey(charge.ref), chargeAfter(incomingOf(charge)));
        unconfirmed.delete(refKey(charge.ref));
        outcomes.set(charge, outcome);
      }
    } else {
      leftOut.push(...group);
    }
  });
  const refs = leftOut.map(({ charge }) => charge.ref).filter((ref) => !settled.has(refKey(ref)));
  if (refs.length === 0) return outcomes;
  const reread = await ledger.readCharges(refs).catch(() => new Map<string, StoredCharge | null>());
  for (const ref of refs) {
    const key = refKey(ref);
    unconfirmed.delete(key);
    if (reread.has(key)) known.set(key, reread.get(key) ?? null);
    else known.delete(key);
  }
  return outcomes;
};
