import Big from 'big.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInputFile, type RunStep } from '../../../local/input-file';
import { StepRunner, sampleSteps } from '../../../local/phases/steps';
import { reconciliationAgainstTruth } from '../../../local/report/reconciliation-check';
import { generateSample } from '../../../local/scenarios/generator';
import { providerReconciliation, UNBOOKED_ACCOUNT } from '../../../local/scenarios/reconciliation';

const folder = mkdtempSync(join(tmpdir(), 'local-reconciliation-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const inputOf = (lines: string[]) => {
  const file = join(folder, `input-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, lines.join('\n'));
  return readInputFile(file);
};

describe('input file: providerTotal and reconcile lines', () => {
  it('keeps them in file order among the messages, normalized', () => {
    const input = inputOf([
      '{"topic":"cost-events","message":"x"}',
      '{"providerTotal":{"tenant":"Acme","accountId":" 600000000001 ","period":"2026-11","currency":"usd","amount":"12.30"}}',
      '{"reconcile":{"period":"2026-11"}}',
      '{"topic":"cost-events","message":"y"}',
    ]);
    expect(input.skipped).toEqual([]);
    expect(input.steps).toEqual<RunStep[]>([
      { kind: 'messages', messages: [expect.objectContaining({ message: 'x', line: 1 })] },
      {
        kind: 'providerTotal',
        total: {
          tenant: 'acme',
          accountId: '600000000001',
          period: '2026-11',
          currency: 'USD',
          amount: '12.3',
        },
        line: 2,
      },
      { kind: 'reconcile', period: '2026-11', line: 3 },
      { kind: 'messages', messages: [expect.objectContaining({ message: 'y', line: 4 })] },
    ]);
  });

  it('skips a bad line with its line number and the field at fault', () => {
    const input = inputOf([
      '{"topic":"cost-events","message":"x"}',
      '{"providerTotal":{"tenant":"acme","accountId":"1","period":"2026-13","currency":"USD","amount":"1"}}',
      '{"providerTotal":{"tenant":"acme","accountId":"1","period":"2026-11","currency":"USD","amount":"ten"}}',
      '{"providerTotal":{"tenant":"acme","period":"2026-11","currency":"USD","amount":"1"}}',
      '{"reconcile":{"period":"November"}}',
      '{"reconcile":{"period":"2026-11"},"topic":"cost-events"}',
    ]);
    expect(input.steps?.map((step) => step.kind)).toEqual(['messages']);
    expect(input.skipped.map((problem) => problem.line)).toEqual([2, 3, 4, 5, 6]);
    const [period, amount, account, reconcile, extra] = input.skipped.map((p) => p.error);
    expect(period).toMatch('providerTotal.period must be YYYY-MM');
    expect(amount).toMatch('providerTotal.amount');
    expect(account).toMatch('providerTotal.accountId must be a non-empty string');
    expect(reconcile).toMatch('reconcile.period must be YYYY-MM');
    expect(extra).toMatch('a reconcile line holds only "reconcile"');
  });
});

describe('step runner: provider totals and reconcile', () => {
  it('tells the stand-in each total and settles before reconciling', async () => {
    const calls: string[] = [];
    const runner = new StepRunner({
      publisher: { targets: new Map(), publish: () => Promise.reject(new Error('unused')) },
      deliverExport: () => Promise.reject(new Error('unused')),
      settle: () => {
        calls.push('settle');
        return Promise.resolve();
      },
      periodAction: () => Promise.reject(new Error('unused')),
      providerTotal: (total) => calls.push(`total ${total.accountId}`),
      reconcile: (period) => {
        calls.push(`reconcile ${period}`);
        return period === '2026-10' ? Promise.reject(new Error('boom')) : Promise.resolve();
      },
      onExportProblem: () => undefined,
      onPeriodProblem: (problem) => calls.push(`problem line ${problem.line}: ${problem.error}`),
    });
    const total = { tenant: 'a', accountId: '1', period: '2026-11', currency: 'USD', amount: '1' };
    await runner.run([
      { kind: 'providerTotal', total },
      { kind: 'reconcile', period: '2026-11' },
      { kind: 'reconcile', period: '2026-10', line: 9 },
    ]);
    expect(calls).toEqual([
      'total 1',
      'settle',
      'reconcile 2026-11',
      'settle',
      'reconcile 2026-10',
      'problem line 9: reconcile 2026-10 failed: boom',
    ]);
  });
});

describe('sample: provider totals and the expected reconciliation', () => {
  const sample = generateSample({ seed: 42 });

  it('ends with the provider totals and one reconcile step, after the closing', () => {
    const steps = sampleSteps(sample.messages, [], sample.closing, sample.reconciliation);
    const kinds = steps.map((step) => step.kind);
    const firstTotal = kinds.indexOf('providerTotal');
    expect(kinds.lastIndexOf('period')).toBeLessThan(firstTotal);
    expect(kinds.slice(firstTotal)).toEqual([
      ...(sample.reconciliation?.totals ?? []).map(() => 'providerTotal'),
      'reconcile',
    ]);
  });

  it('expects one row within tolerance, one drifting and one missing on each side, from its ledger truth', () => {
    const expected = sample.truth.reconciliation ?? [];
    const statuses = expected.map((row) => row.status);
    expect(statuses.filter((s) => s === 'drift')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'missing-at-provider')).toHaveLength(1);
    expect(expected.find((row) => row.status === 'missing-in-ledger')?.accountId).toBe(
      UNBOOKED_ACCOUNT,
    );
    // Within tolerance but not equal: the largest account, 0.05 % off.
    const within = expected.filter((row) => row.status === 'ok' && row.ledger !== row.provider);
    expect(within).toHaveLength(1);
    const ratio =
      (Number(within[0].provider) - Number(within[0].ledger)) / Number(within[0].ledger);
    expect(ratio).toBeGreaterThan(0.0004);
    expect(ratio).toBeLessThan(0.001);
    // Every ledger row of the month has a row.
    const period = sample.reconciliation?.period;
    expect(expected.length).toBe(sample.truth.ledger.filter((r) => r.period === period).length + 1);
  });

  it('refuses to reconcile the month of the eventId conflicts (their winner is the run’s)', () => {
    expect(() => providerReconciliation(sample.truth, '2026-11')).toThrow('conflicts');
  });
});

describe('verdict: reconciliation against the truth', () => {
  const expected = providerReconciliation(generateSample({ seed: 42 }).truth).expected;
  const rows = expected.map((row) => ({
    ...row,
    difference: new Big(row.ledger).minus(row.provider).toString(),
  }));

  it('passes when the rows are the expected ones', () => {
    expect(reconciliationAgainstTruth(expected, rows)).toMatchObject({ ok: true });
  });

  it('fails on a status the truth does not expect, a missing row, or no reconcile step', () => {
    const drift = rows.findIndex((row) => row.status === 'drift');
    const wrong = rows.map((row, i) => (i === drift ? { ...row, status: 'ok' as const } : row));
    expect(reconciliationAgainstTruth(expected, wrong).ok).toBe(false);
    expect(reconciliationAgainstTruth(expected, rows.slice(1)).ok).toBe(false);
    // Even a truth that expects no drift fails: the sample must show each case.
    const okOnly = expected.filter((row) => row.status === 'ok');
    expect(
      reconciliationAgainstTruth(
        okOnly,
        rows.filter((row) => row.status === 'ok'),
      ).ok,
    ).toBe(false);
    expect(reconciliationAgainstTruth(expected, undefined)).toMatchObject({
      ok: false,
      detail: expect.stringContaining('no reconcile step ran') as string,
    });
  });
});
