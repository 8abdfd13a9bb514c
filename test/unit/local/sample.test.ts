import { createHash } from 'node:crypto';
import { generateSample } from '../../../local/generator';

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

describe('generateSample', () => {
  it('reproduces the documented seed-42 sample exactly (messages, order and truth)', () => {
    // A change here changes what `npm start` publishes and judges: make it on purpose, and say so.
    const sample = generateSample({ seed: 42 });
    expect(sample.messages).toHaveLength(2056);
    expect(sample.truth.deadLetters).toEqual({ 'cost-events': 14, 'budget-alerts': 5 });
    expect(sample.truth.notificationKeys).toHaveLength(53);
    expect(digest(sample.messages)).toBe(
      'bae25f0429cc46bd3e7f6359ceb7b0ce6bd8ad762f222de74221eaaa9a1237ca',
    );
    expect(digest(sample)).toBe('73bb7d63d839e9c35144f79de881d5b4d56fc7a673309fc10a66187addac1c10');
  });

  it('adds billing exports without moving a stream message: a re-export, a repeated manifest, three formats, bad rows', () => {
    const sample = generateSample({ seed: 42 });
    expect(
      (sample.exports ?? []).map((d) => [d.executionId, d.files.map((f) => f.name).join(' ')]),
    ).toEqual([
      ['acme-2026-11-e1', 'part-1.csv part-2.csv.gz part-3.parquet'],
      ['acme-2026-11-e1', 'part-1.csv part-2.csv.gz part-3.parquet'],
      ['globex-2026-10-e1', 'part-1.csv'],
      ['acme-2026-11-e2', 'part-1.csv part-2.csv.gz part-3.parquet'],
    ]);
    const rows = (sample.exports ?? []).flatMap((d) => d.files.flatMap((f) => f.rows));
    expect(rows.some((row) => row.kind === 'malformed')).toBe(true);
    expect(rows.some((row) => row.kind === 'null-cost')).toBe(true);
    expect(rows.some((row) => row.kind === 'valid' && row.service === null)).toBe(true);
    expect(sample.truth.exports?.map((e) => [e.executionId, e.status])).toEqual([
      ['acme-2026-11-e1', 'superseded'],
      ['acme-2026-11-e2', 'current'],
      ['globex-2026-10-e1', 'current'],
    ]);
    // The export-only account is in the truth with the re-export's rows only.
    const exportOnly = sample.truth.ledger.find((t) => t.accountId === '200000000099');
    const latest = (sample.exports ?? [])[3].files
      .flatMap((f) => f.rows)
      .filter((row) => row.kind === 'valid' && row.account === '200000000099');
    expect(exportOnly?.charges).toBe(latest.length);
  });

  it('is a function of the seed and the size', () => {
    expect(digest(generateSample({ seed: 7, chargesPerAccountMonth: 3 }))).toBe(
      digest(generateSample({ seed: 7, chargesPerAccountMonth: 3 })),
    );
    expect(digest(generateSample({ seed: 8, chargesPerAccountMonth: 3 }))).not.toBe(
      digest(generateSample({ seed: 7, chargesPerAccountMonth: 3 })),
    );
  });
});
