import {
  chooseCommitPlan,
  chooseGroupSize,
  expectedItemsPerCharge,
  expectedItemsPerLeasedCharge,
  LossRate,
  STANDARD_QUEUE_LOSS_PRIOR,
} from '../../lambda/core/group-size';

const accounts = (n: number) => Array.from({ length: n }, (_, index) => `account-${index}`);
const oneAccount = (n: number) => Array<string>(n).fill('account-0');

describe('group size from what a cancellation costs', () => {
  it('counts a charge and one shard per partition, billed again when a group is cancelled', () => {
    // 4 charges of one partition in one group: 5 items; never cancelled.
    expect(expectedItemsPerCharge(oneAccount(4), 4, 0)).toBe(5 / 4);
    // 2 groups of 2 distinct partitions each: 4 items per group, cancelled with 1 − 0.9² = 0.19.
    expect(expectedItemsPerCharge(accounts(4), 2, 0.1)).toBeCloseTo((2 * 4 * 1.19) / 4, 12);
    expect(expectedItemsPerCharge([], 3, 0.5)).toBe(0);
  });

  it('no lost races: one group as big as allowed', () => {
    expect(chooseGroupSize(accounts(10), 0, 50)).toBe(50);
    expect(chooseGroupSize(oneAccount(10), 0, 50)).toBe(50);
  });

  it('charges of distinct partitions share nothing: with lost races, one per transaction', () => {
    expect(chooseGroupSize(accounts(10), 0.02, 50)).toBe(1);
    expect(chooseGroupSize(accounts(10), 0.08, 50)).toBe(1);
  });

  it('charges of one partition share a shard: smaller groups only once races are frequent', () => {
    expect(chooseGroupSize(oneAccount(7), 0.05, 50)).toBe(50);
    expect(chooseGroupSize(oneAccount(7), 0.13, 50)).toBe(4);
  });
});

describe('leases before a grouped commit, chosen from what they save', () => {
  it('a lease is half an item per charge; the winners go in full groups that no race cancels', () => {
    // 4 charges of one partition, 1 in 4 leased elsewhere: 0.5 + 0.75 × 5/4.
    expect(expectedItemsPerLeasedCharge(oneAccount(4), 50, 0.25)).toBe(0.5 + 0.75 * (5 / 4));
    expect(expectedItemsPerLeasedCharge([], 50, 0.25)).toBe(0);
  });

  it('no lost races, or few: no lease', () => {
    expect(chooseCommitPlan(oneAccount(7), 0, 50)).toEqual({ lease: false, groupSize: 50 });
    expect(chooseCommitPlan(oneAccount(7), 0.05, 50)).toEqual({ lease: false, groupSize: 50 });
  });

  it('charges sharing a shard under frequent races: leased, in one group', () => {
    expect(chooseCommitPlan(oneAccount(7), 0.13, 50)).toEqual({ lease: true, groupSize: 50 });
  });

  it('leased charges that still lose their race (to invocations without leases) go in smaller groups', () => {
    expect(chooseCommitPlan(oneAccount(7), 0.13, 50, 0.13)).toEqual({ lease: true, groupSize: 4 });
  });

  it('charges sharing nothing lose little alone: one per transaction, never leased', () => {
    expect(chooseCommitPlan(accounts(8), 0.1, 50)).toEqual({ lease: false, groupSize: 1 });
    expect(chooseCommitPlan(accounts(8), 0.3, 50)).toEqual({ lease: false, groupSize: 1 });
    expect(chooseCommitPlan(['a', 'a', 'b', 'c'], 0.3, 50).lease).toBe(false);
  });
});

describe('LossRate', () => {
  it('is 0 before anything is seen, then losers per grouped charge', () => {
    const rate = new LossRate();
    expect(rate.value).toBe(0);
    rate.observe(10, 1);
    rate.observe(10, 0);
    expect(rate.value).toBe(0.05);
  });

  it('lets the older half go past 1,000 charges, so it follows the recent traffic', () => {
    const rate = new LossRate();
    rate.observe(1000, 500);
    rate.observe(10, 0);
    expect(rate.value).toBeCloseTo(250 / 505, 12);
    for (let i = 0; i < 200; i++) rate.observe(10, 0);
    expect(rate.value).toBeLessThan(0.1);
  });

  it("a standard queue's prior: a new environment leases charges sharing a shard from its first batch", () => {
    const rate = new LossRate(STANDARD_QUEUE_LOSS_PRIOR);
    expect(rate.value).toBe(0.1);
    expect(chooseCommitPlan(oneAccount(7), rate.value, 50).lease).toBe(true);
    expect(chooseCommitPlan(accounts(8), rate.value, 50).lease).toBe(false);
  });

  it('the prior fades where nothing races: no lease after a few batches', () => {
    const rate = new LossRate(STANDARD_QUEUE_LOSS_PRIOR);
    for (let batch = 0; batch < 4; batch++) rate.observe(10, 0);
    expect(rate.value).toBeCloseTo(2 / 60, 12);
    expect(chooseCommitPlan(oneAccount(7), rate.value, 50).lease).toBe(false);
  });
});
