import { completenessRecords } from '../../../lambda/core/reconciliation/completeness-records';
import type { SnapshotCompleteness } from '../../../lambda/core/reconciliation/completeness-records';
import type { Completeness } from '../../../lambda/core/reconciliation/completeness';
import { runReconciliation } from '../../../lambda/core/reconciliation/run';
import type { DriftMessage } from '../../../lambda/core/reconciliation/message';

const complete: Completeness = {
  status: 'complete',
  filesPlanned: 1,
  filesRead: 1,
  rowsExpected: 4,
  rowsRead: 4,
  files: [],
  filesWrong: 0,
};
const short: Completeness = {
  status: 'incomplete',
  filesPlanned: 1,
  filesRead: 1,
  rowsExpected: 4,
  rowsRead: 3,
  files: [{ key: 'data/part-0.parquet', expected: 4, read: 3, complete: true, problem: 'short' }],
  filesWrong: 1,
};

const snapshot = (
  accountId: string,
  executionId: string,
  completeness: Completeness,
  period = '2026-11',
): SnapshotCompleteness => ({
  tenant: 'acme',
  accountId,
  period,
  source: 'exports/acme/focus',
  executionId,
  completeness,
});
const pointer = (executionId: string, period = '2026-11') => ({
  tenant: 'acme',
  source: 'exports/acme/focus',
  period,
  executionId,
});

describe('completenessRecords', () => {
  it("reports the current execution's snapshots, not an older execution's", () => {
    const records = completenessRecords(
      [snapshot('1', 'e-1', short), snapshot('1', 'e-2', complete)],
      [pointer('e-2')],
      [],
    );
    expect(
      records.map((r) => [r.accountId, r.executionId, r.completeness.status, r.pages]),
    ).toEqual([['1', 'e-2', 'complete', false]]);
  });

  it('a closed period reports its pinned execution, whatever is current now', () => {
    const records = completenessRecords(
      [snapshot('1', 'e-1', short), snapshot('1', 'e-2', complete)],
      [pointer('e-2')],
      [
        {
          tenant: 'acme',
          accountId: '1',
          period: '2026-11',
          state: 'closed',
          closedOnce: true,
          pinned: { 'exports/acme/focus': 'e-1' },
        },
      ],
    );
    expect(records.map((r) => [r.executionId, r.pages])).toEqual([['e-1', true]]);
  });
});

describe('runReconciliation with completeness', () => {
  const now = Date.UTC(2026, 11, 2, 4, 30);
  const run = () => {
    const claimed = new Set<string>();
    const sent: { key: string; message: DriftMessage }[] = [];
    const stored: string[][] = [];
    const records = completenessRecords(
      [
        snapshot('111111111111', 'e-9', short),
        snapshot('222222222222', 'e-9', short),
        snapshot('333333333333', 'e-3', complete, '2026-10'),
      ],
      [pointer('e-9'), pointer('e-3', '2026-10')],
      [],
    );
    const ports = {
      ledgerFigures: () => Promise.resolve([]),
      providerAnswers: (period: string) => Promise.resolve([{ period, final: true, figures: [] }]),
      store: () => Promise.resolve(),
      snapshotCompleteness: () => Promise.resolve(records),
      storeCompleteness: (stamped: readonly { accountId: string }[]) => {
        stored.push(stamped.map((r) => r.accountId));
        return Promise.resolve();
      },
      notifyOnce: (key: string, message: DriftMessage) => {
        if (claimed.has(key)) return Promise.resolve('duplicate' as const);
        claimed.add(key);
        sent.push({ key, message });
        return Promise.resolve('notified' as const);
      },
    };
    return { ports, sent, stored };
  };

  it("stores the records of the run's periods and notifies an incomplete execution once, not per account or night", async () => {
    const { ports, sent, stored } = run();
    const first = await runReconciliation(ports, { now, periods: ['2026-11'] });
    expect(stored).toEqual([['111111111111', '222222222222']]);
    expect(first.completeness.map((r) => r.pages)).toEqual([true, true]);
    expect(first.notified).toBe(1);
    expect(sent.map(({ key, message }) => [key, message.attributes])).toEqual([
      [
        'reconciliation-incomplete#acme#exports/acme/focus#2026-11#e-9',
        { kind: 'reconciliation-incomplete', tenant: 'acme' },
      ],
    ]);
    expect(sent[0].message.body).toContain('accounts: 111111111111, 222222222222');
    expect(sent[0].message.body).toContain('rows read: 3 of 4');
    expect(sent[0].message.body).toContain('data/part-0.parquet: read 3 of 4 (-1), short');
    const again = await runReconciliation(ports, { now, periods: ['2026-11'] });
    expect(again.notified).toBe(0);
  });

  it('a complete snapshot is recorded and never notified', async () => {
    const { ports, sent, stored } = run();
    const result = await runReconciliation(ports, { now, periods: ['2026-10'] });
    expect(stored).toEqual([['333333333333']]);
    expect(result.completeness.map((r) => r.pages)).toEqual([false]);
    expect(sent).toEqual([]);
  });
});
