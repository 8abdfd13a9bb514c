import Big from 'big.js';
import { alertPoison } from '../../../local/scenarios/alert-poison';
import { eventIdConflicts } from '../../../local/scenarios/conflicts';
import { costPoison } from '../../../local/scenarios/cost-poison';
import { SampleDraft } from '../../../local/scenarios/draft';
import { gcpBudgetNotifications } from '../../../local/scenarios/gcp-budgets';
import { hiddenStateCases } from '../../../local/scenarios/hidden-state';
import { restatedLineItem } from '../../../local/scenarios/line-items';
import { publishCharge } from '../../../local/scenarios/logical-charge';
import { monthlyCharges } from '../../../local/scenarios/monthly-charges';
import { TENANTS } from '../../../local/scenarios/tenants';
import { ledgerOf } from '../../../local/scenarios/truth';

const [acme, globex] = TENANTS;

describe('sample scenarios, each on its own draft', () => {
  it('a restated line item books its last version, whatever order the versions are published in', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const draft = new SampleDraft(seed);
      restatedLineItem(draft, acme, '200000000011', '2026-11', 0);
      const { messages, truth } = draft.build();
      const versions = messages
        .filter((m) => !m.note?.includes('replay'))
        .map((m) => JSON.parse(m.message) as { version: number; amount: unknown });
      const last = versions.reduce((a, b) => (b.version > a.version ? b : a));
      expect(truth.ledger).toEqual([
        expect.objectContaining({ accountId: '200000000011', period: '2026-11', charges: 1 }),
      ]);
      expect(new Big(truth.ledger[0].total).eq(new Big(String(last.amount)))).toBe(true);
    }
  });

  it('duplicates of a logical charge come after its first publish and are booked once', () => {
    const draft = new SampleDraft(3);
    let firstPosition = -1;
    for (let n = 0; n < 30; n++)
      firstPosition = publishCharge(
        draft,
        {
          identity: `charge-${n}`,
          effect: {
            tenant: 'acme',
            accountId: 'a',
            period: '2026-11',
            currency: 'USD',
            amount: '0.1',
          },
          render: (variant) => ({ message: `charge ${n} variant ${variant}` }),
        },
        'test charge',
      );
    const { messages, truth } = draft.build();
    expect(firstPosition).toBeGreaterThanOrEqual(0);
    expect(messages.length).toBeGreaterThan(30);
    for (let n = 0; n < 30; n++) {
      const copies = messages.filter((m) => m.message.startsWith(`charge ${n} `));
      expect(copies[0].message).toBe(`charge ${n} variant 0`);
    }
    expect(truth.ledger).toEqual([
      {
        tenant: 'acme',
        accountId: 'a',
        period: '2026-11',
        currency: 'USD',
        total: '3',
        charges: 30,
        status: 'open',
      },
    ]);
  });

  it('eventId conflicts: one pair per tenant, the copy later and 1.5 more, one dead letter each', () => {
    const draft = new SampleDraft(5);
    eventIdConflicts(draft);
    const { messages, truth } = draft.build();
    expect(truth.conflicts).toHaveLength(TENANTS.length);
    expect(truth.deadLetters).toEqual({ 'cost-events': TENANTS.length, 'budget-alerts': 0 });
    for (const pair of truth.conflicts) {
      const first = messages.findIndex((m) => m.message === pair.first.message);
      const second = messages.findIndex((m) => m.message === pair.second.message);
      expect(first).toBeLessThan(second);
      expect(new Big(pair.second.effect.amount).minus(pair.first.effect.amount).toString()).toBe(
        '1.5',
      );
    }
    expect(truth.ledger.map((total) => total.charges)).toEqual([1, 1, 1]);
  });

  it('poison: every message is a dead letter of its stream and books nothing', () => {
    const draft = new SampleDraft(9);
    costPoison(draft);
    alertPoison(draft);
    const { messages, truth } = draft.build();
    expect(truth.deadLetters).toEqual({ 'cost-events': 9, 'budget-alerts': 7 });
    expect(messages).toHaveLength(16);
    expect(messages.every((m) => m.note === 'poison')).toBe(true);
    expect(truth.ledger).toEqual([]);
  });

  it('hidden-state cases: exact totals, a long JSON number kept to the last digit', () => {
    const draft = new SampleDraft(11);
    hiddenStateCases(draft);
    const { messages, truth } = draft.build();
    expect(truth.deadLetters['cost-events']).toBe(2);
    expect(truth.ledger).toEqual([
      {
        tenant: 'acme',
        accountId: '200000000011',
        period: '2026-11',
        currency: 'USD',
        total: '10',
        charges: 1,
        status: 'open',
      },
      {
        tenant: 'acme',
        accountId: '200000000012',
        period: '2026-11',
        currency: 'USD',
        total: '165.9567890123456789',
        charges: 2,
        status: 'open',
      },
      {
        tenant: 'acme',
        accountId: '200000000019',
        period: '2026-11',
        currency: 'USD',
        total: '19.99',
        charges: 1,
        status: 'open',
      },
      {
        tenant: 'initech',
        accountId: 'Compte Général 7',
        period: '2026-11',
        currency: 'USD',
        total: '8.75',
        charges: 1,
        status: 'open',
      },
    ]);
    // Published in sequence: v1, v2, v3 of the line item restated back, in this order.
    const restated = messages.filter((m) => m.note?.startsWith('restated back'));
    expect(restated.map((m) => m.note)).toEqual([
      'restated back v1 = 10',
      'restated back v2 = 20',
      'restated back v3 = 10',
    ]);
  });

  it('GCP budgets of one month: three thresholds and a forecast expected once each', () => {
    const draft = new SampleDraft(13);
    gcpBudgetNotifications(draft, globex, '2026-11');
    const { messages, truth } = draft.build();
    expect(truth.notificationKeys).toHaveLength(4);
    expect(messages.filter((m) => m.note === 'GCP budget periodic update')).toHaveLength(4);
    expect(messages.every((m) => m.topic === 'budget-alerts')).toBe(true);
  });

  it('monthly charges of a tiny sample book every account of every tenant in both months', () => {
    const draft = new SampleDraft(17);
    monthlyCharges(draft, 2);
    const { messages, truth } = draft.build();
    expect(messages.every((m) => m.topic === 'cost-events')).toBe(true);
    const accounts = new Set(truth.ledger.map((total) => total.accountId));
    for (const spec of TENANTS)
      for (const account of spec.awsAccounts) expect(accounts).toContain(account);
    expect(accounts).toContain('billing-9Z8Y7X-LEGACY');
  });
});

describe('ledgerOf', () => {
  it('sums exactly per tenant, account, period and currency', () => {
    const effect = { tenant: 't', accountId: 'a', period: '2026-11', currency: 'USD' };
    expect(
      ledgerOf([
        { ...effect, amount: '0.1' },
        { ...effect, amount: '0.2' },
        { ...effect, currency: 'EUR', amount: '-1.25' },
      ]),
    ).toEqual([
      { ...effect, currency: 'EUR', total: '-1.25', charges: 1 },
      { ...effect, total: '0.3', charges: 2 },
    ]);
  });
});
