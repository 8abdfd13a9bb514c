/**
 * After a source's execution becomes current: where it stands among the other export sources of the
 * tenant's period (core/export-authority.ts), so that the switch of a shadowed source is visible to
 * operators. The rank is per source; which accounts two sources share is the statement's business.
 */
import { compareSourceRanks, type SourceRank } from '../export-authority';
import type { ExecutionRef } from './run-task';

export interface PeriodSourcesPort {
  /** Records that `source` became current for the (tenant, period); idempotent. */
  register(tenant: string, period: string, source: string): Promise<void>;
  /** Every registered source of the (tenant, period) that has a current execution, with its rank. */
  ranks(tenant: string, period: string): Promise<SourceRank[]>;
}

export interface Shadowing {
  /** Sources that count instead of this one on the accounts they share with it, best first. */
  shadowedBy: string[];
  /** Sources this one counts instead of on the accounts they share with it, best first. */
  shadows: string[];
}

/** Where `mine` stands among `ranks` (which may include it). */
export const shadowingAmong = (ranks: readonly SourceRank[], mine: SourceRank): Shadowing => {
  const others = ranks.filter((rank) => rank.source !== mine.source).sort(compareSourceRanks);
  return {
    shadowedBy: others.filter((rank) => compareSourceRanks(rank, mine) < 0).map((r) => r.source),
    shadows: others.filter((rank) => compareSourceRanks(rank, mine) > 0).map((r) => r.source),
  };
};

export const shadowingAfterSwitch = async (
  port: PeriodSourcesPort,
  ref: ExecutionRef,
): Promise<Shadowing> => {
  await port.register(ref.tenant, ref.period, ref.source);
  const ranks = await port.ranks(ref.tenant, ref.period);
  return shadowingAmong(
    ranks,
    ranks.find((rank) => rank.source === ref.source) ?? { source: ref.source },
  );
};

/** The record's log text: empty when the source is the only one of its period. */
export const shadowingNote = ({ shadowedBy, shadows }: Shadowing): string =>
  [
    ...(shadowedBy.length > 0
      ? [`shadowed by ${shadowedBy[0]} on the accounts both cover (that export counts there)`]
      : []),
    ...(shadows.length > 0
      ? [`shadows ${shadows.join(', ')} on the accounts they share with it`]
      : []),
  ].join(', ');
