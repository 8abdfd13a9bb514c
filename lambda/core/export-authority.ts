/**
 * Which export source is authoritative for a (tenant, account, period) when more than one export of the
 * tenant covers the account: two exports of the same spend (a FOCUS export and a second export of the
 * same accounts) must never be added together.
 *
 * Among the sources with a counted snapshot of the account, the authoritative one is, in order:
 *   1. the one with the best precedence declared in config (`exportSources[].precedence`: position 0 first);
 *      a declared source outranks every undeclared one;
 *   2. the one that became current first for the (tenant, period) (`firstSwitchedAt` of its CURRENT
 *      pointer, set once and never moved by a later switch); a pointer switched before the attribute
 *      existed has none and ranks before those that have one (it was there first);
 *   3. the source name.
 * The others are shadowed: kept, shown, never added.
 */

/** What the rule knows of one export source of a (tenant, period). */
export interface SourceRank {
  source: string;
  /** Position in the declared precedence (0 is the most authoritative); absent when undeclared. */
  precedence?: number;
  /** When the source first became current for the (tenant, period); absent on older pointers. */
  firstSwitchedAt?: string;
}

const byPresence = <T>(a: T | undefined, b: T | undefined): number =>
  a === undefined ? (b === undefined ? 0 : 1) : b === undefined ? -1 : 0;

const byDeclaredPrecedence = (a: SourceRank, b: SourceRank): number =>
  byPresence(a.precedence, b.precedence) || (a.precedence ?? 0) - (b.precedence ?? 0);

/** Older pointers (no attribute) first: they were current before any pointer that has one. */
const byFirstSwitch = (a: SourceRank, b: SourceRank): number =>
  -byPresence(a.firstSwitchedAt, b.firstSwitchedAt) ||
  (a.firstSwitchedAt ?? '').localeCompare(b.firstSwitchedAt ?? '');

/** Negative when `a` is more authoritative than `b`; 0 only for the same source. */
export const compareSourceRanks = (a: SourceRank, b: SourceRank): number =>
  byDeclaredPrecedence(a, b) ||
  byFirstSwitch(a, b) ||
  (a.source < b.source ? -1 : a.source > b.source ? 1 : 0);

/** A source's rank from what its CURRENT pointer records (nothing known without one). */
export const sourceRank = (
  source: string,
  pointer: Omit<SourceRank, 'source'> | undefined,
): SourceRank => ({
  source,
  ...(pointer?.precedence === undefined ? {} : { precedence: pointer.precedence }),
  ...(pointer?.firstSwitchedAt === undefined ? {} : { firstSwitchedAt: pointer.firstSwitchedAt }),
});

/** The authoritative source among `candidates` (undefined when there are none). */
export const authoritativeSource = (candidates: readonly SourceRank[]): string | undefined =>
  [...candidates].sort(compareSourceRanks)[0]?.source;
