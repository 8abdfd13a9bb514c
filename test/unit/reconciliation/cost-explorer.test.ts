import {
  CostExplorerClient,
  GetCostAndUsageCommand,
  LimitExceededException,
  type GetCostAndUsageCommandOutput,
} from '@aws-sdk/client-cost-explorer';
import { mockClient } from 'aws-sdk-client-mock';
import { CostExplorerTotals } from '../../../lambda/adapters/cost-explorer-totals';
import { reconcile } from '../../../lambda/core/reconciliation/reconcile';

const client = new CostExplorerClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const ce = mockClient(client);

const group = (accountId: string, amount: string, unit = 'USD') => ({
  Keys: [accountId],
  Metrics: { NetUnblendedCost: { Amount: amount, Unit: unit } },
});
const page = (
  groups: ReturnType<typeof group>[],
  options: { token?: string; estimated?: boolean } = {},
): GetCostAndUsageCommandOutput => ({
  $metadata: {},
  ResultsByTime: [
    {
      TimePeriod: { Start: '2026-11-01', End: '2026-12-01' },
      Groups: groups,
      Total: {},
      Estimated: options.estimated ?? false,
    },
  ],
  ...(options.token ? { NextPageToken: options.token } : {}),
});
const throttled = (name: 'ThrottlingException' | 'LimitExceededException') =>
  name === 'LimitExceededException'
    ? new LimitExceededException({ message: 'Rate exceeded', $metadata: {} })
    : Object.assign(new Error('Rate exceeded'), { name });

beforeEach(() => ce.reset());

describe('CostExplorerTotals', () => {
  it('asks one monthly query grouped by linked account, End exclusive, the net unblended cost', async () => {
    ce.on(GetCostAndUsageCommand).resolves(page([group('111111111111', '10.25')]));
    const answer = await new CostExplorerTotals({ client }).periodTotals('2026-12');
    expect(ce.commandCalls(GetCostAndUsageCommand)[0].args[0].input).toEqual({
      TimePeriod: { Start: '2026-12-01', End: '2027-01-01' },
      Granularity: 'MONTHLY',
      Metrics: ['NetUnblendedCost'],
      GroupBy: [{ Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' }],
    });
    expect(answer.figures).toEqual([
      { accountId: '111111111111', period: '2026-12', currency: 'USD', amount: '10.25' },
    ]);
  });

  it('follows every page (one billed request each) and feeds ok, drift and missing', async () => {
    ce.on(GetCostAndUsageCommand)
      .resolvesOnce(
        page([group('111111111111', '1000.50'), group('222222222222', '500')], { token: 'p2' }),
      )
      .resolvesOnce(page([group('333333333333', '75.1234567890')], { token: 'p3' }))
      .resolvesOnce(page([group('444444444444', '0')]));
    const totals = new CostExplorerTotals({ client, claimedBy: 'acme' });
    const answer = await totals.periodTotals('2026-11');
    expect(totals.requests).toBe(3);
    expect(
      ce.commandCalls(GetCostAndUsageCommand).map((call) => call.args[0].input.NextPageToken),
    ).toEqual([undefined, 'p2', 'p3']);
    expect(answer.final).toBe(true);
    const run = reconcile(
      [
        {
          tenant: 'acme',
          accountId: '111111111111',
          period: '2026-11',
          currency: 'USD',
          total: '1001',
        },
        {
          tenant: 'acme',
          accountId: '222222222222',
          period: '2026-11',
          currency: 'USD',
          total: '400',
        },
      ],
      [answer],
    );
    expect(run.records.map((r) => [r.accountId, r.status, r.difference])).toEqual([
      ['111111111111', 'ok', '0.5'],
      ['222222222222', 'drift', '-100'],
      ['333333333333', 'missing-in-ledger', '-75.123456789'],
      ['444444444444', 'ok', '0'],
    ]);
  });

  it('through the stubbed client: exactly 0.1 % is ok, one smallest unit above drifts; a ledger account the provider lacks is missing-at-provider', async () => {
    ce.on(GetCostAndUsageCommand).resolves(
      page([group('111111111111', '1000'), group('222222222222', '1000')]),
    );
    const answer = await new CostExplorerTotals({ client }).periodTotals('2026-11');
    const row = (accountId: string, total: string) => ({
      tenant: 'acme',
      accountId,
      period: '2026-11',
      currency: 'USD',
      total,
    });
    const run = reconcile(
      [
        row('111111111111', '1001'),
        row('222222222222', '1001.000000000000000001'),
        row('555555555555', '12.5'),
      ],
      [answer],
    );
    expect(run.records.map((r) => [r.accountId, r.status, r.difference, r.pages])).toEqual([
      ['111111111111', 'ok', '1', false],
      ['222222222222', 'drift', '1.000000000000000001', true],
      ['555555555555', 'missing-at-provider', '12.5', true],
    ]);
  });

  it('marks a period whose result is Estimated as not final', async () => {
    ce.on(GetCostAndUsageCommand)
      .resolvesOnce(page([group('111111111111', '1')], { token: 'p2' }))
      .resolvesOnce(page([group('222222222222', '2')], { estimated: true }));
    expect((await new CostExplorerTotals({ client }).periodTotals('2026-12')).final).toBe(false);
  });

  it.each(['ThrottlingException', 'LimitExceededException'] as const)(
    'retries %s with the back-off, then succeeds',
    async (name) => {
      ce.on(GetCostAndUsageCommand)
        .rejectsOnce(throttled(name))
        .rejectsOnce(throttled(name))
        .resolves(page([group('111111111111', '3')]));
      const pauses: number[] = [];
      const totals = new CostExplorerTotals({
        client,
        backoff: async (attempt) => {
          pauses.push(attempt);
        },
      });
      const answer = await totals.periodTotals('2026-11');
      expect(pauses).toEqual([0, 1]);
      expect(totals.requests).toBe(3);
      expect(answer.figures).toHaveLength(1);
    },
  );

  it('gives up after its attempts, and never retries other errors', async () => {
    ce.on(GetCostAndUsageCommand).rejects(throttled('ThrottlingException'));
    const pauses: number[] = [];
    const backoff = async (attempt: number) => {
      pauses.push(attempt);
    };
    await expect(
      new CostExplorerTotals({ client, backoff, attempts: 3 }).periodTotals('2026-11'),
    ).rejects.toThrow('Rate exceeded');
    expect(pauses).toEqual([0, 1]);
    ce.reset();
    ce.on(GetCostAndUsageCommand).rejects(
      Object.assign(new Error('bad'), { name: 'DataUnavailableException' }),
    );
    pauses.length = 0;
    await expect(
      new CostExplorerTotals({ client, backoff }).periodTotals('2026-11'),
    ).rejects.toThrow('bad');
    expect(pauses).toEqual([]);
  });

  it('uses the shared jittered back-off by default (pauses bounded by its cap)', async () => {
    ce.on(GetCostAndUsageCommand).rejectsOnce(throttled('ThrottlingException')).resolves(page([]));
    jest.useFakeTimers();
    try {
      const pending = new CostExplorerTotals({ client }).periodTotals('2026-11');
      await jest.advanceTimersByTimeAsync(5_000);
      await expect(pending).resolves.toMatchObject({ figures: [] });
    } finally {
      jest.useRealTimers();
    }
  });
});
