import { totalsParts } from '../../../lambda/adapters/export-store';
import { ValidationError } from '../../../lambda/core/errors';
import type { ChargeTotals } from '../../../lambda/core/exports/charge-totals';

const totalsWith = (service: string, accounts: number): ChargeTotals =>
  Object.fromEntries(
    Array.from({ length: accounts }, (_, index) => [
      String(300000000000 + index),
      { USD: { total: '0.01', charges: 1, services: { [service]: '0.01' } } },
    ]),
  );

const isWellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

describe('totalsParts', () => {
  it('keeps small totals in one part', () => {
    expect(totalsParts(totalsWith('EC2', 2), '00000')).toEqual([
      JSON.stringify(totalsWith('EC2', 2)),
    ]);
  });

  it.each([0, 1])(
    'splits large totals into parts under 300 KB of UTF-8 that never cut a surrogate pair (offset %i)',
    (offset) => {
      const totals = totalsWith(`${'x'.repeat(offset)}${'💸'.repeat(400)}`, 400);
      const parts = totalsParts(totals, '00000');
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts) {
        expect(Buffer.byteLength(part)).toBeLessThanOrEqual(300_000);
        expect(isWellFormed(part)).toBe(true);
      }
      expect(JSON.parse(parts.join(''))).toEqual(totals);
    },
  );

  it('refuses totals that cannot fit one transaction, naming the fix', () => {
    expect(() => totalsParts(totalsWith('S'.repeat(4000), 1200), '00003.000000000000')).toThrow(
      ValidationError,
    );
    expect(() => totalsParts(totalsWith('S'.repeat(4000), 1200), '00003.000000000000')).toThrow(
      /lower the sub-chunk rows/,
    );
  });
});
