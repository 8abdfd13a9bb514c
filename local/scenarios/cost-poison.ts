/** Cost-stream poison: never retried, never dropped; each lands in the DLQ once with its reason. */
import { COST_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import type { Rendered } from './sample';
import { snsWrap } from './spelling';

const FIXED_POISON: readonly Rendered[] = [
  { message: 'not json at all {' },
  { message: '[1, 2, 3]' },
  { message: JSON.stringify({ hello: 'world' }) },
  {
    message: JSON.stringify({
      ProviderName: 'AWS',
      SubAccountId: '200000000011',
      ChargePeriodStart: '2026-11-03T00:00:00Z',
      ChargeCategory: 'Usage',
      BillingCurrency: 'USD',
    }),
    attributes: { tenant: 'acme' },
  },
  {
    message: JSON.stringify({
      tenant: 'globex',
      source: 'aws',
      accountId: '300000000021',
      chargePeriodStart: '2026-11-04T00:00:00Z',
      chargeCategory: 'usage',
      amount: 'twelve',
      currency: 'EUR',
    }),
  },
  {
    message: JSON.stringify({
      tenant: 'acme',
      source: 'aws',
      accountId: '200000000012',
      chargePeriodStart: '2026-10-04T00:00:00Z',
      chargeCategory: 'usage',
      amount: '1.0000000000000000001',
      currency: 'USD',
    }),
  },
  {
    message: JSON.stringify({
      account_id: 'billing-1',
      sku_id: 'X',
      usage_start_time: '2026-11-02T10:00:00Z',
      cost_type: 'bogus',
      amount: 1,
      currency: 'USD',
    }),
    attributes: { tenant: 'initech' },
  },
  {
    message: JSON.stringify({
      tenant: 'acme',
      source: 'aws',
      accountId: '200000000011',
      chargePeriodStart: '2026-11-05T00:00:00Z',
      chargeCategory: 'usage',
      amount: '3',
      currency: 'DOLLARS',
    }),
  },
];

export const costPoison = (draft: SampleDraft): void => {
  const poison: Rendered[] = [
    ...FIXED_POISON,
    {
      // A body shaped like an SNS envelope claiming another tenant: never booked to globex (nor to acme).
      message: snsWrap(
        draft.rng,
        JSON.stringify({
          source: 'aws',
          accountId: '300000000021',
          chargePeriodStart: '2026-11-06T00:00:00Z',
          chargeCategory: 'usage',
          amount: '5',
          currency: 'EUR',
        }),
        { tenant: 'globex' },
      ),
      attributes: { tenant: 'acme' },
    },
  ];
  for (const rendered of poison) {
    draft.place({ topic: COST_STREAM, ...rendered, note: 'poison' });
    draft.truth.deadLetter(COST_STREAM);
  }
};
