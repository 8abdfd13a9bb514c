import {
  CostExplorerClient,
  GetCostAndUsageCommand,
  type GetCostAndUsageCommandOutput,
} from '@aws-sdk/client-cost-explorer';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  readReconciliations,
  writeCompleteness,
} from '../../lambda/adapters/reconciliation-records';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { costLedgerHandlerOn } from '../support/ledger-harness';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli } from './helpers';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
const costExplorer = new CostExplorerClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const ce = mockClient(costExplorer);
const OK = '500000000001';
const DRIFT = '500000000002';
const MISSING = '500000000003';
const NOW = Date.parse('2026-12-02T04:30:00Z');

const page = (
  groups: [string, string][],
  token?: string,
  estimated = false,
): GetCostAndUsageCommandOutput => ({
  $metadata: {},
  ResultsByTime: [
    {
      TimePeriod: { Start: '2026-11-01', End: '2026-12-01' },
      Estimated: estimated,
      Total: {},
      Groups: groups.map(([account, amount]) => ({
        Keys: [account],
        Metrics: { NetUnblendedCost: { Amount: amount, Unit: 'USD' } },
      })),
    },
  ],
  ...(token ? { NextPageToken: token } : {}),
});

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  const handler = costLedgerHandlerOn(dynamo, tables);
  for (const event of [
    costEvent({ accountId: OK, eventId: 'a', amount: '1000' }),
    costEvent({ accountId: DRIFT, eventId: 'b', amount: '250' }),
    costEvent({ accountId: OK, eventId: 'c', amount: '5', tenant: 'beta' }),
  ])
    expect((await handler(sqsEvent([sqsRecord(event)]))).batchItemFailures).toEqual([]);
});

afterAll(() => dynamo.destroy());
beforeEach(() => ce.reset());

const deps = () => ({ clients: { dynamo, costExplorer }, now: () => NOW });
const args = (...extra: string[]) => ['reconcile', '--table', tables.ledgerTable, ...extra];

describe('reconcile', () => {
  it('--run: compares the ledger with Cost Explorer, writes the records and prints the table', async () => {
    ce.on(GetCostAndUsageCommand)
      .resolvesOnce(
        page(
          [
            [OK, '1001'],
            [DRIFT, '260'],
          ],
          'next',
        ),
      )
      .resolvesOnce(page([[MISSING, '42.5']]));
    const result = await cli(
      args('--period', '2026-11', '--tenant', 'acme', '--payer-tenant', 'acme', '--run'),
      deps(),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('run of 2026-12-02');
    expect(result.stdout).toContain('2 Cost Explorer requests');
    expect(result.stdout).toMatch(
      new RegExp(
        `^acme\\s+${OK}\\s+USD\\s+1000\\s+1001\\s+-1\\s+0\\.000999001\\s+ok\\s+final`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(`^acme\\s+${DRIFT}\\s+USD\\s+250\\s+260\\s+-10\\s+.*drift \\(pages\\)`, 'm'),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^acme\\s+${MISSING}\\s+USD\\s+0\\s+42\\.5\\s+-42\\.5\\s+.*missing-in-ledger \\(pages\\)`,
        'm',
      ),
    );
    expect(result.stdout).toContain(
      'ok 1, drift 1, missing-in-ledger 1, missing-at-provider 0; 2 paging',
    );
    const stored = await readReconciliations(dynamo, tables.ledgerTable, '2026-11');
    expect(stored.map((r) => [r.tenant, r.accountId, r.status, r.runDate])).toEqual([
      ['acme', OK, 'ok', '2026-12-02'],
      ['acme', DRIFT, 'drift', '2026-12-02'],
      ['acme', MISSING, 'missing-in-ledger', '2026-12-02'],
    ]);
  });

  it('without --run: prints the latest stored run, as JSON on request, and asks Cost Explorer nothing', async () => {
    const result = await cli(args('--period', '2026-11', '--json'), deps());
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      records: { accountId: string; difference: string; status: string; final: boolean }[];
      summary: { paging: number };
    };
    expect(parsed.records.map((r) => [r.accountId, r.difference, r.status, r.final])).toEqual([
      [OK, '-1', 'ok', true],
      [DRIFT, '-10', 'drift', true],
      [MISSING, '-42.5', 'missing-in-ledger', true],
    ]);
    expect(parsed.summary.paging).toBe(2);
    expect(ce.commandCalls(GetCostAndUsageCommand)).toHaveLength(0);
  });

  it('a run for one tenant records only its rows; estimated figures never page', async () => {
    ce.on(GetCostAndUsageCommand).resolves(page([[OK, '5.00']], undefined, true));
    const result = await cli(args('--period', '2026-11', '--tenant', 'beta', '--run'), deps());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^beta\s+500000000001\s+USD\s+5\s+5\s+0\s+0\s+ok\s+estimated/m);
    const beta = await readReconciliations(dynamo, tables.ledgerTable, '2026-11', {
      tenant: 'beta',
    });
    expect(beta.map((r) => [r.status, r.final, r.pages])).toEqual([['ok', false, false]]);
  });

  it('prints the completeness of the counted export snapshots, with the short files, and as JSON', async () => {
    const completeness = {
      status: 'incomplete' as const,
      filesPlanned: 2,
      filesRead: 2,
      rowsExpected: 23,
      rowsRead: 22,
      files: [
        {
          key: 'acme/focus/data/part-0.parquet',
          expected: 20,
          read: 19,
          complete: true,
          problem: "read 19 of the footer's 20 rows",
        },
      ],
      filesWrong: 1,
    };
    await writeCompleteness(
      dynamo,
      tables.ledgerTable,
      [
        {
          tenant: 'acme',
          accountId: OK,
          period: '2026-09',
          source: 'exports/acme/focus',
          executionId: 'run-1',
          completeness,
          pages: true,
        },
      ],
      '2026-10-02T04:30:00.000Z',
    );
    const result = await cli(args('--period', '2026-09'), deps());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('run of 2026-10-02');
    expect(result.stdout).toMatch(
      new RegExp(
        `^acme\\s+${OK}\\s+exports/acme/focus\\s+run-1\\s+2/2\\s+22/23\\s+-1\\s+incomplete \\(pages\\)`,
        'm',
      ),
    );
    expect(result.stdout).toContain(
      "acme/focus/data/part-0.parquet: read 19 of 20 (read 19 of the footer's 20 rows)",
    );
    const parsed = JSON.parse(
      (await cli(args('--period', '2026-09', '--json'), deps())).stdout,
    ) as {
      records: unknown[];
      completeness: { accountId: string; completeness: { status: string } }[];
    };
    expect(parsed.records).toEqual([]);
    expect(parsed.completeness.map((r) => [r.accountId, r.completeness.status])).toEqual([
      [OK, 'incomplete'],
    ]);
  });

  it('refuses a malformed period (usage error) and says when nothing was reconciled', async () => {
    expect((await cli(args('--period', '2026-13'), deps())).code).toBe(2);
    const none = await cli(args('--period', '2026-01'), deps());
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No reconciliation of 2026-01 yet');
  });
});
