/**
 * Property: the normalized event does not depend on key order or on how a number is written
 * (number vs string, trailing zeros), and it never contains transport or export metadata.
 */
import fc from 'fast-check';
import { parseCostEvent } from '../../../lambda/core/formats';
import { fixtureJson, fixtureText, record } from './helpers';

type Json = Record<string, unknown>;

const shuffle = (object: Json, order: number[]): Json => {
  const entries = Object.entries(object);
  const keyed = entries.map((entry, index) => ({
    entry,
    rank: order[index % order.length] ?? 0,
    index,
  }));
  keyed.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return Object.fromEntries(keyed.map(({ entry }) => entry));
};

/** Exact decimal text `intPart.fraction` written in one of several equivalent ways. */
const spellings = (integer: number, fraction: string): fc.Arbitrary<string | number> => {
  const text = fraction === '' ? String(integer) : `${integer}.${fraction}`;
  return fc.constantFrom<string | number>(
    text,
    `${text}${fraction === '' ? '.' : ''}000`,
    ` ${text} `,
    Number(text),
  );
};

describe('normalization invariance', () => {
  const canonical = fixtureJson('canonical-cost-event.json');
  const focus = JSON.parse(fixtureText('focus-rows.jsonl').split('\n')[0]) as Json;

  it('canonical: key order and amount spelling', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99999 }),
        fc.stringMatching(/^\d{0,6}[1-9]$|^$/),
        fc.array(fc.integer(), { minLength: 1, maxLength: 30 }),
        (integer, fraction, order) => {
          const reference = parseCostEvent(
            record({
              ...canonical,
              amount: fraction === '' ? String(integer) : `${integer}.${fraction}`,
            }),
          ).event;
          fc.assert(
            fc.property(spellings(integer, fraction), (amount) => {
              const message = shuffle({ ...canonical, amount }, order);
              expect(parseCostEvent(record(message)).event).toStrictEqual(reference);
            }),
            { numRuns: 4 },
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('FOCUS: export metadata and column order never change the event', () => {
    const reference = parseCostEvent(record(focus)).event;
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { minLength: 1, maxLength: 40 }),
        fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }),
        fc.string(),
        (order, exported, extra) => {
          const row = shuffle(
            {
              ...focus,
              x_ExportDateTime: exported.toISOString(),
              x_Custom: extra,
              EffectiveCost: '1',
            },
            order,
          );
          expect(parseCostEvent(record(row)).event).toStrictEqual(reference);
        },
      ),
      { numRuns: 200 },
    );
  });
});
