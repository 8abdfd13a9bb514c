/**
 * How many charges go into one grouped transaction, chosen from what a cancellation costs. A group
 * of n charges over k ledger partitions writes n + k items (each charge, one total shard per
 * partition), billed 2 write units each whether it commits or is cancelled; it is cancelled when any
 * of its charges lost its race (a copy committed by another invocation), with probability
 * 1 − (1 − p)^n, and then sent again without the losers. A bigger group shares shards and requests; a
 * smaller one loses less when it is cancelled. The size that bills the fewest expected units per charge
 * wins (ties: the bigger, for fewer requests).
 */

/** Expected billed item writes per charge when `partitions` (sorted, one entry per charge) go in groups of `size`. */
export const expectedItemsPerCharge = (
  partitions: readonly string[],
  size: number,
  lossRate: number,
): number => {
  if (partitions.length === 0) return 0;
  let items = 0;
  for (let start = 0; start < partitions.length; start += size) {
    const group = partitions.slice(start, start + size);
    const written = group.length + new Set(group).size;
    const cancelled = 1 - (1 - lossRate) ** group.length;
    items += written * (1 + cancelled);
  }
  return items / partitions.length;
};

/** The group size for `partitions` (sorted) given the share of grouped charges that lose their race. */
export const chooseGroupSize = (
  partitions: readonly string[],
  lossRate: number,
  maxSize: number,
): number => {
  let best = Math.max(1, maxSize);
  let bestItems = expectedItemsPerCharge(partitions, best, lossRate);
  for (let size = best - 1; size >= 1; size--) {
    const items = expectedItemsPerCharge(partitions, size, lossRate);
    // A smaller group must save at least a hundredth of an item per charge to be worth its requests.
    if (items < bestItems - 0.01) {
      best = size;
      bestItems = items;
    }
  }
  return best;
};

/**
 * A lease (`ChargeLeasePort`) is one single-item conditional write: 1 write unit whether it is taken or
 * refused, half of a transaction item's 2. A charge whose lease another invocation holds is not sent;
 * the others go in groups that no lost race cancels.
 */
export const LEASE_ITEMS = 0.5;

/**
 * Expected billed items per charge when every charge is leased first: the lease, then, for the charges
 * whose lease was taken, groups sized for `leasedLossRate` (races a lease does not prevent: with an
 * invocation that took no lease).
 */
export const expectedItemsPerLeasedCharge = (
  partitions: readonly string[],
  maxSize: number,
  lossRate: number,
  leasedLossRate = 0,
): number => {
  if (partitions.length === 0) return 0;
  const size = chooseGroupSize(partitions, leasedLossRate, maxSize);
  return LEASE_ITEMS + (1 - lossRate) * expectedItemsPerCharge(partitions, size, leasedLossRate);
};

/**
 * At least two charges per partition on average. Only then are leases considered: where charges
 * share nothing, a lease can only turn a 4-unit loss into a 1-unit one at 1 unit on every charge, and
 * measured on the default workload it billed more than it saved (docs/benchmarks.md).
 */
const sharesShards = (partitions: readonly string[]): boolean =>
  partitions.length >= 2 * new Set(partitions).size;

export interface CommitPlan {
  /** Lease every charge before it is sent (only when that bills fewer expected items). */
  lease: boolean;
  groupSize: number;
}

/**
 * Leases pay where lost races are frequent and a cancelled group is expensive (many charges sharing a
 * shard); where charges share nothing a lone transaction loses little and the lease would be an extra
 * write for every charge. The cheaper of the two in expected billed items wins (ties: no lease).
 * `lossRate` is the share of charges another invocation was committing at the same moment (lost
 * races, refused leases, leased charges that lost anyway). The choice assumes that the other
 * invocations, measuring the same traffic, lease too: a lease only prevents a race with another
 * lease. `leasedLossRate`, the share of leased charges that still lost their race (to an invocation
 * that took no lease), sizes the leased groups.
 */
export const chooseCommitPlan = (
  partitions: readonly string[],
  lossRate: number,
  maxSize: number,
  leasedLossRate = 0,
): CommitPlan => {
  const groupSize = chooseGroupSize(partitions, lossRate, maxSize);
  const direct = expectedItemsPerCharge(partitions, groupSize, lossRate);
  const leased = expectedItemsPerLeasedCharge(partitions, maxSize, lossRate);
  return sharesShards(partitions) && leased < direct - 0.01
    ? { lease: true, groupSize: chooseGroupSize(partitions, leasedLossRate, maxSize) }
    : { lease: false, groupSize };
};

/**
 * What an environment of a standard queue assumes before it has seen a race: 1 charge in 10 lost, as
 * much evidence as 20 charges. A new environment on a hot account then leases from its first batch,
 * like the environments already running there, instead of racing them with unleased groups until its
 * own losses show (a lease only stops a race with another lease); where nothing races, the prior fades
 * within a few batches. FIFO queues have one batch of a group in flight and start at 0.
 */
export const STANDARD_QUEUE_LOSS_PRIOR = { rate: 0.1, weight: 20 } as const;

/** Charges observed before the older half of the record is let go: the rate follows the recent traffic. */
const WINDOW = 1_000;

/**
 * The share of grouped charges that lost their race, as one execution environment has seen it lately.
 * Kept across invocations by the handler; none seen yet means 0 (groups as big as allowed).
 */
export class LossRate {
  private charges: number;
  private losers: number;

  /** `prior`: the rate assumed before anything is seen, weighing as much as `weight` observed charges. */
  constructor(prior?: { rate: number; weight: number }) {
    this.charges = prior?.weight ?? 0;
    this.losers = prior ? prior.rate * prior.weight : 0;
  }

  observe(charges: number, losers: number): void {
    this.charges += charges;
    this.losers += losers;
    if (this.charges > WINDOW) {
      this.charges /= 2;
      this.losers /= 2;
    }
  }

  get value(): number {
    return this.charges === 0 ? 0 : this.losers / this.charges;
  }
}
