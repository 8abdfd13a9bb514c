/**
 * The correction pass of one snapshot switch: for every account of the previous and the new current
 * execution (and those whose correction was refused last time) whose period was closed, book
 * `new part − pinned part` per currency (a period closed with no snapshot of the source pinned an
 * empty part) through the cost commit path — the late-charge policy, duplicates and restatements
 * included. Idempotent: a re-run of the same switch books nothing
 * twice, and after a reopen it books what `reject` refused.
 *
 * A switch whose snapshots supersede a provider's stream charges (core/ledger-total.ts) corrects against
 * what the closed period counted of that provider: the pinned part plus the provider's stream charges it
 * still added, so only the difference from the provisional total rolls forward.
 *
 * Only the authoritative source of a closed account-period corrects it (core/export-authority.ts): the
 * best ranked of the sources its close pinned, fixed by that close. A switch of a source shadowed there
 * (another pinned source ranks first, or the source was not pinned while another was) books nothing.
 */
import type { BatchOutcome } from '../batch';
import { addDecimals } from '../decimal';
import type { CostProcessorOptions } from '../cost-processor';
import { parseCharge, processCostBatch } from '../cost-processor';
import { TransientError } from '../errors';
import type { Rejection, SqsRecordInput } from '../ports';
import { refKey } from '../ports';
import { authoritativeSource, sourceRank, type SourceRank } from '../export-authority';
import type { ChargeTotals } from './charge-totals';
import {
  correctionMessage,
  lateCorrections,
  type AccountCorrectionInput,
  type LateCorrection,
  type LateCorrectionRecord,
  type RejectedCorrection,
} from './late-corrections';
import type { CurrentPointer, ExecutionRef } from './execution';

/** What the first close of an account-period fixed of its export sources. */
export interface ClosedPins {
  /** Source → execution; a source it closed with no snapshot of is absent and counts nothing there. */
  pinned: Record<string, string>;
  /** The pinned source that close found authoritative (absent on periods closed before it was kept). */
  authoritative?: string;
}

export interface LateCorrectionStorePort {
  readCurrent(tenant: string, source: string, period: string): Promise<CurrentPointer | undefined>;
  readExecution(ref: ExecutionRef): Promise<{ lateCorrections?: LateCorrectionRecord } | undefined>;
  /** An execution's exact totals per account, currency (and service). */
  readSnapshotTotals(ref: ExecutionRef): Promise<ChargeTotals>;
  /** account → what its first close pinned; accounts whose period never closed are absent. */
  readPins(
    tenant: string,
    period: string,
    accounts: readonly string[],
  ): Promise<Map<string, ClosedPins>>;
  /**
   * What the closed statement of (tenant, account, period) counts of `source`'s stream charges, per
   * currency (core/ledger-total.ts `countedStreamOf`); absent: stream charges are never superseded.
   */
  readCountedStream?(
    tenant: string,
    accountId: string,
    period: string,
    source: string,
  ): Promise<Record<string, string>>;
  /** Stores the pass's record on the execution and marks the pointer corrected up to its sequence. */
  recordLateCorrections(
    ref: ExecutionRef,
    record: LateCorrectionRecord | undefined,
    sequence: number,
  ): Promise<void>;
}

export interface BookedCorrection {
  correction: LateCorrection;
  result: 'booked' | 'unchanged' | 'rejected';
  rejection?: Rejection;
}

/** Commits correction messages as cost charges; one result per correction. */
export type BookCorrections = (
  corrections: readonly { correction: LateCorrection; message: Record<string, unknown> }[],
) => Promise<BookedCorrection[]>;

/** Corrections per processor batch: the processor groups their commits into transactions. */
const BOOKING_BATCH = 100;

/**
 * Books corrections through `processCostBatch`, the cost consumer's own path (pre-read, grouped commits,
 * late-charge policy). A refused correction is captured instead of dead-lettered: a snapshot has no
 * message per row to park. A zero correction with no charge yet is skipped (nothing to restate).
 */
export const bookThroughCostPath =
  (options: Omit<CostProcessorOptions, 'fifo' | 'deadLetters'>): BookCorrections =>
  async (corrections) => {
    const booked: BookedCorrection[] = [];
    for (let start = 0; start < corrections.length; start += BOOKING_BATCH) {
      const slice = corrections.slice(start, start + BOOKING_BATCH);
      const records: SqsRecordInput[] = slice.map(({ message }, index) => ({
        messageId: `correction-${start + index}`,
        body: JSON.stringify(message),
      }));
      const zeros = records.filter((_, index) => slice[index].correction.amount === '0');
      const refs = zeros.map((record) => parseCharge(options.ledger.layout, record).ref);
      const existing = refs.length > 0 ? await options.ledger.readCharges(refs) : new Map();
      const skipped = new Set(
        zeros
          .filter((_, index) => existing.get(refKey(refs[index])) === null)
          .map((record) => record.messageId),
      );
      const rejections = new Map<string, Rejection>();
      const outcome: BatchOutcome = await processCostBatch(
        records.filter((record) => !skipped.has(record.messageId)),
        {
          ...options,
          fifo: false,
          deadLetters: {
            send: (record, rejection) => {
              rejections.set(record.messageId, rejection);
              return Promise.resolve();
            },
          },
        },
      );
      const results = new Map(outcome.results.map((result) => [result.messageId, result]));
      records.forEach((record, index) => {
        const { correction } = slice[index];
        if (skipped.has(record.messageId)) {
          booked.push({ correction, result: 'unchanged' });
          return;
        }
        const result = results.get(record.messageId);
        if (!result || result.outcome === 'failed') {
          throw new TransientError(
            `booking the correction of ${correction.accountId} ${correction.currency}: ${result?.reason ?? 'no result'}`,
          );
        }
        const rejection = rejections.get(record.messageId);
        booked.push(
          rejection
            ? { correction, result: 'rejected', rejection }
            : {
                correction,
                result:
                  result.outcome === 'applied' || result.outcome === 'restated'
                    ? 'booked'
                    : 'unchanged',
              },
        );
      });
    }
    return booked;
  };

export interface LateCorrectionDeps {
  store: LateCorrectionStorePort;
  book: BookCorrections;
  now?: () => number;
}

type Parts = Record<string, { total: string }>;
const partOf = (totals: ChargeTotals, accountId: string): Parts =>
  Object.prototype.hasOwnProperty.call(totals, accountId) ? totals[accountId] : {};

/**
 * The authoritative source of a closed account-period: the one its first close recorded, else (closed
 * before it was recorded) the best ranked pinned source; `ref`'s own source when nothing was pinned (it
 * is the only one to correct it).
 */
const authorityOfClosed = async (
  store: LateCorrectionStorePort,
  ref: ExecutionRef,
  closed: ReadonlyMap<string, ClosedPins>,
): Promise<(pins: ClosedPins) => string> => {
  const sources = [
    ...new Set(
      [...closed.values()]
        .filter((pins) => pins.authoritative === undefined)
        .flatMap((pins) => Object.keys(pins.pinned)),
    ),
  ];
  const ranks = new Map<string, SourceRank>();
  for (const source of sources) {
    ranks.set(source, sourceRank(source, await store.readCurrent(ref.tenant, source, ref.period)));
  }
  return ({ pinned, authoritative }) =>
    authoritative ??
    authoritativeSource(Object.keys(pinned).map((source) => ranks.get(source) ?? { source })) ??
    ref.source;
};

/**
 * Runs the pass of switch `sequence`, which made `ref` current after `previousExecutionId`. Returns the
 * record stored on the execution (undefined when no account of the switch has a pinned period).
 */
export const correctClosedPeriods = async (
  deps: LateCorrectionDeps,
  ref: ExecutionRef,
  sequence: number,
  previousExecutionId: string | undefined,
  /** The provider whose stream charges the switched snapshots supersede (absent: none). */
  supersedes?: string,
): Promise<LateCorrectionRecord | undefined> => {
  if (sequence < 1) return undefined;
  const { store } = deps;
  const executionRef = (executionId: string): ExecutionRef => ({ ...ref, executionId });
  const next = await store.readSnapshotTotals(ref);
  const previous = previousExecutionId
    ? await store.readSnapshotTotals(executionRef(previousExecutionId))
    : {};
  const carried = previousExecutionId
    ? ((await store.readExecution(executionRef(previousExecutionId)))?.lateCorrections?.rejected ??
      [])
    : [];
  const accounts = [
    ...new Set([
      ...Object.keys(next),
      ...Object.keys(previous),
      ...carried.map((rejected) => rejected.accountId),
    ]),
  ].sort();
  const closed = await store.readPins(ref.tenant, ref.period, accounts);
  const authority = await authorityOfClosed(store, ref, closed);
  const pins = new Map(
    [...closed]
      .filter(([, pins]) => authority(pins) === ref.source)
      .map(([accountId, pins]) => [accountId, pins.pinned[ref.source] ?? null]),
  );
  if (pins.size === 0) {
    await store.recordLateCorrections(ref, undefined, sequence);
    return undefined;
  }
  const pinnedTotals = new Map<string, ChargeTotals>([[ref.executionId, next]]);
  for (const executionId of new Set(pins.values())) {
    if (executionId !== null && !pinnedTotals.has(executionId)) {
      pinnedTotals.set(executionId, await store.readSnapshotTotals(executionRef(executionId)));
    }
  }
  const carriedCurrencies = new Map<string, string[]>();
  for (const { accountId, currency } of carried) {
    carriedCurrencies.set(accountId, [...(carriedCurrencies.get(accountId) ?? []), currency]);
  }
  const counted = async (accountId: string, pinned: string | null) => {
    const part = pinned === null ? {} : partOf(pinnedTotals.get(pinned) ?? {}, accountId);
    if (supersedes === undefined || !store.readCountedStream) return part;
    const stream = await store.readCountedStream(ref.tenant, accountId, ref.period, supersedes);
    return withStream(part, stream);
  };
  const inputs: AccountCorrectionInput[] = [];
  for (const [accountId, pinned] of pins) {
    inputs.push({
      accountId,
      pinned: await counted(accountId, pinned),
      next: partOf(next, accountId),
      otherCurrencies: [
        ...Object.keys(partOf(previous, accountId)),
        ...(carriedCurrencies.get(accountId) ?? []),
      ],
    });
  }
  const results = await deps.book(
    lateCorrections(inputs).map((correction) => ({
      correction,
      message: correctionMessage(correction, {
        tenant: ref.tenant,
        source: ref.source,
        period: ref.period,
        sequence,
        executionId: ref.executionId,
        pinnedExecutionId: pins.get(correction.accountId) ?? undefined,
      }),
    })),
  );
  const rejected: RejectedCorrection[] = results.flatMap(({ correction, result, rejection }) =>
    result === 'rejected'
      ? [{ ...correction, code: rejection?.code ?? 'rejected', reason: rejection?.reason ?? '' }]
      : [],
  );
  const record: LateCorrectionRecord = {
    sequence,
    booked: results.filter((r) => r.result === 'booked').length,
    unchanged: results.filter((r) => r.result === 'unchanged').length,
    rejected,
    at: new Date((deps.now ?? Date.now)()).toISOString(),
  };
  await store.recordLateCorrections(ref, record, sequence);
  return record;
};

/**
 * Before a switch moves the pointer away from an execution whose pass did not complete (the worker
 * stopped after its switch), that pass runs first: a later pass starts from what it leaves.
 */
export const settlePendingCorrections = async (
  deps: LateCorrectionDeps,
  ref: ExecutionRef,
  supersedes?: string,
): Promise<void> => {
  const pointer = await deps.store.readCurrent(ref.tenant, ref.source, ref.period);
  if (!pointer || pointer.executionId === ref.executionId) return;
  if (pointer.sequence <= pointer.correctedSequence) return;
  await correctClosedPeriods(
    deps,
    { ...ref, executionId: pointer.executionId },
    pointer.sequence,
    pointer.previousExecutionId,
    supersedes,
  );
};

/** A pinned part with the stream charges the closed period also counted, per currency. */
const withStream = (
  part: Record<string, { total: string }>,
  stream: Record<string, string>,
): Record<string, { total: string }> => {
  const sum: Record<string, { total: string }> = { ...part };
  for (const [currency, total] of Object.entries(stream)) {
    sum[currency] = {
      total: addDecimals(
        Object.prototype.hasOwnProperty.call(part, currency) ? part[currency].total : '0',
        total,
      ),
    };
  }
  return sum;
};
