/**
 * The Query API pull's cursor in DynamoDB Local: a pull that crashes after a page resumes, in a new
 * client, at the next page; a throttle's wait outlives the client.
 */
import { CostManagementQuery, ThrottledError } from '../../lambda/adapters/cost-management-query';
import { DynamoCostQueryCursors } from '../../lambda/adapters/cost-query-cursors';
import { createLedgerTables, localDynamo } from '../support/aws-local';
import {
  EXAMPLE_ROWS_TEXT,
  startCostQueryStandIn,
  type CostQueryStandIn,
} from '../support/cost-query-stand-in';

const SCOPE = '/subscriptions/00000000-0000-0000-0000-000000000000';
const dynamo = localDynamo();
let store: DynamoCostQueryCursors;
let standIn: CostQueryStandIn;
let clockMs = 5_000_000;

beforeAll(async () => {
  const { ledgerTable } = await createLedgerTables(dynamo);
  store = new DynamoCostQueryCursors({ client: dynamo, ledgerTable });
  standIn = await startCostQueryStandIn({
    rowsJson: EXAMPLE_ROWS_TEXT.map(([cost, group]) => `[${cost},"${group}","USD"]`),
    pageSize: 1,
    clock: () => clockMs,
  });
});
afterAll(async () => {
  dynamo.destroy();
  await standIn.stop();
});

const client = (maxWaitMs?: number) =>
  new CostManagementQuery({
    token: async () => 'token',
    store,
    endpoint: standIn.endpoint,
    now: () => clockMs,
    sleep: async (ms) => {
      clockMs += ms;
    },
    ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
  });

it('a crashed pull and a throttle both survive in the cursor: every page once, no early request', async () => {
  const groups: string[] = [];
  await expect(
    client().pull(SCOPE, '2024-09', { type: 'Usage' }, async (page) => {
      if (page.index === 1) throw new Error('crash');
      groups.push(String(page.rows[0][1]));
    }),
  ).rejects.toThrow('crash');
  standIn.faults.push({
    kind: 'throttle',
    headers: { 'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after': '120' },
  });
  const throttledAt = clockMs;
  await expect(
    client(1000).pull(SCOPE, '2024-09', { type: 'Usage' }, async () => undefined),
  ).rejects.toThrow(ThrottledError);

  await client().pull(SCOPE, '2024-09', { type: 'Usage' }, async (page) => {
    groups.push(String(page.rows[0][1]));
  });

  expect(groups).toEqual(EXAMPLE_ROWS_TEXT.map((row) => row[1]));
  expect(standIn.requests.at(-2)!.atMs - throttledAt).toBeGreaterThanOrEqual(120_000);
  expect(await store.read(SCOPE, '2024-09')).toMatchObject({ done: true, pagesDone: 3 });
});
