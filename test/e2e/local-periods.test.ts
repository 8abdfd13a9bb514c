/**
 * `npm start -- --input FILE` with `close` and `reopen` lines: everything before a close is in the
 * closed total, everything after meets the closed period (roll-forward by default), a reopen lets later
 * lines land in the period again, and a period line that cannot be applied is a skipped line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readInputFile } from '../../local/input-file';
import { summaryText } from '../../local/report/run-report';
import { runLocal } from '../../local/phases/run-local';

const A = '200000000011';
const B = '200000000012';

const charge = (
  fields: Record<string, unknown>,
  accountId = A,
  start = '2026-10-03T10:00:00Z',
) => ({
  topic: 'cost-events',
  message: {
    tenant: 'acme',
    source: 'aws',
    accountId,
    chargePeriodStart: start,
    chargeCategory: 'usage',
    currency: 'USD',
    ...fields,
  },
});

const writeInput = (lines: unknown[]): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-periods-'));
  const file = path.join(dir, 'input.jsonl');
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
};

describe('close and reopen lines', () => {
  it('parse with their line numbers; a reopen without a reason or an unknown field is a bad line', () => {
    const file = writeInput([
      { close: { tenant: ' ACME ', accountId: A, period: '2026-10' } },
      { reopen: { tenant: 'acme', accountId: A, period: '2026-10', reason: 'reissued' } },
      { reopen: { tenant: 'acme', accountId: A, period: '2026-10' } },
      { close: { tenant: 'acme', accountId: A, period: '2026-13' } },
      { close: { tenant: 'acme', accountId: A, period: '2026-10', by: 'me' } },
      { close: { tenant: 'acme', accountId: A, period: '2026-10' }, topic: 'cost-events' },
    ]);
    const input = readInputFile(file);
    expect(input.steps).toEqual([
      {
        kind: 'period',
        period: {
          action: 'close',
          key: { tenant: 'acme', accountId: A, period: '2026-10' },
          reason: 'closed by the local run',
          line: 1,
        },
      },
      {
        kind: 'period',
        period: {
          action: 'reopen',
          key: { tenant: 'acme', accountId: A, period: '2026-10' },
          reason: 'reissued',
          line: 2,
        },
      },
    ]);
    expect(input.skipped).toEqual([
      { line: 3, error: '"reopen.reason" is required: a reopen is always explained' },
      { line: 4, error: '"close.period" must be a YYYY-MM month' },
      { line: 5, error: expect.stringMatching(/^"close" has unknown field\(s\) by/) },
      { line: 6, error: 'a close line holds only "close" (no topic or message)' },
    ]);
  });
});

describe('npm start -- --input with period lines', () => {
  it('lines after a close meet the closed period; after a reopen they land in it again', async () => {
    const file = writeInput([
      charge({ eventId: 'e-1', amount: '1.25' }),
      charge({ lineItemId: 'li-1', version: 1, amount: '10' }),
      charge({ eventId: 'b-1', amount: '3' }, B),
      { close: { tenant: 'acme', accountId: A, period: '2026-10', reason: 'October invoice' } },
      { close: { tenant: 'acme', accountId: B, period: '2026-10' } },
      charge({ eventId: 'e-late', amount: '2.5' }, A, '2026-10-30T00:00:00Z'),
      charge({ lineItemId: 'li-1', version: 2, amount: '12' }),
      { ...charge({ eventId: 'e-1', amount: '1.25' }), deduplicationId: 'late-replay-1' },
      charge({ eventId: 'e-nov', amount: '1' }, A, '2026-11-04T00:00:00Z'),
      { close: { tenant: 'acme', accountId: A, period: '2026-10' } },
      { reopen: { tenant: 'acme', accountId: B, period: '2026-10', reason: 'credit note' } },
      charge({ eventId: 'b-2', amount: '4' }, B),
    ]);
    const { report, exitCode } = await runLocal({
      outputsFile: false,
      handlerLogFile: false,
      input: file,
    });
    const row = (accountId: string, period: string) =>
      report.ledger.find((t) => t.accountId === accountId && t.period === period);
    // Closed with e-1 and li-1 v1; the late charge and li-1's difference counted in November.
    expect(row(A, '2026-10')).toMatchObject({ total: '11.25', charges: 2, status: 'closed' });
    expect(row(A, '2026-10')?.corrections).toBeUndefined();
    expect(row(A, '2026-11')).toMatchObject({
      total: '5.5',
      charges: 2,
      status: 'open',
      corrections: [{ of: '2026-10', total: '4.5', charges: 1 }],
    });
    expect(row(B, '2026-10')).toMatchObject({ total: '7', charges: 2, status: 'open' });
    expect(report.streams['cost-events']).toMatchObject({ duplicates: 1, rejected: 0 });
    // Closing a closed period is a skipped line: the run fails on it, and only on it.
    expect(report.run.input?.skipped).toEqual([
      { line: 10, error: expect.stringMatching(/^close failed: .*already closed/) },
    ]);
    expect(report.verdict.checks.filter((check) => !check.ok).map((check) => check.name)).toEqual([
      'input',
    ]);
    expect(exitCode).toBe(1);
    expect(summaryText(report)).toMatch(
      new RegExp(`acme\\s+${A}\\s+2026-11\\s+USD\\s+5\\.5\\s+2\\s+open\\s+4\\.5 of 2026-10`),
    );
  }, 180_000);
});
