/**
 * How export executions are stored: the attribute layout of EXEC, CURRENT, CHUNK, SNAPSHOT and page
 * items, written from and read back to plain values (docs/exports.md). Money stays an exact decimal
 * string (dynamo-kit/attributes.ts).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChargeTotals } from '../core/exports/charge-totals';
import type { RejectionSample } from '../core/exports/chunk';
import type { LateCorrectionRecord, RejectedCorrection } from '../core/exports/late-corrections';
import type { ExecutionPlan, ExportTask, PlannedFile } from '../core/exports/plan';
import type { CurrentPointer, ExecutionRef } from '../core/exports/run-task';
import type { SnapshotDiff } from '../core/exports/snapshot';
import { N, S, countOf, decimalOf, type Item } from './dynamo-kit/attributes';
import { itemBytes } from './item-size';
import {
  executionSortKey,
  exportPartitionKey,
  ledgerKey,
  ledgerPartitionKeyOf,
  snapshotSortKey,
} from './table-layout';
import { pageNumber } from './text-pages';

export type ExecutionStatus = 'planned' | 'current' | 'superseded' | 'failed';

export interface ExecutionRecord extends ExecutionRef {
  status: ExecutionStatus;
  order: string;
  manifestKey: string;
  exportArn: string;
  tasksTotal: number;
  tasksDone: number;
  rows: number;
  rejectedRows: number;
  createdAt: string;
  switchedAt?: string;
  failure?: string;
  files: PlannedFile[];
  tasks: ExportTask[];
  /** Corrections of closed periods booked (or refused) after this execution's switch. */
  lateCorrections?: LateCorrectionRecord;
}

export interface ExecutionRejections {
  rejectedByReason: Record<string, number>;
  samples: RejectionSample[];
}

export interface StoredDiff extends SnapshotDiff {
  switchedAt: string;
}

/**
 * Byte budgets that keep every item well inside DynamoDB's 400 KB (docs/exports.md#item-sizes). Text
 * that can grow with the export (chunk totals, diffs, refused corrections) goes to pages of its own.
 */
export const PAGE_BYTES = 300_000;
/** Chunk totals up to this stay in the CHUNK item, beside its (bounded) rejection samples. */
export const INLINE_TOTALS_BYTES = 200_000;
/** The plan's item; the switch later adds the rejection summary and a pass its correction record. */
export const PLAN_BYTES = 200_000;
/** Refused corrections kept in the EXEC item; more go to pages. */
export const INLINE_REJECTED_BYTES = 50_000;
/** A SNAPSHOT item whose per-service totals would pass this keeps its totals only. */
const SNAPSHOT_BYTES = 300_000;
const MAX_SAMPLE_REASON = 300;

export const pkOf = (ref: Pick<ExecutionRef, 'tenant' | 'source' | 'period'>): string =>
  exportPartitionKey(ref.tenant, ref.source, ref.period);

/** The page items of a text: `<prefix><nnnnn>` → `attribute` = page. */
export const pageItems = function* (
  pk: string,
  prefix: string,
  attribute: string,
  pages: Iterable<string>,
): Generator<Item> {
  let index = 0;
  for (const page of pages) {
    yield { ...ledgerKey(pk, `${prefix}${pageNumber(index)}`), [attribute]: S(page) };
    index += 1;
  }
};

export const sampleValue = (sample: RejectionSample): AttributeValue => ({
  M: {
    objectKey: S(sample.objectKey),
    row: N(sample.row),
    reason: S(sample.reason.slice(0, MAX_SAMPLE_REASON)),
  },
});
export const sampleOf = (value: AttributeValue): RejectionSample => ({
  objectKey: value.M?.objectKey?.S ?? '',
  row: countOf(value.M?.row),
  reason: value.M?.reason?.S ?? '',
});
export const countsValue = (counts: Record<string, number>): AttributeValue => ({
  M: Object.fromEntries(Object.entries(counts).map(([key, value]) => [key, N(value)])),
});
export const countsOf = (value: AttributeValue | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(value?.M ?? {}).map(([key, item]) => [key, countOf(item)]));

/** The stored record; refused corrections kept in pages are read by `withRejectedPages`. */
const lateCorrectionsOf = (value: Item): LateCorrectionRecord => ({
  sequence: countOf(value.sequence),
  booked: countOf(value.booked),
  unchanged: countOf(value.unchanged),
  rejected: JSON.parse(value.rejected?.S ?? '[]') as RejectedCorrection[],
  at: value.at?.S ?? '',
});

export const pointerOf = (item: Item): CurrentPointer => ({
  executionId: item.executionId?.S ?? '',
  order: item.order?.S ?? '',
  switchedAt: item.switchedAt?.S ?? '',
  ...(item.previousExecutionId?.S ? { previousExecutionId: item.previousExecutionId.S } : {}),
  sequence: countOf(item.switchSeq),
  correctedSequence: countOf(item.correctedSeq),
  ...(item.firstSwitchedAt?.S ? { firstSwitchedAt: item.firstSwitchedAt.S } : {}),
  ...(item.precedence?.N ? { precedence: Number(item.precedence.N) } : {}),
});

export const executionOf = (item: Item): ExecutionRecord => ({
  tenant: item.tenant?.S ?? '',
  source: item.source?.S ?? '',
  period: item.period?.S ?? '',
  executionId: item.executionId?.S ?? '',
  status: (item.status?.S ?? 'planned') as ExecutionStatus,
  order: item.order?.S ?? '',
  manifestKey: item.manifestKey?.S ?? '',
  exportArn: item.exportArn?.S ?? '',
  tasksTotal: countOf(item.tasksTotal),
  tasksDone: countOf(item.tasksDone),
  rows: countOf(item.rows),
  rejectedRows: countOf(item.rejectedRows),
  createdAt: item.createdAt?.S ?? '',
  ...(item.switchedAt?.S ? { switchedAt: item.switchedAt.S } : {}),
  ...(item.failure?.S ? { failure: item.failure.S } : {}),
  files: (item.files?.L ?? []).map((file) => ({
    key: file.M?.key?.S ?? '',
    format: (file.M?.format?.S ?? 'csv') as PlannedFile['format'],
    size: countOf(file.M?.size),
  })),
  tasks: JSON.parse(item.tasks?.S ?? '[]') as ExportTask[],
  ...(item.lateCorrections?.M
    ? { lateCorrections: lateCorrectionsOf(item.lateCorrections.M) }
    : {}),
});

/** The plan an EXEC item records (`planItem` read back): its files and tasks with their pins. */
export const planOfItem = (item: Item): ExecutionPlan => {
  const execution = executionOf(item);
  return {
    tenant: execution.tenant,
    source: execution.source,
    period: execution.period,
    executionId: execution.executionId,
    exportArn: execution.exportArn,
    manifestKey: execution.manifestKey,
    order: execution.order,
    fingerprint: item.fingerprint?.S ?? '',
    files: (item.files?.L ?? []).map((file, index) => ({
      ...execution.files[index],
      ...(file.M?.eTag?.S
        ? {
            pin: {
              ...(file.M.versionId?.S ? { versionId: file.M.versionId.S } : {}),
              eTag: file.M.eTag.S,
            },
          }
        : {}),
    })),
    tasks: execution.tasks,
  };
};

/** The EXEC item of a plan: its fingerprint, each file's pinned version and zeroed counters. */
export const planItem = (plan: ExecutionPlan, createdAt: string): Item => ({
  ...ledgerKey(pkOf(plan), executionSortKey(plan.executionId)),
  tenant: S(plan.tenant),
  source: S(plan.source),
  period: S(plan.period),
  executionId: S(plan.executionId),
  status: S('planned'),
  order: S(plan.order),
  manifestKey: S(plan.manifestKey),
  exportArn: S(plan.exportArn),
  tasksTotal: N(plan.tasks.length),
  tasksDone: N(0),
  rows: N(0),
  rejectedRows: N(0),
  createdAt: S(createdAt),
  files: {
    L: plan.files.map((file) => ({
      M: {
        key: S(file.key),
        format: S(file.format),
        size: N(file.size),
        ...(file.pin?.versionId ? { versionId: S(file.pin.versionId) } : {}),
        ...(file.pin ? { eTag: S(file.pin.eTag) } : {}),
      },
    })),
  },
  tasks: S(JSON.stringify(plan.tasks)),
  fingerprint: S(plan.fingerprint),
});

/**
 * A snapshot item's per-currency totals and services, `N` values kept exact. An account with so many
 * (or such long) service names that they would pass SNAPSHOT_BYTES keeps its totals only
 * (`servicesOmitted`); statements read the totals, and the per-service figures stay in the diff.
 */
export const snapshotItem = (
  ref: ExecutionRef,
  order: string,
  accountId: string,
  currencies: ChargeTotals[string],
  /** The provider whose stream charges of the account-period this snapshot makes provisional. */
  supersedes?: string,
  /** The execution's completeness (export-completeness.ts), the same on each of its SNAPSHOT items. */
  completeness?: AttributeValue,
): Item => {
  const item = {
    ...fullSnapshotItem(ref, order, accountId, currencies),
    ...(supersedes === undefined ? {} : { supersedes: S(supersedes) }),
    ...(completeness === undefined ? {} : { completeness }),
  };
  if (itemBytes(item) <= SNAPSHOT_BYTES) return item;
  return { ...item, services: { M: {} }, servicesOmitted: { BOOL: true } };
};

const fullSnapshotItem = (
  ref: ExecutionRef,
  order: string,
  accountId: string,
  currencies: ChargeTotals[string],
): Item => ({
  ...ledgerKey(
    ledgerPartitionKeyOf(ref.tenant, accountId, ref.period),
    snapshotSortKey(ref.source, ref.executionId),
  ),
  tenant: S(ref.tenant),
  accountId: S(accountId),
  period: S(ref.period),
  source: S(ref.source),
  executionId: S(ref.executionId),
  order: S(order),
  totals: {
    M: Object.fromEntries(
      Object.entries(currencies).map(([currency, totals]) => [
        currency,
        { M: { total: N(totals.total), charges: N(totals.charges) } },
      ]),
    ),
  },
  services: {
    M: Object.fromEntries(
      Object.entries(currencies).map(([currency, totals]) => [
        currency,
        {
          M: Object.fromEntries(
            Object.entries(totals.services).map(([service, amount]) => [service, N(amount)]),
          ),
        },
      ]),
    ),
  },
});

/** Per currency {total, charges} of a SNAPSHOT item (for the ledger total rule). */
export const snapshotTotalsOf = (item: Item): Record<string, { total: string; charges: number }> =>
  Object.fromEntries(
    Object.entries(item.totals?.M ?? {}).map(([currency, value]) => [
      currency,
      { total: decimalOf(value.M?.total), charges: countOf(value.M?.charges) },
    ]),
  );
