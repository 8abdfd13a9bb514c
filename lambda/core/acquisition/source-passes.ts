/**
 * One acquisition pass per source of a tenant, for every provider (the scheduled functions and
 * `billing-dedup acquire run`): a source that fails does not stop the others and is reported with its
 * error; no time left (`keepGoing`) skips the sources not started and ends a started pass at its next
 * step. A provider says how to name a source and how to make one pass over its ports.
 */
import { ThrottledUntilError } from '../errors';

export interface PassOptions {
  /** Our export bucket, where the pass writes. */
  exportBucket: string;
  /** Asked before each source and each step of a pass: false ends the pass cleanly. */
  keepGoing: () => boolean;
  /** Only this billing period (`YYYY-MM`, `acquire run --period`); every period when absent. */
  period?: string;
}

export interface SourcePassProvider<Source extends { tenant: string }, Ports, Report> {
  /** `Azure`, `GCP`: how errors name the acquisition. */
  name: string;
  /** `Azure export source`, `GCP billing source`: how errors name a source. */
  sourceNoun: string;
  sourceId(source: Source): string;
  pass(source: Source, ports: Ports, options: PassOptions): Promise<Report>;
}

/** The ports of one source for this pass (its secret read now: a rotated secret needs no redeploy). */
export type PortsFactory<Source, Ports> = (source: Source) => Promise<Ports>;

export interface SourcePass<Report> {
  sourceId: string;
  report?: Report;
  /** The pass did not start: no time was left. */
  skipped?: boolean;
  error?: string;
  /**
   * The provider asked to wait until then (epoch ms; the error was a `ThrottledUntilError`): the pass
   * stopped at its cursor and continues as a delayed step (`acquisition-steps.ts`).
   */
  throttledUntil?: number;
}

/** The tenant's sources; a tenant with none is refused naming the configured ones. */
export const sourcesOfTenant = <Source extends { tenant: string }>(
  provider: Pick<SourcePassProvider<Source, unknown, unknown>, 'sourceNoun'>,
  sources: readonly Source[],
  tenant: string | undefined,
): Source[] => {
  const mine = sources.filter((source) => source.tenant === tenant);
  if (mine.length === 0)
    throw new Error(
      `no ${provider.sourceNoun} is configured for tenant ${JSON.stringify(tenant)} ` +
        `(configured: ${[...new Set(sources.map((s) => s.tenant))].join(', ') || 'none'})`,
    );
  return mine;
};

export const runSourcePasses = async <Source extends { tenant: string }, Ports, Report>(
  provider: SourcePassProvider<Source, Ports, Report>,
  sources: readonly Source[],
  portsFor: PortsFactory<Source, Ports>,
  options: Omit<PassOptions, 'keepGoing'> & { keepGoing?: () => boolean },
): Promise<SourcePass<Report>[]> => {
  const passOptions: PassOptions = { ...options, keepGoing: options.keepGoing ?? (() => true) };
  const passes: SourcePass<Report>[] = [];
  for (const source of sources) {
    const sourceId = provider.sourceId(source);
    if (!passOptions.keepGoing()) {
      passes.push({ sourceId, skipped: true });
      continue;
    }
    try {
      const report = await provider.pass(source, await portsFor(source), passOptions);
      passes.push({ sourceId, report });
    } catch (error) {
      passes.push({
        sourceId,
        error: error instanceof Error ? error.message : String(error),
        ...(error instanceof ThrottledUntilError ? { throttledUntil: error.notBefore } : {}),
      });
    }
  }
  return passes;
};

/** The error naming every failed source, or undefined when none failed. */
export const failedSourcesError = (
  provider: Pick<SourcePassProvider<never, unknown, unknown>, 'name'>,
  tenant: string,
  passes: readonly SourcePass<unknown>[],
): Error | undefined => {
  const failed = passes.filter((pass) => pass.error !== undefined);
  return failed.length === 0
    ? undefined
    : new Error(
        `${provider.name} acquisition of tenant ${tenant}: ${failed.length} of ${passes.length} sources failed: ` +
          failed.map((pass) => `${pass.sourceId}: ${pass.error}`).join('; '),
      );
};
