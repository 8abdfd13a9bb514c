/**
 * Totals of a chunk per group of small integer codes, one code per dimension (account, currency,
 * service, …): each dimension numbers its distinct values as they are first seen, and a group is
 * found by folding its codes into one number through a table of pairs — no text key per row. Adding a
 * dimension (an invoice id) is one more entry in `GROUP_DIMENSIONS` and one more code per row.
 */
import { ExactSum, type ExactAmount } from './exact-sum';

/** The dimensions of a chunk total, in the order their codes are folded. */
export const GROUP_DIMENSIONS = ['accountId', 'currency', 'service'] as const;
export type GroupDimension = (typeof GROUP_DIMENSIONS)[number];

/** A dimension's value: text, or null for "none" (a row without a ServiceName). */
export type DimensionValue = string | null;

/** The distinct values of one dimension, numbered from 0 as they are first seen. */
export class Dimension {
  private readonly codes = new Map<DimensionValue, number>();
  readonly values: DimensionValue[] = [];

  codeOf(value: DimensionValue): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.push(value) - 1;
      this.codes.set(value, code);
    }
    return code;
  }
}

/** A prefix number and a code below this fold into one safe integer. */
const CODE_SPACE = 2 ** 26;

export interface GroupTotal {
  /** One value per dimension of `GROUP_DIMENSIONS`. */
  values: DimensionValue[];
  /** Exact, in 10^-18 units. */
  total: bigint;
  rows: number;
}

interface Group {
  codes: number[];
  sum: ExactSum;
  rows: number;
}

export class GroupTotals {
  readonly dimensions = GROUP_DIMENSIONS.map(() => new Dimension());
  /** Per dimension after the first: (number of the codes before, this code) → number of the codes so far. */
  private readonly prefixes = GROUP_DIMENSIONS.slice(1).map(() => new Map<number, number>());
  /** By the number of all of a group's codes. */
  private readonly groups: Group[] = [];

  /** Adds one row's amount to the group of `codes` (one per dimension, from `dimensions`). */
  add(codes: readonly number[], amount: ExactAmount): void {
    let number = codes[0];
    for (let index = 1; index < codes.length; index += 1) {
      const code = codes[index];
      if (number >= CODE_SPACE || code >= CODE_SPACE) {
        throw new RangeError('more than 2^26 distinct values of a dimension in one chunk');
      }
      const level = this.prefixes[index - 1];
      const pair = number * CODE_SPACE + code;
      let next = level.get(pair);
      if (next === undefined) {
        next = level.size;
        level.set(pair, next);
      }
      number = next;
    }
    let group = this.groups[number];
    if (group === undefined) {
      group = { codes: [...codes], sum: new ExactSum(), rows: 0 };
      this.groups[number] = group;
    }
    group.sum.add(amount);
    group.rows += 1;
  }

  totals(): GroupTotal[] {
    const totals: GroupTotal[] = [];
    for (const group of this.groups) {
      if (group === undefined) continue;
      totals.push({
        values: group.codes.map((code, index) => this.dimensions[index].values[code]),
        total: group.sum.total(),
        rows: group.rows,
      });
    }
    return totals;
  }
}
