import {
  CORRECTION_SOURCE,
  correctionMessage,
  lateCorrections,
} from '../../../lambda/core/exports/late-corrections';
import { parseCharge } from '../../../lambda/core/cost-processor';
import { ledgerLayout } from '../../../lambda/adapters/table-layout';

describe('lateCorrections', () => {
  it('is new part − pinned part per currency, exact, including a currency only one side has', () => {
    expect(
      lateCorrections([
        {
          accountId: '2',
          pinned: { USD: { total: '10.000000000000000001' } },
          next: { USD: { total: '10.1' }, EUR: { total: '3' } },
          otherCurrencies: [],
        },
        { accountId: '1', pinned: { USD: { total: '4' } }, next: {}, otherCurrencies: [] },
      ]),
    ).toEqual([
      { accountId: '1', currency: 'USD', amount: '-4' },
      { accountId: '2', currency: 'EUR', amount: '3' },
      { accountId: '2', currency: 'USD', amount: '0.099999999999999999' },
    ]);
  });

  it('restates a currency that only the previous snapshot had back to zero', () => {
    expect(
      lateCorrections([{ accountId: '1', pinned: {}, next: {}, otherCurrencies: ['GBP', 'GBP'] }]),
    ).toEqual([{ accountId: '1', currency: 'GBP', amount: '0' }]);
  });
});

describe('correctionMessage', () => {
  const context = {
    tenant: 'acme',
    source: 'exports/acme/focus',
    period: '2026-12',
    sequence: 4,
    executionId: 'e4',
    pinnedExecutionId: 'e1',
  };

  it('is a line-item correction of the period the cost consumer accepts, versioned by the switch', () => {
    const message = correctionMessage(
      { accountId: '200000000011', currency: 'USD', amount: '-2.5' },
      context,
    );
    const charge = parseCharge(ledgerLayout(), {
      messageId: 'm',
      body: JSON.stringify(message),
    });
    expect(charge.event).toMatchObject({
      tenant: 'acme',
      source: CORRECTION_SOURCE,
      accountId: '200000000011',
      lineItemId: 'export-correction:exports/acme/focus:200000000011:2026-12:USD',
      version: 4,
      chargePeriodStart: '2026-12-01T00:00:00.000Z',
      chargePeriodEnd: '2027-01-01T00:00:00.000Z',
      chargeCategory: 'adjustment',
      chargeClass: 'correction',
      amount: '-2.5',
      currency: 'USD',
    });
    expect(charge.identity).toMatchObject({ kind: 'line-item', version: 4 });
  });

  it('names the same charge at every switch (only the version moves)', () => {
    const layout = ledgerLayout();
    const refOf = (sequence: number, amount: string) =>
      parseCharge(layout, {
        messageId: 'm',
        body: JSON.stringify(
          correctionMessage({ accountId: '1', currency: 'USD', amount }, { ...context, sequence }),
        ),
      }).ref;
    expect(refOf(5, '1')).toEqual(refOf(4, '7'));
  });
});
