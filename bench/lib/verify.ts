/**
 * Correctness accounting: ledger vs truth, and which charges were double-applied or lost.
 *
 * The journal holds every committed write that ADDs to TOTAL items, as seen by an SDK middleware on the
 * way back from DynamoDB (so also the writes of an invocation that "dies" right after them). A unit is
 * one request: a plain UpdateItem (one effect) or a TransactWriteItems (one or more charge puts and the
 * summed total updates). Each unit's per-cell delta is decomposed into the effects of its charges —
 * a first application at version v (+a_v, one charge) or a restatement from u to v (a_v − a_u) — which
 * is unambiguous because every effect is a distinct random decimal within its cell (see workload.ts).
 * Per charge:
 *   - double-applied: an identical effect committed more than once (each extra commit counts once);
 *   - lost: the distinct committed effects do not reach the latest version (an effect never committed);
 *   - misapplied: distinct effects that are no valid chain for another reason.
 * Independently of the journal, the TOTAL items are compared with the truth (exact, big.js).
 */
import Big from 'big.js';
import {
  cellOf,
  effectKey,
  identityKey,
  truthTotals,
  type Effect,
  type Workload,
} from './workload';

export interface TotalChangeEntry {
  pk: string;
  currency: string;
  delta: string;
  charges: string;
}

export interface ChargePutEntry {
  pk: string;
  currency: string;
  identityKind: string;
  identityId: string;
  version: number;
}

/** One committed request: the total changes it made and the charge items it wrote with them. */
export interface JournalUnit {
  totals: TotalChangeEntry[];
  puts: ChargePutEntry[];
}

export interface LedgerCell {
  pk: string;
  currency: string;
  total: string;
  charges: number;
}

export interface Correctness {
  /** Extra commits of an effect that was already committed. */
  doubleApplied: number;
  /** Charges whose latest version never fully reached the total. */
  lost: number;
  misapplied: number;
  /** Journal total changes that could not be decomposed into effects of the workload. */
  unattributed: number;
  /** Ledger cells whose total or charge count differs from the truth. */
  cellsWrong: number;
  /** Σ |ledger total − true total| over cells, in the cells' currencies (exact decimal). */
  moneyError: string;
  /** The journal sums to the TOTAL items (sanity check of the journal itself). */
  journalMatchesLedger: boolean;
}

/** Candidate effects of one charge put at version v: first application, or restatement from any u < v. */
const candidatesOf = (
  workload: Workload,
  cell: string,
  chargeId: string,
  version: number,
): Effect[] =>
  [...(workload.effects.get(cell)?.values() ?? [])].filter(
    (effect) => effect.chargeId === chargeId && effect.to === version,
  );

/** Picks one effect per charge so that the deltas and charge counts add up (backtracking; tiny sets). */
const decompose = (options: Effect[][], delta: Big, charges: number): Effect[] | undefined => {
  const choose = (index: number, rest: Big, count: number): Effect[] | undefined => {
    if (index === options.length) return rest.eq(0) && count === 0 ? [] : undefined;
    for (const effect of options[index]) {
      const tail = choose(index + 1, rest.minus(effect.delta), count - effect.charges);
      if (tail) return [effect, ...tail];
    }
    return undefined;
  };
  return options.length > 12 && options.every((o) => o.length === 1)
    ? options.map((o) => o[0])
    : choose(0, delta, charges);
};

/** The effects one unit committed in one cell, or undefined when the delta cannot be explained. */
const effectsOfUnit = (
  workload: Workload,
  unit: JournalUnit,
  change: TotalChangeEntry,
): Effect[] | undefined => {
  const cell = cellOf(change.pk, change.currency);
  const puts = unit.puts.filter((put) => put.pk === change.pk && put.currency === change.currency);
  if (puts.length === 0) {
    const effect = workload.effects.get(cell)?.get(effectKey(change.charges, change.delta));
    return effect ? [effect] : undefined;
  }
  const options = puts.map((put) => {
    const chargeId = workload.chargeByIdentity.get(identityKey(put.identityKind, put.identityId));
    return chargeId ? candidatesOf(workload, cell, chargeId, put.version) : [];
  });
  if (options.some((o) => o.length === 0)) return undefined;
  const chosen = decompose(options, new Big(change.delta), Number(change.charges));
  if (!chosen) return undefined;
  const sum = chosen.reduce((total, effect) => total.plus(effect.delta), new Big(0));
  return sum.eq(change.delta) ? chosen : undefined;
};

/**
 * Do the distinct committed effects of one charge walk first-application → … → latest version?
 * A missing link (a start or an intermediate restatement never committed, or the latest never reached)
 * is a lost charge; overlapping links (two effects into one version, a first application on top of an
 * existing chain) are misapplied.
 */
const validChain = (effects: Effect[], finalVersion: number): 'ok' | 'lost' | 'misapplied' => {
  if (effects.length === 0) return 'lost';
  const sorted = [...effects].sort((a, b) => a.to - b.to || (a.from ?? -1) - (b.from ?? -1));
  let at: number | undefined;
  let lost = false;
  let misapplied = false;
  for (const effect of sorted) {
    if (effect.from === at) {
      // the next link
    } else if (at === undefined || (effect.from !== undefined && effect.from > at)) {
      lost = true;
    } else {
      misapplied = true;
    }
    at = effect.to;
  }
  if (at !== finalVersion) lost = true;
  return misapplied ? 'misapplied' : lost ? 'lost' : 'ok';
};

export const assessCorrectness = (
  workload: Workload,
  journal: readonly JournalUnit[],
  ledger: readonly LedgerCell[],
): Correctness => {
  const applied = new Map<string, Map<string, { effect: Effect; commits: number }>>();
  let unattributed = 0;
  const journalSums = new Map<string, { total: Big; charges: number }>();
  for (const unit of journal) {
    for (const change of unit.totals) {
      const cell = cellOf(change.pk, change.currency);
      const sum = journalSums.get(cell) ?? { total: new Big(0), charges: 0 };
      sum.total = sum.total.plus(change.delta);
      sum.charges += Number(change.charges);
      journalSums.set(cell, sum);
      const effects = effectsOfUnit(workload, unit, change);
      if (!effects) {
        unattributed++;
        continue;
      }
      for (const effect of effects) {
        const key = effectKey(effect.charges, effect.delta);
        const perCharge =
          applied.get(effect.chargeId) ?? new Map<string, { effect: Effect; commits: number }>();
        applied.set(effect.chargeId, perCharge);
        const seen = perCharge.get(key) ?? { effect, commits: 0 };
        seen.commits++;
        perCharge.set(key, seen);
      }
    }
  }

  let doubleApplied = 0;
  let lost = 0;
  let misapplied = 0;
  for (const charge of workload.charges.values()) {
    const committed = [...(applied.get(charge.id)?.values() ?? [])];
    for (const { commits } of committed) doubleApplied += commits - 1;
    const verdict = validChain(
      committed.map(({ effect }) => effect),
      Math.max(...charge.amounts.keys()),
    );
    if (verdict === 'lost') lost++;
    if (verdict === 'misapplied') misapplied++;
  }

  const truth = truthTotals(workload);
  const ledgerCells = new Map(ledger.map((cell) => [cellOf(cell.pk, cell.currency), cell]));
  let cellsWrong = 0;
  let moneyError = new Big(0);
  for (const cell of new Set([...truth.keys(), ...ledgerCells.keys()])) {
    const expected = truth.get(cell) ?? { total: '0', charges: 0 };
    const actual = ledgerCells.get(cell) ?? { total: '0', charges: 0 };
    const difference = new Big(actual.total).minus(expected.total).abs();
    moneyError = moneyError.plus(difference);
    if (!difference.eq(0) || actual.charges !== expected.charges) cellsWrong++;
  }
  let journalMatchesLedger = true;
  for (const cell of new Set([...journalSums.keys(), ...ledgerCells.keys()])) {
    const sum = journalSums.get(cell) ?? { total: new Big(0), charges: 0 };
    const actual = ledgerCells.get(cell) ?? { total: '0', charges: 0 };
    if (!sum.total.eq(actual.total) || sum.charges !== actual.charges) journalMatchesLedger = false;
  }
  return {
    doubleApplied,
    lost,
    misapplied,
    unattributed,
    cellsWrong,
    moneyError: moneyError.toString(),
    journalMatchesLedger,
  };
};

/** Parses `ADD a :x, #b :y SET …` into attribute name → value placeholder. */
export const addClauses = (
  expression: string,
  names: Record<string, string> = {},
): Map<string, string> => {
  const out = new Map<string, string>();
  const match = /\bADD\s+(.*?)(?=\s+\b(?:SET|REMOVE|DELETE)\b|$)/is.exec(expression);
  if (!match) return out;
  for (const part of match[1].split(',')) {
    const [path, value] = part.trim().split(/\s+/);
    if (!path || !value) continue;
    out.set(names[path] ?? path, value);
  }
  return out;
};
