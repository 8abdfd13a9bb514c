import { chunkTotalsLayout } from '../../../lambda/adapters/export-store';
import { jsonArrayPieces, textPages } from '../../../lambda/adapters/text-pages';
import type { ChargeTotals } from '../../../lambda/core/exports/charge-totals';

const totalsWith = (service: string, accounts: number): ChargeTotals =>
  Object.fromEntries(
    Array.from({ length: accounts }, (_, index) => [
      String(300000000000 + index),
      { USD: { total: '0.01', charges: 1, services: { [service]: '0.01' } } },
    ]),
  );

const isWellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

describe('chunkTotalsLayout', () => {
  it('keeps small totals in the CHUNK item', () => {
    expect(chunkTotalsLayout(totalsWith('EC2', 2))).toEqual({
      inline: JSON.stringify(totalsWith('EC2', 2)),
    });
  });

  it.each([0, 1])(
    'pages large totals under 300 KB of UTF-8 that never cut a surrogate pair (offset %i)',
    (offset) => {
      const totals = totalsWith(`${'x'.repeat(offset)}${'💸'.repeat(400)}`, 400);
      const layout = chunkTotalsLayout(totals);
      if (!('pages' in layout)) throw new Error('not paged');
      expect(layout.pages.length).toBeGreaterThan(1);
      for (const page of layout.pages) {
        expect(Buffer.byteLength(page)).toBeLessThanOrEqual(300_000);
        expect(isWellFormed(page)).toBe(true);
      }
      expect(JSON.parse(layout.pages.join(''))).toEqual(totals);
    },
  );

  it('pages totals of any size (more than the 12 parts a transaction could carry)', () => {
    const totals = totalsWith('S'.repeat(4000), 1200);
    const layout = chunkTotalsLayout(totals);
    if (!('pages' in layout)) throw new Error('not paged');
    expect(layout.pages.length).toBeGreaterThan(12);
    expect(JSON.parse(layout.pages.join(''))).toEqual(totals);
  });

  it('names the pages by their content: other totals of the same chunk get other keys', () => {
    const a = chunkTotalsLayout(totalsWith('S'.repeat(4000), 100));
    const b = chunkTotalsLayout(totalsWith('T'.repeat(4000), 100));
    const again = chunkTotalsLayout(totalsWith('S'.repeat(4000), 100));
    if (!('pages' in a) || !('pages' in b) || !('pages' in again)) throw new Error('not paged');
    expect(a.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(a.digest).not.toBe(b.digest);
    expect(again.digest).toBe(a.digest);
  });
});

describe('textPages', () => {
  it('cuts the text the pieces make into pages of at most the budget, joined back exactly', () => {
    const values = Array.from({ length: 500 }, (_, index) => ({
      index,
      name: `€${'ü'.repeat(index % 7)}${'😀'.repeat(index % 3)}`,
    }));
    const pages = [...textPages(jsonArrayPieces(values), 64)];
    expect(pages.length).toBeGreaterThan(100);
    for (const page of pages) {
      expect(Buffer.byteLength(page)).toBeLessThanOrEqual(64);
      expect(isWellFormed(page)).toBe(true);
    }
    expect(JSON.parse(pages.join(''))).toEqual(values);
  });

  it('gives no page for an empty text and one page for a small one', () => {
    expect([...textPages([], 10)]).toEqual([]);
    expect([...textPages(jsonArrayPieces([]), 10)]).toEqual(['[]']);
  });
});
