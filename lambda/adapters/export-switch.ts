/**
 * The snapshot switch in the ledger table: the decision is core/exports/switch-decision.ts; this
 * writes the SNAPSHOT items and the diff's pages (idempotent), then one transaction moves the CURRENT
 * pointer — on condition it is still the one read — marks both executions and writes the DIFF header.
 */
import { UpdateItemCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { ChargeTotals } from '../core/exports/charge-totals';
import type { CurrentPointer, ExecutionRef, ExportStorePort } from '../core/exports/run-task';
import { diffSnapshots, type SnapshotDiff } from '../core/exports/snapshot';
import { switchDecision, type SwitchChange } from '../core/exports/switch-decision';
import { N, S } from './dynamo-kit/attributes';
import { writeIfCondition } from './dynamo-kit/errors';
import { transactWrite } from './dynamo-kit/transact';
import { assessCompleteness } from '../core/reconciliation/completeness';
import { readRejections, readSnapshotTotals } from './export-chunk-commits';
import { completenessValue, readChunkRows } from './export-completeness';
import { diffHeader, diffOf, putDiffPages } from './export-diffs';
import { countsValue, pkOf, sampleValue, snapshotItem, type ExecutionRecord } from './export-items';
import { getItem, putItems, type ExportTable } from './export-table';
import { CURRENT_SK, diffSortKey, executionSortKey, ledgerKey } from './table-layout';

const SWITCH_ATTEMPTS = 8;

const POINTER_SET =
  'SET executionId = :id, #order = :order, switchedAt = :at, tenant = :tenant, #source = :source, #period = :period';
/** Every switch adds 1: the switch sequence of a (tenant, source, period), the version of its corrections. */
const POINTER_ADD = 'ADD switchSeq :one';
/**
 * The first switch of a (tenant, source, period) records when the source became current first (the
 * ledger total's default authority, core/export-authority.ts); later switches never move it, and a
 * pointer first switched before it existed stays without it. The declared precedence is the config's
 * as of the latest switch.
 */
const pointerUpdate = (change: SwitchChange): string => {
  const declared = change.precedence !== undefined;
  const set = [
    POINTER_SET,
    ...(change.firstSwitch
      ? ['firstSwitchedAt = if_not_exists(firstSwitchedAt, :at)']
      : ['previousExecutionId = :previous']),
    ...(declared ? ['#precedence = :precedence'] : []),
  ].join(', ');
  const remove = [
    ...(change.firstSwitch ? ['previousExecutionId'] : []),
    ...(declared ? [] : ['#precedence']),
  ];
  return `${set}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''} ${POINTER_ADD}`;
};

export interface SwitchReads {
  readExecution(ref: ExecutionRef): Promise<ExecutionRecord | undefined>;
  readCurrent(tenant: string, source: string, period: string): Promise<CurrentPointer | undefined>;
}

/** An older execution never becomes current; a planned one is marked so once. */
const markSuperseded = (store: ExportTable, ref: ExecutionRef): Promise<boolean> =>
  writeIfCondition(
    () =>
      store.client.send(
        new UpdateItemCommand({
          TableName: store.table,
          Key: ledgerKey(pkOf(ref), executionSortKey(ref.executionId)),
          UpdateExpression: 'SET #status = :superseded',
          ConditionExpression: '#status = :planned',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':superseded': S('superseded'), ':planned': S('planned') },
        }),
      ),
    `the ledger refused to supersede ${ref.executionId}`,
  );

/** The SNAPSHOT items of the execution, each with the execution's completeness (rows read per file). */
const putSnapshots = async (
  store: ExportTable,
  ref: ExecutionRef,
  execution: ExecutionRecord,
  totals: ChargeTotals,
  supersedes: string | undefined,
): Promise<void> => {
  const completeness = completenessValue(
    assessCompleteness(execution.files, execution.tasks, await readChunkRows(store, ref)),
  );
  await putItems(
    store,
    (function* () {
      for (const [accountId, currencies] of Object.entries(totals))
        yield snapshotItem(ref, execution.order, accountId, currencies, supersedes, completeness);
    })(),
  );
};

/**
 * Makes a complete execution current if it is newer than the current one (by `order`), atomically.
 * A lost race re-reads and decides again; an older execution is `superseded` and changes nothing.
 */
export const switchIfNewer = async (
  store: ExportTable,
  reads: SwitchReads,
  ref: ExecutionRef,
  precedence?: number,
  supersedes?: string,
): ReturnType<ExportStorePort['switchIfNewer']> => {
  const execution = await reads.readExecution(ref);
  if (!execution) throw new Error(`execution ${ref.executionId} of ${pkOf(ref)} has no plan`);
  const pk = pkOf(ref);
  let totals: ChargeTotals | undefined;
  for (let attempt = 0; attempt < SWITCH_ATTEMPTS; attempt += 1) {
    const current = await reads.readCurrent(ref.tenant, ref.source, ref.period);
    const decision = switchDecision(execution, current, precedence);
    if (decision.kind === 'incomplete') return { outcome: 'incomplete' };
    if (decision.kind === 'already-current' && current) {
      const stored = await getItem(store, pk, diffSortKey(current.switchedAt, ref.executionId));
      const diff = stored
        ? await diffOf(store, stored)
        : { executionId: ref.executionId, accounts: [] };
      return {
        outcome: 'current',
        diff,
        switchedAt: current.switchedAt,
        sequence: current.sequence,
      };
    }
    if (decision.kind === 'superseded') {
      await markSuperseded(store, ref);
      return { outcome: 'superseded', currentExecutionId: decision.currentExecutionId };
    }
    if (decision.kind !== 'switch') continue;
    if (!totals) {
      totals = await readSnapshotTotals(store, ref);
      await putSnapshots(store, ref, execution, totals, supersedes);
    }
    const { change } = decision;
    const previous = change.previousExecutionId
      ? {
          executionId: change.previousExecutionId,
          totals: await readSnapshotTotals(store, {
            ...ref,
            executionId: change.previousExecutionId,
          }),
        }
      : undefined;
    const diff = diffSnapshots({ executionId: ref.executionId, totals }, previous);
    const pages = await putDiffPages(store, pk, diff);
    const switchedAt = new Date(store.now()).toISOString();
    const written = await transactWrite(
      store.client,
      await switchTransaction(store, ref, change, { diff, pages, switchedAt }),
      `the ledger refused the switch to ${ref.executionId} of ${pk}`,
    );
    if (written.outcome === 'committed') {
      return { outcome: 'current', diff, switchedAt, sequence: change.sequence };
    }
    await store.backoff(attempt);
  }
  throw new Error(`switching ${ref.executionId} of ${pk}: lost the race ${SWITCH_ATTEMPTS} times`);
};

const switchTransaction = async (
  store: ExportTable,
  ref: ExecutionRef,
  change: SwitchChange,
  { diff, pages, switchedAt }: { diff: SnapshotDiff; pages: number; switchedAt: string },
): Promise<TransactWriteItem[]> => {
  const { table } = store;
  const pk = pkOf(ref);
  const rejections = await readRejections(store, ref);
  const previous = change.previousExecutionId;
  const items: TransactWriteItem[] = [
    {
      Update: {
        TableName: table,
        Key: ledgerKey(pk, CURRENT_SK),
        UpdateExpression: pointerUpdate(change),
        ConditionExpression: previous
          ? 'executionId = :previous'
          : 'attribute_not_exists(executionId)',
        ExpressionAttributeNames: {
          '#order': 'order',
          '#source': 'source',
          '#period': 'period',
          '#precedence': 'precedence',
        },
        ExpressionAttributeValues: {
          ':id': S(ref.executionId),
          ':order': S(change.order),
          ':tenant': S(ref.tenant),
          ':source': S(ref.source),
          ':period': S(ref.period),
          ':at': S(switchedAt),
          ':one': N(1),
          ...(change.precedence === undefined ? {} : { ':precedence': N(change.precedence) }),
          ...(previous ? { ':previous': S(previous) } : {}),
        },
      },
    },
    {
      Update: {
        TableName: table,
        Key: ledgerKey(pk, executionSortKey(ref.executionId)),
        UpdateExpression:
          'SET #status = :current, switchedAt = :at, rejectedByReason = :reasons, rejectionSamples = :samples',
        ConditionExpression: 'tasksDone = tasksTotal',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':current': S('current'),
          ':at': S(switchedAt),
          ':reasons': countsValue(rejections.rejectedByReason),
          ':samples': { L: rejections.samples.map(sampleValue) },
        },
      },
    },
    { Put: { TableName: table, Item: diffHeader(pk, diff, switchedAt, pages) } },
  ];
  if (previous) {
    items.push({
      Update: {
        TableName: table,
        Key: ledgerKey(pk, executionSortKey(previous)),
        UpdateExpression: 'SET #status = :superseded',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':superseded': S('superseded') },
      },
    });
  }
  return items;
};
