import { crashRow, crashTotal, PRICING, sumCounts, summarize } from '../../bench/lib/report';
import { crashRowOf, runResultOf } from './support/report-fixture';

describe('bench report: summary of the runs', () => {
  const runs = [
    runResultOf({ eventsPerSecond: 3000 }),
    runResultOf({
      eventsPerSecond: 1000,
      events: 300,
      receives: 330,
      invocations: 30,
      writesPerInvocation: 4,
      requests: { TransactWriteItems: 240, GetItem: 30 },
      totalRequests: 270,
      reportedRcu: 75,
      reportedWcu: 450,
      billedRcu: 150,
      billedWcu: 600,
      cancelledTransactionWcu: 80,
      failedConditionalWrites: 3,
      cancelledTransactions: 2,
      correctness: { ...runResultOf().correctness, doubleApplied: 1, cellsWrong: 2 },
    }),
    runResultOf({ eventsPerSecond: 2000, correctness: { ...runResultOf().correctness, lost: 4 } }),
  ];

  it('takes the median of the repetitions and keeps them in run order', () => {
    const summary = summarize(runs);
    expect(summary.eventsPerSecond).toBe(2000);
    expect(summary.repetitions).toEqual([3000, 1000, 2000]);
    expect(summarize(runs.slice(0, 2)).eventsPerSecond).toBe(2000);
  });

  it('divides every count by the events of all repetitions (500)', () => {
    const summary = summarize(runs);
    expect(summary.events).toBe(500);
    expect(summary.requestsPerEvent).toBe((90 + 270 + 90) / 500);
    expect(summary.requestsPerEventByOperation).toEqual({
      BatchGetItem: 20 / 500,
      GetItem: 30 / 500,
      TransactWriteItems: 400 / 500,
    });
    expect(Object.keys(summary.requestsPerEventByOperation)).toEqual([
      'BatchGetItem',
      'GetItem',
      'TransactWriteItems',
    ]);
    expect(summary.wcuPerEvent).toEqual({ reported: 1.5, billed: 2, billedLow: 1.84 });
    expect(summary.rcuPerEvent).toEqual({ reported: 0.25, billed: 0.5 });
  });

  it('prices the billed units at the list price', () => {
    const { costUsdPerMillionEvents } = summarize(runs);
    expect(PRICING.writeRequestUnitUsdPerMillion).toBe(0.625);
    expect(PRICING.readRequestUnitUsdPerMillion).toBe(0.125);
    expect(costUsdPerMillionEvents).toEqual({ write: 1.25, read: 0.0625, total: 1.3125 });
  });

  it('sums failures, redeliveries and fault-free correctness; weights writes per invocation', () => {
    const summary = summarize(runs);
    expect(summary.failedConditionalWrites).toBe(3);
    expect(summary.cancelledTransactions).toBe(2);
    expect(summary.redeliveredRecords).toBe(4 + 30 + 4);
    expect(summary.writesPerInvocation).toBe((8 * 10 + 4 * 30 + 8 * 10) / 50);
    expect(summary.faultFree).toEqual({
      doubleApplied: 1,
      lost: 4,
      misapplied: 0,
      cellsWrong: 2,
      unattributed: 0,
    });
  });

  it('turns a crash run into a row with its mode, rate and correctness', () => {
    const run = runResultOf({
      implementation: 'baseline',
      queue: 'fifo',
      crashes: 7,
      overLease: 1,
      redriven: 2,
      correctness: {
        doubleApplied: 3,
        lost: 1,
        misapplied: 2,
        cellsWrong: 4,
        unattributed: 5,
        moneyError: '12.34',
        journalMatchesLedger: false,
      },
    });
    expect(crashRow(run, 'hot', 'mid-batch', 0.005)).toEqual({
      workload: 'hot',
      queue: 'fifo',
      implementation: 'baseline',
      mode: 'mid-batch',
      rate: 0.005,
      events: 100,
      invocations: 10,
      crashes: 7,
      doubleApplied: 3,
      lost: 1,
      misapplied: 2,
      unattributed: 5,
      cellsWrong: 4,
      moneyError: '12.34',
      journalMatchesLedger: false,
      overLease: 1,
      redriven: 2,
    });
  });

  it('totals crash rows, optionally of one workload, queue kind and implementation', () => {
    const rows = [
      crashRowOf({ crashes: 1 }),
      crashRowOf({ crashes: 2, implementation: 'baseline' }),
      crashRowOf({ crashes: 4, queue: 'fifo' }),
      crashRowOf({ crashes: 8, workload: 'hot' }),
    ];
    const crashes = (row: { crashes: number }) => row.crashes;
    expect(crashTotal(rows, crashes)).toBe(15);
    expect(crashTotal(rows, crashes, { implementation: 'ours' })).toBe(13);
    expect(crashTotal(rows, crashes, { queue: 'standard' })).toBe(11);
    expect(crashTotal(rows, crashes, { workload: 'default', queue: 'standard' })).toBe(3);
    expect(crashTotal(rows, crashes, { workload: 'hot' })).toBe(8);
    expect(crashTotal(rows, crashes, { queue: 'fifo', implementation: 'baseline' })).toBe(0);
  });

  it('adds up cancellation reasons over the repetitions, keys sorted', () => {
    expect(
      sumCounts([
        { 'TransactionConflict@TOTAL': 1 },
        {},
        { 'ConditionalCheckFailed@CHARGE': 2, 'TransactionConflict@TOTAL': 3 },
      ]),
    ).toEqual({ 'ConditionalCheckFailed@CHARGE': 2, 'TransactionConflict@TOTAL': 4 });
    expect(
      Object.keys(
        summarize([runResultOf({ cancellationReasons: { b: 1, a: 1 } })]).cancellationReasons ?? {},
      ),
    ).toEqual(['a', 'b']);
  });
});
