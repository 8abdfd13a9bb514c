import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Big from 'big.js';
import { runImplementation, type RunOptions } from '../../bench/lib/harness';
import { assessCorrectness, type JournalUnit, type LedgerCell } from '../../bench/lib/verify';
import {
  cellOf,
  DEFAULT_WORKLOAD,
  generateWorkload,
  HOT_WORKLOAD,
  truthTotals,
  type Workload,
} from '../../bench/lib/workload';
import { runBench } from '../../bench/run';

const endpoint = (): string => {
  const value = process.env.DYNAMODB_LOCAL_ENDPOINT;
  if (!value) throw new Error('DYNAMODB_LOCAL_ENDPOINT is not set: run through jest (globalSetup)');
  return value;
};

const TIMING = {
  consumers: 3,
  batchSize: 10,
  leaseMs: 1000,
  retryDelayMs: 50,
  crashRedeliveryMs: 1100,
  maxReceives: 25,
};

const run = (
  overrides: Partial<RunOptions> & Pick<RunOptions, 'implementation' | 'queue' | 'workload'>,
) => runImplementation({ endpoint: endpoint(), ...TIMING, ...overrides });

describe('bench workload', () => {
  const workload = generateWorkload({ ...DEFAULT_WORKLOAD, events: 2000 });

  it('has the configured shares, FIFO groups per tenant and account, and a big.js truth', () => {
    const { counts } = workload;
    expect(counts.new + counts.duplicate + counts.restatement + counts.poison).toBe(2000);
    expect(counts.duplicate / 2000).toBeCloseTo(0.3, 1);
    expect(counts.restatement / 2000).toBeCloseTo(0.1, 1);
    expect(counts.poison).toBeGreaterThan(5);
    expect(new Set(workload.deliveries.map((d) => d.groupId)).size).toBeGreaterThan(20);
    const truth = truthTotals(workload);
    const charges = [...truth.values()].reduce((n, cell) => n + cell.charges, 0);
    expect(charges).toBe(workload.charges.size);
    expect(charges).toBe(counts.new);
  });

  it('is deterministic for a seed', () => {
    const again = generateWorkload({ ...DEFAULT_WORKLOAD, events: 2000 });
    expect(again.deliveries.map((d) => d.body)).toEqual(workload.deliveries.map((d) => d.body));
  });

  it('makes every effect unique within its ledger cell', () => {
    for (const effects of workload.effects.values()) {
      const values = [...effects.keys()];
      expect(new Set(values).size).toBe(values.length);
    }
  });
});

describe('hot-account workload', () => {
  const hot = generateWorkload({ ...HOT_WORKLOAD, events: 1000 });

  it('puts every charge in one ledger cell and one FIFO group, with the default mix', () => {
    expect(new Set([...hot.charges.values()].map((charge) => charge.cell))).toEqual(
      new Set(['TENANT#tenant-1#ACCOUNT#100000000000#PERIOD#2026-11|USD']),
    );
    expect(new Set(hot.deliveries.map((d) => d.groupId)).size).toBe(1);
    expect(hot.counts.duplicate / 1000).toBeCloseTo(DEFAULT_WORKLOAD.duplicateShare, 1);
    expect(hot.counts.restatement).toBeGreaterThan(50);
    const [cell] = truthTotals(hot).values();
    expect(cell.charges).toBe(hot.counts.new);
  });

  it('still makes every effect unique within the one cell', () => {
    const [effects] = hot.effects.values();
    expect(new Set(effects.keys()).size).toBe(effects.size);
  });
});

/** A tiny hand-made workload: one event charge and one line item restated once, in one cell. */
const constructed = (): { workload: Workload; pk: string; cell: string } => {
  const workload = generateWorkload({ ...DEFAULT_WORKLOAD, events: 0 });
  const pk = 'TENANT#t#ACCOUNT#a#PERIOD#2026-11';
  const cell = cellOf(pk, 'USD');
  workload.charges.set('e', {
    id: 'e',
    cell,
    identityKind: 'event',
    amounts: new Map([[0, '10.5']]),
  });
  workload.charges.set('l', {
    id: 'l',
    cell,
    identityKind: 'line-item',
    amounts: new Map([
      [1, '3.25'],
      [2, '4'],
    ]),
  });
  workload.chargeByIdentity.set('event|evt-1', 'e');
  workload.chargeByIdentity.set('line-item|li-1', 'l');
  workload.effects.set(
    cell,
    new Map([
      ['1:10.5', { chargeId: 'e', to: 0, delta: '10.5', charges: 1 }],
      ['1:3.25', { chargeId: 'l', to: 1, delta: '3.25', charges: 1 }],
      ['1:4', { chargeId: 'l', to: 2, delta: '4', charges: 1 }],
      ['0:0.75', { chargeId: 'l', from: 1, to: 2, delta: '0.75', charges: 0 }],
    ]),
  );
  return { workload, pk, cell };
};

const add = (pk: string, delta: string, charges = 1): JournalUnit => ({
  totals: [{ pk, currency: 'USD', delta, charges: String(charges) }],
  puts: [],
});
const ledgerOf = (pk: string, journal: JournalUnit[]): LedgerCell[] => [
  {
    pk,
    currency: 'USD',
    total: journal
      .flatMap((unit) => unit.totals)
      .reduce((sum, change) => sum.plus(change.delta), new Big(0))
      .toString(),
    charges: journal
      .flatMap((unit) => unit.totals)
      .reduce((n, change) => n + Number(change.charges), 0),
  },
];

describe('crash accounting (constructed cases)', () => {
  it('counts nothing when every effect is committed once', () => {
    const { workload, pk } = constructed();
    const journal = [add(pk, '10.5'), add(pk, '3.25'), add(pk, '0.75', 0)];
    expect(assessCorrectness(workload, journal, ledgerOf(pk, journal))).toEqual({
      doubleApplied: 0,
      lost: 0,
      misapplied: 0,
      unattributed: 0,
      cellsWrong: 0,
      moneyError: '0',
      journalMatchesLedger: true,
    });
  });

  it('counts a baseline re-run after a crash between the total ADD and COMPLETED as one double-apply', () => {
    const { workload, pk } = constructed();
    const journal = [add(pk, '10.5'), add(pk, '10.5'), add(pk, '3.25'), add(pk, '0.75', 0)];
    const result = assessCorrectness(workload, journal, ledgerOf(pk, journal));
    expect(result).toMatchObject({ doubleApplied: 1, lost: 0, cellsWrong: 1, moneyError: '10.5' });
    expect(result.journalMatchesLedger).toBe(true);
  });

  it('counts a restatement whose ADD never happened as one lost charge', () => {
    const { workload, pk } = constructed();
    const journal = [add(pk, '10.5'), add(pk, '3.25')];
    expect(assessCorrectness(workload, journal, ledgerOf(pk, journal))).toMatchObject({
      doubleApplied: 0,
      lost: 1,
      cellsWrong: 1,
      moneyError: '0.75',
    });
  });

  it('counts a line item whose first ADD was lost before its restatement applied as lost', () => {
    const { workload, pk } = constructed();
    // v1's charge was put but its ADD never happened; v2 then read v1 and added the delta only.
    const journal = [add(pk, '10.5'), add(pk, '0.75', 0)];
    expect(assessCorrectness(workload, journal, ledgerOf(pk, journal))).toMatchObject({
      doubleApplied: 0,
      lost: 1,
      misapplied: 0,
      moneyError: '3.25',
    });
  });

  it('decomposes a grouped transaction (summed ADD) into the effects of the charges it wrote', () => {
    const { workload, pk } = constructed();
    const grouped: JournalUnit = {
      totals: [{ pk, currency: 'USD', delta: '13.75', charges: '2' }],
      puts: [
        { pk, currency: 'USD', identityKind: 'event', identityId: 'evt-1', version: 0 },
        { pk, currency: 'USD', identityKind: 'line-item', identityId: 'li-1', version: 1 },
      ],
    };
    const restated: JournalUnit = {
      totals: [{ pk, currency: 'USD', delta: '0.75', charges: '0' }],
      puts: [{ pk, currency: 'USD', identityKind: 'line-item', identityId: 'li-1', version: 2 }],
    };
    const journal = [grouped, restated, restated];
    expect(assessCorrectness(workload, journal, ledgerOf(pk, journal))).toMatchObject({
      doubleApplied: 1,
      lost: 0,
      unattributed: 0,
    });
  });

  it('flags a ledger that disagrees with its own journal', () => {
    const { workload, pk } = constructed();
    const journal = [add(pk, '10.5'), add(pk, '3.25'), add(pk, '0.75', 0)];
    const ledger = [{ pk, currency: 'USD', total: '1', charges: 2 }];
    expect(assessCorrectness(workload, journal, ledger).journalMatchesLedger).toBe(false);
  });
});

describe('bench harness against DynamoDB Local', () => {
  const workload = generateWorkload({ ...DEFAULT_WORKLOAD, events: 300, seed: 42 });
  const clean = { doubleApplied: 0, lost: 0, misapplied: 0, unattributed: 0, cellsWrong: 0 };

  const hot = generateWorkload({ ...HOT_WORKLOAD, events: 300, seed: 42 });

  it.each([
    ['ours', 'standard', 'default'],
    ['baseline', 'standard', 'default'],
    ['ours', 'fifo', 'default'],
    ['baseline', 'fifo', 'default'],
    ['ours', 'standard', 'hot'],
    ['ours', 'fifo', 'hot'],
  ] as const)(
    '%s on the %s queue produces the ledger truth without faults (%s workload)',
    async (implementation, queue, name) => {
      const chosen = name === 'hot' ? hot : workload;
      const result = await run({
        implementation,
        queue,
        workload: chosen,
        // The function's real timeout: with the compressed one a slow machine outlives the baseline's
        // in-progress lease, and it double-applies without any fault. The hot account with 8 environments.
        leaseMs: 30_000,
        ...(name === 'hot' ? { consumers: 8 } : {}),
      });
      expect(result.correctness).toMatchObject({
        ...clean,
        moneyError: '0',
        journalMatchesLedger: true,
      });
      expect(result.dlqSends).toBe(chosen.counts.poison);
      expect(result.handlerCpuMs).toBeGreaterThan(0);
      expect(result.redriven).toBe(0);
      expect(result.totalRequests).toBeGreaterThan(0);
      expect(result.billedWcu).toBeGreaterThanOrEqual(result.reportedWcu);
    },
  );

  it('ours: no double-applied or lost charge at a 5% crash rate', async () => {
    const crashWorkload = generateWorkload({ ...DEFAULT_WORKLOAD, events: 500, seed: 7 });
    let crashes = 0;
    for (const [queue, mode] of [
      ['standard', 'mid-batch'],
      ['standard', 'ack-lost'],
      ['fifo', 'mid-batch'],
    ] as const) {
      const result = await run({
        implementation: 'ours',
        queue,
        workload: crashWorkload,
        crash: { mode, rate: 0.05, writesPerInvocation: 3, seed: 11 },
      });
      crashes += result.crashes;
      expect(result.correctness).toMatchObject({ ...clean, journalMatchesLedger: true });
    }
    expect(crashes).toBeGreaterThan(0);
  }, 120_000);
});

describe('bench report', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes latest.json and latest.md with every figure and the goals (tiny run)', async () => {
    const report = await runBench({
      events: 100,
      hotEvents: 60,
      reps: 2,
      crashEvents: 100,
      crashRates: [0.05],
      consumers: 2,
      hotConsumers: 4,
      seed: 5,
      out,
      initSamples: 1,
      quiet: true,
      endpoint: endpoint(),
    });
    const written = JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8'));
    expect(written).toEqual(JSON.parse(JSON.stringify(report)));
    expect(written.goals.map((goal: { id: string }) => goal.id)).toEqual([
      'crash-correctness',
      'throughput-default-standard',
      'requests-default-standard',
      'wcu-default-standard',
      'cost-default-standard',
      'cpu-default-standard',
      'throughput-default-fifo',
      'requests-default-fifo',
      'wcu-default-fifo',
      'cpu-default-fifo',
      'throughput-hot-standard',
      'wcu-hot-standard',
      'throughput-hot-fifo',
      'init-overhead',
    ]);
    for (const goal of written.goals)
      expect(Object.keys(goal).sort()).toEqual(['description', 'id', 'measured', 'met', 'target']);
    const figures = written.throughput.default.standard.ours;
    expect(figures.events).toBe(100);
    for (const key of ['requestsPerEvent', 'cpuMsPerThousandEvents'])
      expect(figures[key]).toBeGreaterThan(0);
    expect(figures.costUsdPerMillionEvents.total).toBeGreaterThan(0);
    expect(written.crash.map((row: { workload: string }) => row.workload)).toContain('hot');
    expect(
      written.init.handlers.ours.shapes.map(
        (s: { format: string; sdk: string }) => s.format + s.sdk,
      ),
    ).toEqual(['esmexternal', 'esmbundled', 'cjsexternal', 'cjsbundled']);
    const markdown = readFileSync(path.join(out, 'latest.md'), 'utf8');
    expect(markdown).toMatch(/\| events\/s \(median of 2\) +\|/);
    expect(markdown).toContain('### Goals');
  }, 240_000);
});
