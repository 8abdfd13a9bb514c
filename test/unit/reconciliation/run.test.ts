import { runReconciliation } from '../../../lambda/core/reconciliation/run';
import type { DriftMessage } from '../../../lambda/core/reconciliation/message';
import type {
  LedgerFigure,
  ProviderAnswer,
  ReconciliationRecord,
} from '../../../lambda/core/reconciliation/reconcile';

/** One run over in-memory ports: records stored, each paging record notified once per key. */
const ports = (ledger: LedgerFigure[], answers: ProviderAnswer[]) => {
  const claimed = new Set<string>();
  const sent: { key: string; message: DriftMessage }[] = [];
  const stored: ReconciliationRecord[][] = [];
  return {
    sent,
    stored,
    ports: {
      ledgerFigures: () => Promise.resolve(ledger),
      providerAnswers: (period: string) =>
        Promise.resolve(answers.filter((answer) => answer.period === period)),
      store: (records: readonly ReconciliationRecord[]) => {
        stored.push([...records]);
        return Promise.resolve();
      },
      notifyOnce: (key: string, message: DriftMessage) => {
        if (claimed.has(key)) return Promise.resolve('duplicate' as const);
        claimed.add(key);
        sent.push({ key, message });
        return Promise.resolve('notified' as const);
      },
    },
  };
};

const row = (accountId: string, period: string, total: string): LedgerFigure => ({
  tenant: 'acme',
  accountId,
  period,
  currency: 'USD',
  total,
});

describe('runReconciliation', () => {
  const now = Date.UTC(2026, 11, 2, 4, 30);
  const ledger = [
    row('111111111111', '2026-10', '1000'),
    row('222222222222', '2026-10', '1100'),
    row('333333333333', '2026-11', '900'),
  ];
  const answers: ProviderAnswer[] = [
    {
      period: '2026-10',
      final: true,
      figures: [
        { accountId: '111111111111', period: '2026-10', currency: 'USD', amount: '1000' },
        { accountId: '222222222222', period: '2026-10', currency: 'USD', amount: '1000' },
      ],
    },
    {
      period: '2026-11',
      final: false,
      figures: [{ accountId: '333333333333', period: '2026-11', currency: 'USD', amount: '1000' }],
    },
  ];

  it('stores every record and sends one reconciliation-drift notification per final drift, not again the next night', async () => {
    const { ports: p, sent, stored } = ports(ledger, answers);
    const first = await runReconciliation(p, { now, periods: ['2026-10', '2026-11'] });
    expect(stored[0].map((r) => [r.accountId, r.status, r.final, r.pages])).toEqual([
      ['111111111111', 'ok', true, false],
      ['222222222222', 'drift', true, true],
      // An estimated figure is recorded and shown, never paged.
      ['333333333333', 'drift', false, false],
    ]);
    expect(first.notified).toBe(1);
    expect(sent.map(({ message }) => message.attributes)).toEqual([
      { kind: 'reconciliation-drift', tenant: 'acme', account: '222222222222' },
    ]);
    expect(sent[0].message.body).toContain('Runbook: docs/operations.md');
    const again = await runReconciliation(p, { now, periods: ['2026-10', '2026-11'] });
    expect(again.notified).toBe(0);
    expect(stored).toHaveLength(2);
  });
});
