import {
  decideCharge,
  type IncomingCharge,
  type StoredCharge,
} from '../../lambda/core/ledger-decision';
import type { CostIdentity } from '../../lambda/core/keys';

const identity = (kind: CostIdentity['kind'], version = 0): CostIdentity => ({
  kind,
  id: 'x',
  version,
  digest: 'd',
});
const incoming = (over: Partial<IncomingCharge> = {}): IncomingCharge => ({
  identity: identity('line-item', 2),
  contentHash: 'h2',
  amount: '0.0749',
  currency: 'USD',
  ...over,
});
const stored = (over: Partial<StoredCharge> = {}): StoredCharge => ({
  version: 1,
  contentHash: 'h1',
  amount: '0.107',
  currency: 'USD',
  ...over,
});

describe('decideCharge', () => {
  it('a voided charge is final: a copy, a newer version or a conflicting content has no effect', () => {
    const voided = stored({ voided: true });
    expect(decideCharge(incoming(), voided)).toEqual({ outcome: 'voided' });
    expect(
      decideCharge(incoming({ identity: identity('line-item', 1), contentHash: 'h1' }), voided),
    ).toEqual({
      outcome: 'voided',
    });
    expect(
      decideCharge(incoming({ identity: identity('event'), contentHash: 'other' }), voided),
    ).toEqual({
      outcome: 'voided',
    });
  });

  it('applies a new charge with its amount and one more charge in the total', () => {
    expect(decideCharge(incoming(), undefined)).toEqual({
      outcome: 'applied',
      totals: [{ currency: 'USD', delta: '0.0749', charges: 1 }],
    });
  });

  it('restates a newer version by the exact delta', () => {
    expect(decideCharge(incoming(), stored())).toEqual({
      outcome: 'restated',
      previous: stored(),
      totals: [{ currency: 'USD', delta: '-0.0321', charges: 0 }],
    });
  });

  it('moves a restated charge between currency totals', () => {
    const decision = decideCharge(incoming({ currency: 'EUR' }), stored());
    expect(decision).toMatchObject({
      outcome: 'restated',
      totals: [
        { currency: 'USD', delta: '-0.107', charges: -1 },
        { currency: 'EUR', delta: '0.0749', charges: 1 },
      ],
    });
  });

  it('supersedes an older version and never regresses', () => {
    expect(
      decideCharge(
        incoming({ identity: identity('line-item', 1), contentHash: 'h1' }),
        stored({ version: 2 }),
      ),
    ).toEqual({
      outcome: 'superseded',
    });
  });

  it('treats the same version with the same content as a duplicate and different content as a conflict', () => {
    expect(
      decideCharge(incoming({ contentHash: 'h1', identity: identity('line-item', 1) }), stored()),
    ).toEqual({
      outcome: 'duplicate',
    });
    expect(decideCharge(incoming({ identity: identity('line-item', 1) }), stored())).toMatchObject({
      outcome: 'conflict',
    });
  });

  it('treats an eventId seen with different content as a conflict', () => {
    expect(
      decideCharge(incoming({ identity: identity('event') }), stored({ version: 0 })),
    ).toMatchObject({
      outcome: 'conflict',
      reason: expect.stringContaining('different content'),
    });
    expect(
      decideCharge(incoming({ identity: identity('event'), contentHash: 'h1' }), stored()),
    ).toEqual({
      outcome: 'duplicate',
    });
  });
});
