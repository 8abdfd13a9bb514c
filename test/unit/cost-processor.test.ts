import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge, processCostBatch } from '../../lambda/core/cost-processor';
import type { StoredCharge } from '../../lambda/core/ledger-decision';
import { PermanentError } from '../../lambda/core/errors';
import { fifoGroupId } from '../../lambda/core/keys';
import {
  refKey,
  type ChargeCommit,
  type ChargeRef,
  type CommitResult,
  type GroupCommitResult,
  type DeadLetterPort,
  type LedgerPort,
} from '../../lambda/core/ports';
import { costEvent } from '../support/cost-events';
import { snsEnvelope, sqsRecord } from '../support/sqs-events';

/** A ledger whose answers a test scripts; it records what it was asked. */
class ScriptedLedger implements LedgerPort {
  readonly layout = ledgerLayout('cost-events');
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

  it('confirms a conflict seen on the eventually consistent pre-read before dead-lettering', async () => {
    const ledger = new ScriptedLedger();
    const v1 = sqsRecord(costEvent({ lineItemId: 'li', version: 1, amount: '1' }));
    const ref = refKey(parseCharge(ledgerLayout('cost-events'), v1).ref);
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
    const ref = refKey(parseCharge(ledgerLayout('cost-events'), v1).ref);
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
      ledgerLayout('cost-events'),
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
    const outcome = await processCostBatch([record], {
      ...options(ledger, deadLetters()),
      maxAttempts: 3,
    });
    expect(outcome.results[0]).toEqual({
      messageId: record.messageId,
      outcome: 'failed',
      hash: parseCharge(ledgerLayout('cost-events'), record).contentHash,
      reason: 'lost the race on every attempt',
    });
    expect(ledger.calls.filter((call) => call === 'commit')).toHaveLength(3);
  });
});
