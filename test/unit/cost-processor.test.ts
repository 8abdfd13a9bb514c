import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge, processCostBatch } from '../../lambda/core/cost-processor';
import type { StoredCharge } from '../../lambda/core/ledger-decision';
import { PermanentError } from '../../lambda/core/errors';
import { LossRate } from '../../lambda/core/group-size';
import { fifoGroupId } from '../../lambda/core/keys';
import {
  refKey,
  type ChargeCommit,
  type ChargeLeasePort,
  type ChargeRef,
  type CommitOptions,
  type CommitResult,
  type GroupCommitResult,
  type DeadLetterPort,
  type LedgerPort,
} from '../../lambda/core/ports';
import { costEvent } from '../support/cost-events';
import { snsEnvelope, sqsRecord } from '../support/sqs-events';

/** A ledger whose answers a test scripts; it records what it was asked. */
class ScriptedLedger implements LedgerPort {
  readonly layout = ledgerLayout();
  stale = new Map<string, StoredCharge | null>();
  current = new Map<string, StoredCharge | null>();
  groupAnswers: GroupCommitResult[] = [];
  commitAnswer: () => Promise<CommitResult> = async () => 'committed';
  calls: string[] = [];

  async readCharges(refs: ChargeRef[], options: { consistent?: boolean } = {}) {
    this.calls.push(options.consistent === false ? 'readCharges(eventual)' : 'readCharges');
    const source = options.consistent === false ? this.stale : this.current;
    return new Map(refs.map((ref) => [refKey(ref), source.get(refKey(ref)) ?? null]));
  }
  async readCharge(ref: ChargeRef) {
    this.calls.push('readCharge');
    return this.current.get(refKey(ref)) ?? null;
  }
  async commit(_commit: ChargeCommit): Promise<CommitResult> {
    this.calls.push('commit');
    return this.commitAnswer();
  }
  async commitGroup(commits: ChargeCommit[]): Promise<GroupCommitResult> {
    this.calls.push(`commitGroup(${commits.length})`);
    return this.groupAnswers.shift() ?? { result: 'committed' };
  }
}

const deadLetters = (): DeadLetterPort & { sent: string[] } => {
  const sent: string[] = [];
  return { sent, send: async (record) => void sent.push(record.messageId) };
};
const options = (ledger: LedgerPort, dlq: DeadLetterPort) => ({
  stream: 'cost-events',
  fifo: false,
  concurrency: 4,
  ledger,
  deadLetters: dlq,
  pause: async () => undefined,
});

describe('processCostBatch decisions around the pre-read', () => {
  it('retries a grouped transaction that was only contended, without re-reading', async () => {
    const ledger = new ScriptedLedger();
    ledger.groupAnswers = [{ result: 'contended' }, { result: 'contended' }];
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const outcome = await processCostBatch(records, options(ledger, deadLetters()));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
    expect(ledger.calls).toEqual([
      'readCharges(eventual)',
      'commitGroup(3)',
      'commitGroup(3)',
      'commitGroup(3)',
    ]);
  });

  it('groups at most as many records as the ledger layout allows in one transaction', async () => {
    const ledger = new ScriptedLedger();
    Object.assign(ledger, { layout: { ...ledger.layout, maxGroupSize: 2 } });
    const records = ['1', '2', '3', '4', '5'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const outcome = await processCostBatch(records, options(ledger, deadLetters()));
    expect(outcome.results.map((r) => r.outcome)).toEqual(Array(5).fill('applied'));
    expect(ledger.calls).toEqual([
      'readCharges(eventual)',
      'commitGroup(2)',
      'commitGroup(2)',
      'commitGroup(1)',
    ]);
  });

  it('after a group lost a race, re-reads its charges in one consistent call, then goes record by record', async () => {
    const ledger = new ScriptedLedger();
    ledger.groupAnswers = [{ result: 'lost-race', losers: [0, 1] }];
    const records = ['1', '2'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const outcome = await processCostBatch(records, options(ledger, deadLetters()));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'applied']);
    expect(ledger.calls).toEqual([
      'readCharges(eventual)',
      'commitGroup(2)',
      'readCharges',
      'commit',
      'commit',
    ]);
  });

  it('retries a group without the records that lost the race; only those go record by record', async () => {
    const ledger = new ScriptedLedger();
    ledger.groupAnswers = [{ result: 'lost-race', losers: [1] }];
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const outcome = await processCostBatch(records, options(ledger, deadLetters()));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
    expect(ledger.calls).toEqual([
      'readCharges(eventual)',
      'commitGroup(3)',
      'commitGroup(2)',
      'readCharges',
      'commit',
    ]);
  });

  it('takes a race loser’s charge from the cancellation: no re-read, and the copy is a duplicate', async () => {
    const ledger = new ScriptedLedger();
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const winner = parseCharge(ledgerLayout(), records[1]);
    ledger.groupAnswers = [
      {
        result: 'lost-race',
        losers: [1],
        current: new Map([
          [1, { version: 0, contentHash: winner.contentHash, amount: '2', currency: 'USD' }],
        ]),
      },
    ];
    const outcome = await processCostBatch(records, options(ledger, deadLetters()));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'duplicate', 'applied']);
    expect(ledger.calls).toEqual(['readCharges(eventual)', 'commitGroup(3)', 'commitGroup(2)']);
  });

  it('sizes the groups from the loss rate: with lost races, charges of distinct accounts go one per transaction', async () => {
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ accountId: `30000000000${amount}`, amount })),
    );
    const calm = new ScriptedLedger();
    await processCostBatch(records, { ...options(calm, deadLetters()), lossRate: new LossRate() });
    expect(calm.calls).toEqual(['readCharges(eventual)', 'commitGroup(3)']);

    const racing = new ScriptedLedger();
    const lossRate = new LossRate();
    lossRate.observe(100, 10);
    const outcome = await processCostBatch(records, {
      ...options(racing, deadLetters()),
      lossRate,
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
    expect(racing.calls).toEqual([
      'readCharges(eventual)',
      'commitGroup(1)',
      'commitGroup(1)',
      'commitGroup(1)',
    ]);
  });

  it('counts the losers of first attempts in the loss rate, the charges of each group once', async () => {
    const ledger = new ScriptedLedger();
    ledger.groupAnswers = [{ result: 'lost-race', losers: [2] }];
    const lossRate = new LossRate();
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    await processCostBatch(records, { ...options(ledger, deadLetters()), lossRate });
    expect(ledger.calls.filter((call) => call.startsWith('commitGroup'))).toEqual([
      'commitGroup(3)',
      'commitGroup(2)',
    ]);
    expect(lossRate.value).toBe(1 / 3);
  });

  it('pauses before retrying a contended group, never before retrying one that only shed its race losers', async () => {
    const ledger = new ScriptedLedger();
    ledger.groupAnswers = [{ result: 'lost-race', losers: [2] }, { result: 'contended' }];
    const pauses: number[] = [];
    const records = ['1', '2', '3'].map((amount) =>
      sqsRecord(costEvent({ amount, skuId: `s${amount}` })),
    );
    const outcome = await processCostBatch(records, {
      ...options(ledger, deadLetters()),
      pause: async (attempt: number) => void pauses.push(attempt),
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
    expect(ledger.calls.filter((call) => call.startsWith('commitGroup'))).toEqual([
      'commitGroup(3)',
      'commitGroup(2)',
      'commitGroup(2)',
    ]);
    expect(pauses).toEqual([2]);
  });

  it('confirms a conflict seen on the eventually consistent pre-read before dead-lettering', async () => {
    const ledger = new ScriptedLedger();
    const v1 = sqsRecord(costEvent({ lineItemId: 'li', version: 1, amount: '1' }));
    const ref = refKey(parseCharge(ledgerLayout(), v1).ref);
    ledger.stale.set(ref, { version: 1, contentHash: 'another v1', amount: '9', currency: 'USD' });
    ledger.current.set(ref, { version: 2, contentHash: 'v2', amount: '2', currency: 'USD' });
    const dlq = deadLetters();
    const outcome = await processCostBatch([v1], options(ledger, dlq));
    expect(outcome.results[0].outcome).toBe('superseded');
    expect(dlq.sent).toEqual([]);
    expect(ledger.calls).toEqual(['readCharges(eventual)', 'readCharge']);
  });

  it('dead-letters a conflict the consistent read confirms', async () => {
    const ledger = new ScriptedLedger();
    const v1 = sqsRecord(costEvent({ eventId: 'e-1', amount: '1' }));
    const ref = refKey(parseCharge(ledgerLayout(), v1).ref);
    const other: StoredCharge = {
      version: 0,
      contentHash: 'different',
      amount: '9',
      currency: 'USD',
    };
    ledger.stale.set(ref, other);
    ledger.current.set(ref, other);
    const dlq = deadLetters();
    const outcome = await processCostBatch([v1], options(ledger, dlq));
    expect(outcome.results[0].outcome).toBe('conflict');
    expect(dlq.sent).toEqual([v1.messageId]);
  });
});

describe('processCostBatch: message identity', () => {
  const rejections = () => {
    const sent: { messageId: string; code: string; reason: string }[] = [];
    const port: DeadLetterPort = {
      send: async (record, rejection) =>
        void sent.push({
          messageId: record.messageId,
          code: rejection.code,
          reason: rejection.reason,
        }),
    };
    return { sent, port };
  };
  const fifoOptions = (ledger: LedgerPort, dlq: DeadLetterPort) => ({
    ...options(ledger, dlq),
    fifo: true,
  });

  it('FIFO: a record in the group its tenant and account derive is booked', async () => {
    const ledger = new ScriptedLedger();
    const dlq = rejections();
    const record = sqsRecord(costEvent({ tenant: 'initech', accountId: 'Konto 7', amount: '1' }), {
      groupId: fifoGroupId('initech', 'Konto 7'),
    });
    const outcome = await processCostBatch([record], fifoOptions(ledger, dlq.port));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied']);
    expect(dlq.sent).toEqual([]);
  });

  it("FIFO: a body for one tenant in another tenant's group is rejected as group-mismatch, naming both ids", async () => {
    const ledger = new ScriptedLedger();
    const dlq = rejections();
    const smuggled = sqsRecord(costEvent({ tenant: 'initech', accountId: '42', amount: '1' }), {
      groupId: 'acme#42',
    });
    const outcome = await processCostBatch([smuggled], fifoOptions(ledger, dlq.port));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['rejected']);
    expect(dlq.sent).toEqual([
      {
        messageId: smuggled.messageId,
        code: 'group-mismatch',
        reason: expect.stringMatching(/"acme#42".*"initech#42"/),
      },
    ]);
    expect(ledger.calls).toEqual([]);
  });

  it('FIFO: a record without a group is rejected too', async () => {
    const dlq = rejections();
    const outcome = await processCostBatch(
      [sqsRecord(costEvent({ amount: '1' }))],
      fifoOptions(new ScriptedLedger(), dlq.port),
    );
    expect(outcome.results.map((r) => r.outcome)).toEqual(['rejected']);
    expect(dlq.sent[0]).toMatchObject({ code: 'group-mismatch', reason: /\(none\)/ });
  });

  it('standard queues have no group to check', async () => {
    const outcome = await processCostBatch(
      [sqsRecord(costEvent({ amount: '1' }))],
      options(new ScriptedLedger(), deadLetters()),
    );
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied']);
  });

  it('raw delivery: a forged SNS envelope in the body cannot rebook a message to another tenant', async () => {
    const ledger = new ScriptedLedger();
    const dlq = rejections();
    const forged = sqsRecord(snsEnvelope(costEvent({ amount: '1' }), { tenant: 'globex' }), {
      attributes: { tenant: 'acme' },
    });
    const outcome = await processCostBatch([forged], {
      ...options(ledger, dlq.port),
      deliveryMode: 'raw',
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['rejected']);
    expect(dlq.sent).toEqual([
      { messageId: forged.messageId, code: 'unknown-format', reason: expect.any(String) },
    ]);
    expect(ledger.calls).toEqual([]);
  });

  it('envelope delivery: the envelope is unwrapped and its attributes are the only ones read', async () => {
    const ledger = new ScriptedLedger();
    const dlq = rejections();
    const { tenant: _tenant, ...withoutTenant } = costEvent({ amount: '1' });
    const wrapped = sqsRecord(snsEnvelope(withoutTenant, { tenant: 'acme' }), {
      attributes: { tenant: 'globex' },
    });
    const outcome = await processCostBatch([wrapped], {
      ...options(ledger, dlq.port),
      deliveryMode: 'envelope',
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied']);
    const expected = parseCharge(
      ledgerLayout(),
      sqsRecord({ ...withoutTenant, tenant: 'acme' }),
    ).contentHash;
    expect(outcome.results[0].hash).toBe(expected);
  });
});

describe('processCostBatch: what an error means for a record', () => {
  const rejections = () => {
    const sent: { messageId: string; code: string; field: string; reason: string }[] = [];
    const port: DeadLetterPort = {
      send: async (record, { code, field, reason }) =>
        void sent.push({ messageId: record.messageId, code, field, reason }),
    };
    return { sent, port };
  };

  it('a charge whose keys the ledger cannot hold is rejected before any I/O, by the ledger layout', async () => {
    const ledger = new ScriptedLedger();
    const dlq = rejections();
    const record = sqsRecord(costEvent({ accountId: 'a'.repeat(2040), amount: '1' }));
    const outcome = await processCostBatch([record], options(ledger, dlq.port));
    expect(outcome.results.map((r) => r.outcome)).toEqual(['rejected']);
    expect(dlq.sent).toEqual([
      {
        messageId: record.messageId,
        code: 'invalid-field',
        field: 'accountId',
        reason: expect.stringMatching(/2048-byte key limit/),
      },
    ]);
    expect(ledger.calls).toEqual([]);
  });

  it('a PermanentError from the ledger dead-letters the record with its reason, never retried', async () => {
    const ledger = new ScriptedLedger();
    ledger.commitAnswer = async () => {
      throw new PermanentError('invalid-field', '$', 'the ledger rejected the charge: too big');
    };
    const dlq = rejections();
    const record = sqsRecord(costEvent({ amount: '1' }));
    const outcome = await processCostBatch([record], options(ledger, dlq.port));
    expect(outcome.results[0]).toMatchObject({
      outcome: 'rejected',
      reason: 'the ledger rejected the charge: too big',
      hash: expect.any(String),
    });
    expect(outcome.batchItemFailures).toEqual([]);
    expect(dlq.sent).toEqual([
      {
        messageId: record.messageId,
        code: 'invalid-field',
        field: '$',
        reason: 'the ledger rejected the charge: too big',
      },
    ]);
  });

  it('any other error from the ledger is transient, whatever its name: the record is retried', async () => {
    const ledger = new ScriptedLedger();
    ledger.commitAnswer = async () => {
      throw Object.assign(new Error('invalid'), { name: 'ValidationException' });
    };
    const dlq = rejections();
    const record = sqsRecord(costEvent({ amount: '1' }));
    const outcome = await processCostBatch([record], options(ledger, dlq.port));
    expect(outcome.results[0]).toMatchObject({ outcome: 'failed', reason: 'ValidationException' });
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(dlq.sent).toEqual([]);
  });

  it('a record that loses the race on every attempt is failed with that reason and its hash', async () => {
    const ledger = new ScriptedLedger();
    ledger.commitAnswer = async () => 'lost-race';
    const record = sqsRecord(costEvent({ amount: '1' }));
    const pauses: number[] = [];
    const outcome = await processCostBatch([record], {
      ...options(ledger, deadLetters()),
      maxAttempts: 3,
      pause: async (attempt: number) => void pauses.push(attempt),
    });
    // The first loss is re-read at once; losing again backs off.
    expect(pauses).toEqual([2]);
    expect(outcome.results[0]).toEqual({
      messageId: record.messageId,
      outcome: 'failed',
      hash: parseCharge(ledgerLayout(), record).contentHash,
      reason: 'lost the race on every attempt',
    });
    expect(ledger.calls.filter((call) => call === 'commit')).toHaveLength(3);
  });
});

describe('processCostBatch against contention and closed periods', () => {
  /** Records every single commit with its options; answers from `answer`. */
  class RecordingLedger extends ScriptedLedger {
    commits: { commit: ChargeCommit; attempt?: number }[] = [];
    answer: (commit: ChargeCommit, call: number) => CommitResult = () => 'committed';
    override async commit(commit: ChargeCommit, options?: CommitOptions): Promise<CommitResult> {
      this.commits.push({ commit, attempt: options?.attempt });
      return this.answer(commit, this.commits.length);
    }
  }
  const october = (eventId: string) =>
    sqsRecord(costEvent({ eventId, amount: '1', chargePeriodStart: '2026-10-03T00:00:00Z' }));

  it('with a deadline, keeps retrying contention while time remains, each retry on the next shard', async () => {
    const ledger = new RecordingLedger();
    ledger.answer = (_, call) => (call <= 10 ? 'contended' : 'committed');
    const outcome = await processCostBatch([october('e-1')], {
      ...options(ledger, deadLetters()),
      deadline: () => 60_000,
    });
    expect(outcome.results.map((result) => result.outcome)).toEqual(['applied']);
    expect(ledger.commits.map((entry) => entry.attempt)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
  });

  it('without a deadline, gives up after the bounded attempts; with one, when time is nearly up', async () => {
    const bounded = new RecordingLedger();
    bounded.answer = () => 'contended';
    const withoutDeadline = await processCostBatch(
      [october('e-2')],
      options(bounded, deadLetters()),
    );
    expect(withoutDeadline.results.map((result) => result.outcome)).toEqual(['failed']);
    expect(bounded.commits).toHaveLength(6);

    const timed = new RecordingLedger();
    timed.answer = () => 'contended';
    let remaining = 10_000;
    const withDeadline = await processCostBatch([october('e-3')], {
      ...options(timed, deadLetters()),
      deadline: () => (remaining -= 500),
    });
    expect(withDeadline.results.map((result) => result.outcome)).toEqual(['failed']);
    // After each refusal the deadline is read: 9,500 … 3,500 leave room for one more attempt (13 of
    // them), 3,000 is within the safety margin plus one longest pause.
    expect(timed.commits).toHaveLength(14);
  });

  it('roll-forward: refused charges are booked in the next open period; the batch remembers the closed one', async () => {
    const ledger = new RecordingLedger();
    ledger.groupAnswers = [{ result: 'period-closed', closed: [0] }];
    ledger.answer = (commit) => (commit.bookedIn === undefined ? 'period-closed' : 'committed');
    const stateAsked: string[] = [];
    const outcome = await processCostBatch([october('e-4'), october('e-5'), october('e-7')], {
      ...options(ledger, deadLetters()),
      concurrency: 1,
      lateChargePolicy: 'roll-forward',
      periods: {
        stateOf: async (key) => {
          stateAsked.push(key.period);
          return 'open';
        },
      },
    });
    expect(outcome.results.map((result) => result.outcome)).toEqual([
      'applied',
      'applied',
      'applied',
    ]);
    // The group said October is closed: no single commit tries October again, each asks November.
    expect(ledger.calls.filter((call) => call.startsWith('commitGroup'))).toEqual([
      'commitGroup(3)',
      'commitGroup(2)',
    ]);
    expect(ledger.commits.map((entry) => entry.commit.bookedIn)).toEqual(['2026-11']);
    expect(stateAsked).toEqual(['2026-11']);
  });

  it('reject: a charge whose period is closed goes to the DLQ as period-closed, nothing committed', async () => {
    const ledger = new RecordingLedger();
    ledger.answer = () => 'period-closed';
    const dlq = deadLetters();
    const outcome = await processCostBatch([october('e-6')], {
      ...options(ledger, dlq),
      lateChargePolicy: 'reject',
    });
    expect(outcome.results).toEqual([
      expect.objectContaining({ outcome: 'rejected', reason: expect.stringContaining('2026-10') }),
    ]);
    expect(dlq.sent).toHaveLength(1);
    expect(ledger.commits).toHaveLength(1);
  });

  it('a grouped commit refused for a closed period commits the rest and books the refused ones by policy', async () => {
    const ledger = new RecordingLedger();
    const group = [october('g-1'), sqsRecord(costEvent({ eventId: 'g-2', amount: '2' }))];
    ledger.groupAnswers = [{ result: 'period-closed', closed: [0] }, { result: 'committed' }];
    ledger.answer = (commit) => (commit.bookedIn === undefined ? 'period-closed' : 'committed');
    const outcome = await processCostBatch(group, options(ledger, deadLetters()));
    expect(outcome.results.map((result) => result.outcome)).toEqual(['applied', 'applied']);
    expect(ledger.calls.filter((call) => call.startsWith('commitGroup'))).toEqual([
      'commitGroup(2)',
      'commitGroup(1)',
    ]);
    // The batch already knows October is closed: the refused charge goes straight to November.
    expect(ledger.commits.map((entry) => entry.commit.bookedIn)).toEqual(['2026-11']);
  });
});

/** Leases a test scripts: the keys in `heldElsewhere` are refused, every call is recorded. */
class ScriptedLeases implements ChargeLeasePort {
  heldElsewhere = (_key: string): boolean => false;
  taken: string[][] = [];
  async take(leases: { key: string; holder: string }[]): Promise<Set<string>> {
    this.taken.push(leases.map((lease) => lease.holder));
    return new Set(leases.map((l) => l.key).filter((key) => this.heldElsewhere(key)));
  }
}

describe('charge leases before a grouped commit', () => {
  const racing = () => {
    const lossRate = new LossRate();
    lossRate.observe(10, 3);
    return lossRate;
  };
  const records = () =>
    ['1', '2', '3'].map((amount) => sqsRecord(costEvent({ amount, skuId: `lease-${amount}` })));
  const refOf = (record: ReturnType<typeof sqsRecord>) =>
    refKey(parseCharge(ledgerLayout(), record).ref);

  it('leases nothing while no race is lost', async () => {
    const ledger = new ScriptedLedger();
    const leases = new ScriptedLeases();
    await processCostBatch(records(), { ...options(ledger, deadLetters()), leases });
    expect(leases.taken).toEqual([]);
    expect(ledger.calls).toEqual(['readCharges(eventual)', 'commitGroup(3)']);
  });

  it('a charge another invocation leased is not sent: read again, a duplicate once it is in', async () => {
    const ledger = new ScriptedLedger();
    const leases = new ScriptedLeases();
    const batch = records();
    const contested = refOf(batch[1]);
    leases.heldElsewhere = (key) => key.startsWith(contested);
    ledger.current.set(contested, {
      version: 0,
      contentHash: parseCharge(ledgerLayout(), batch[1]).contentHash,
      amount: '2',
      currency: 'USD',
      attributed: true,
    });
    const outcome = await processCostBatch(batch, {
      ...options(ledger, deadLetters()),
      leases,
      lossRate: racing(),
    });
    expect(leases.taken).toEqual([batch.map((record) => record.messageId)]);
    expect(ledger.calls).toEqual(['readCharges(eventual)', 'commitGroup(2)', 'readCharges']);
    expect(outcome.results.map((r) => r.outcome)).toEqual(['applied', 'duplicate', 'applied']);
  });

  it('a leased charge still absent after a few reads is retried later, never committed here', async () => {
    const ledger = new ScriptedLedger();
    const leases = new ScriptedLeases();
    const batch = records();
    leases.heldElsewhere = (key) => key.startsWith(refOf(batch[0]));
    const lossRate = racing();
    const outcome = await processCostBatch(batch, {
      ...options(ledger, deadLetters()),
      leases,
      lossRate,
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['failed', 'applied', 'applied']);
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: batch[0].messageId }]);
    expect(ledger.calls.filter((call) => call.startsWith('commit'))).toEqual(['commitGroup(2)']);
    // The refused lease counts as a lost race: 3 of 10, then 1 of 3.
    expect(lossRate.value).toBe(4 / 13);
  });

  it('a leased charge that loses its race anyway is a loss for both rates', async () => {
    const ledger = new ScriptedLedger();
    const batch = records();
    const winner = parseCharge(ledgerLayout(), batch[0]);
    ledger.groupAnswers = [
      {
        result: 'lost-race',
        losers: [0],
        current: new Map([
          [
            0,
            {
              version: 0,
              contentHash: winner.contentHash,
              amount: '1',
              currency: 'USD',
              attributed: true,
            },
          ],
        ]),
      },
    ];
    const lossRate = racing();
    const leasedLossRate = new LossRate();
    const outcome = await processCostBatch(batch, {
      ...options(ledger, deadLetters()),
      leases: new ScriptedLeases(),
      lossRate,
      leasedLossRate,
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['duplicate', 'applied', 'applied']);
    expect(lossRate.value).toBe(4 / 13);
    expect(leasedLossRate.value).toBe(1 / 3);
  });
});
