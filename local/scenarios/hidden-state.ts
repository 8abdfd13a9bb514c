/**
 * The hidden-state cases: what only exact keys and exact decimals get right. A line item restated
 * back to its first content, one invoice id in NFC and NFD, a zero-width space in an account id, a
 * JSON number longer than a double, a free-form account id, and an amount no total can hold followed
 * by a normal charge of the same partition.
 */
import { COST_STREAM } from '../../contract/streams';
import type { SampleDraft } from './draft';
import type { ChargeEffect } from './sample';

const event = (fields: Record<string, unknown>) =>
  JSON.stringify({
    tenant: 'acme',
    source: 'aws',
    chargePeriodStart: '2026-11-07T00:00:00Z',
    chargeCategory: 'usage',
    currency: 'USD',
    ...fields,
  });

export const hiddenStateCases = (draft: SampleDraft): void => {
  const book = (identity: string, effect: Omit<ChargeEffect, 'period'>) =>
    draft.truth.book(identity, { period: '2026-11', source: 'aws', ...effect });

  // A line item restated back to its first content (v1 = 10, v2 = 20, v3 = 10): v3 is not a copy of v1.
  const restatedBack = (version: number, amount: string) =>
    event({ lineItemId: 'li-restated-back', version, accountId: '200000000011', amount });
  draft.placeInSequence([
    { topic: COST_STREAM, message: restatedBack(1, '10'), note: 'restated back v1 = 10' },
    { topic: COST_STREAM, message: restatedBack(2, '20'), note: 'restated back v2 = 20' },
    { topic: COST_STREAM, message: restatedBack(3, '10'), note: 'restated back v3 = 10' },
  ]);
  book('hidden:restated-back', {
    tenant: 'acme',
    accountId: '200000000011',
    currency: 'USD',
    amount: '10',
  });

  // One invoice id spelled in NFC and in NFD (a replay with its own dedup id): one charge.
  const invoice = 'inv-Müller-Café-0042';
  const invoiceCharge = (eventId: string) =>
    event({ eventId, accountId: '200000000012', resourceId: 'invoice-0042', amount: '42.5' });
  draft.place({
    topic: COST_STREAM,
    message: invoiceCharge(invoice.normalize('NFC')),
    note: 'invoice id in NFC',
  });
  draft.place({
    topic: COST_STREAM,
    message: invoiceCharge(invoice.normalize('NFD')),
    deduplicationId: `replay-${draft.rng.uuid()}`,
    note: 'the same invoice id in NFD',
  });
  book('hidden:unicode-invoice', {
    tenant: 'acme',
    accountId: '200000000012',
    currency: 'USD',
    amount: '42.5',
  });

  // An account id with a zero-width space looks like a real one: rejected, never a second account.
  draft.place({
    topic: COST_STREAM,
    message: event({ eventId: 'evt-zero-width', accountId: '200000000011\u200b', amount: '7' }),
    note: 'poison: account id with U+200B',
  });
  draft.truth.deadLetter(COST_STREAM);

  // A JSON number with more digits than a double holds: booked exactly as written.
  const longNumber = '123.4567890123456789';
  draft.place({
    topic: COST_STREAM,
    message: event({
      eventId: 'evt-long-number',
      accountId: '200000000012',
      amount: '__AMOUNT__',
    }).replace('"__AMOUNT__"', longNumber),
    note: 'JSON number amount with 19 significant digits',
  });
  book('hidden:long-number', {
    tenant: 'acme',
    accountId: '200000000012',
    currency: 'USD',
    amount: longNumber,
  });

  // A free-form account id (a space, non-ASCII letters): booked normally under a derived FIFO group.
  draft.place({
    topic: COST_STREAM,
    message: event({
      tenant: 'initech',
      eventId: 'evt-free-form',
      accountId: 'Compte Général 7',
      amount: '8.75',
    }),
    note: 'account id with a space and non-ASCII letters',
  });
  book('hidden:free-form-account', {
    tenant: 'initech',
    accountId: 'Compte Général 7',
    currency: 'USD',
    amount: '8.75',
  });

  // 38 nines cannot be a charge (no total could hold it): rejected with its reason, and the next
  // charge of the same ledger partition is still applied.
  draft.placeInSequence([
    {
      topic: COST_STREAM,
      message: event({
        eventId: 'evt-38-nines',
        accountId: '200000000019',
        amount: '9'.repeat(38),
      }),
      note: 'poison: amount of 38 nines',
    },
    {
      topic: COST_STREAM,
      message: event({ eventId: 'evt-after-nines', accountId: '200000000019', amount: '19.99' }),
      note: 'charge after the 38 nines, same partition',
    },
  ]);
  draft.truth.deadLetter(COST_STREAM);
  book('hidden:after-nines', {
    tenant: 'acme',
    accountId: '200000000019',
    currency: 'USD',
    amount: '19.99',
  });
};
