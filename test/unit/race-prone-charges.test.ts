import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge, processCostBatch } from '../../lambda/core/cost-processor';
import { likelyToLoseRace } from '../../lambda/core/group-size';
import type { StoredCharge } from '../../lambda/core/ledger-decision';
import {
  refKey,
  type ChargeCommit,
  type ChargeRef,
  type CommitResult,
  type GroupCommitResult,
  type LedgerPort,
} from '../../lambda/core/ports';
import { costEvent } from '../support/cost-events';
import { sqsRecord } from '../support/sqs-events';

const lineItem = (version: number) => ({ identity: { kind: 'line-item', version } });
const event = (version: number) => ({ identity: { kind: 'event', version } });

describe('likelyToLoseRace', () => {
  it('a later version of a line item the ledger holds no version of: its earlier version is in flight', () => {
    expect(likelyToLoseRace(lineItem(2), undefined)).toBe(true);
    expect(likelyToLoseRace(lineItem(7), undefined)).toBe(true);
  });

  it('a first version, a charge the ledger holds, or an identity without versions: not singled out', () => {
    expect(likelyToLoseRace(lineItem(1), undefined)).toBe(false);
    expect(likelyToLoseRace(lineItem(2), { version: 1 })).toBe(false);
    expect(likelyToLoseRace(event(1), undefined)).toBe(false);
    expect(likelyToLoseRace({ identity: { kind: 'content', version: 2 } }, undefined)).toBe(false);
  });
});

/** A ledger that holds what the test says and records what it was asked. */
class RecordingLedger implements LedgerPort {
  readonly layout = ledgerLayout();
  held = new Map<string, StoredCharge | null>();
  calls: string[] = [];

  async readCharges(refs: ChargeRef[]) {
    this.calls.push('readCharges');
    return new Map(refs.map((ref) => [refKey(ref), this.held.get(refKey(ref)) ?? null]));
  }
  async readCharge(ref: ChargeRef) {
    this.calls.push('readCharge');
    return this.held.get(refKey(ref)) ?? null;
  }
  async commit(commit: ChargeCommit): Promise<CommitResult> {
    this.calls.push(`commit(${commit.event.skuId ?? ''})`);
    return 'committed';
  }
  async commitGroup(commits: ChargeCommit[]): Promise<GroupCommitResult> {
    this.calls.push(`commitGroup(${commits.map((commit) => commit.event.skuId ?? '').join(',')})`);
    return { result: 'committed' };
  }
}

const run = (ledger: LedgerPort, records: ReturnType<typeof sqsRecord>[]) =>
  processCostBatch(records, {
    fifo: false,
    concurrency: 4,
    ledger,
    deadLetters: { send: async () => undefined },
    pause: async () => undefined,
  });

describe('processCostBatch: a charge likely to lose its race commits on its own', () => {
  const records = () => [
    sqsRecord(costEvent({ amount: '1', skuId: 'a' })),
    sqsRecord(costEvent({ amount: '2', skuId: 'b' })),
    sqsRecord(costEvent({ lineItemId: 'li', version: 2, amount: '3', skuId: 'v2' })),
  ];

  it('a restatement whose earlier version the ledger does not hold yet stays out of the group', async () => {
    const ledger = new RecordingLedger();
    const outcome = await run(ledger, records());
    expect(outcome.results.map((result) => result.outcome)).toEqual([
      'applied',
      'applied',
      'applied',
    ]);
    expect(ledger.calls).toEqual(['readCharges', 'commitGroup(a,b)', 'commit(v2)']);
  });

  it('a restatement of a version the ledger holds is grouped with the others, as before', async () => {
    const ledger = new RecordingLedger();
    const v1 = sqsRecord(costEvent({ lineItemId: 'li', version: 1, amount: '1', skuId: 'v1' }));
    ledger.held.set(refKey(parseCharge(ledgerLayout(), v1).ref), {
      version: 1,
      contentHash: parseCharge(ledgerLayout(), v1).contentHash,
      amount: '1',
      currency: 'USD',
    });
    const outcome = await run(ledger, records());
    expect(outcome.results.map((result) => result.outcome)).toEqual([
      'applied',
      'applied',
      'restated',
    ]);
    expect(ledger.calls).toEqual(['readCharges', 'commitGroup(a,b,v2)']);
  });
});
