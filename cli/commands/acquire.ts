import { AZURE_SOURCE_PASSES } from '../../lambda/core/acquisition/azure-source-passes';
import { failedSourcesError, sourcesOfTenant } from '../../lambda/core/acquisition/source-passes';
import { CliError, EXIT, UsageError } from '../errors';
import { json, table } from '../format';
import { azureCursors, runAzurePasses } from '../operations/acquire';
import { validateTenant } from '../operations/ledger';
import type { Session } from '../session';

export interface AcquireFlags {
  tenant: string;
  json?: boolean;
}

const tenantSources = async (flags: AcquireFlags, session: Session) => {
  const tenant = validateTenant(flags.tenant);
  const sources = await session.resources.azureExportSources();
  try {
    return { tenant, sources: sourcesOfTenant(AZURE_SOURCE_PASSES, sources, tenant) };
  } catch (error) {
    throw new UsageError(`--tenant: ${(error as Error).message}`);
  }
};

/** `billing-dedup acquire status --tenant t [--json]`: the last run copied of each Azure export source. */
export const acquireStatusCommand = async (
  flags: AcquireFlags,
  session: Session,
): Promise<number> => {
  const { tenant, sources } = await tenantSources(flags, session);
  const cursors = await azureCursors(
    session.clients.dynamo,
    await session.resources.ledgerTable(),
    sources,
  );
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ tenant, sources: cursors }));
    return EXIT.ok;
  }
  out.write(`Azure export sources of tenant ${tenant}:\n\n`);
  out.write(
    table(
      ['source', 'prefix', 'last run copied', 'submitted', 'period', 'updated'],
      cursors.map(({ sourceId, prefix, cursor }) => [
        sourceId,
        `${prefix}/`,
        cursor?.runId ?? '(none yet)',
        cursor?.submittedTime ?? '-',
        cursor?.period ?? '-',
        cursor?.updatedAt ?? '-',
      ]),
    ),
  );
  return EXIT.ok;
};

/**
 * `billing-dedup acquire run --tenant t [--json]`: one copy pass over each Azure export source of the
 * tenant now, with the caller's credentials. Exit 1 when a source failed (after the others ran).
 */
export const acquireRunCommand = async (flags: AcquireFlags, session: Session): Promise<number> => {
  const { tenant, sources } = await tenantSources(flags, session);
  const passes = await runAzurePasses(sources, session.clients, {
    ledgerTable: await session.resources.ledgerTable(),
    exportBucket: await session.resources.exportBucket(),
  });
  const out = session.io.stdout;
  if (flags.json) out.write(json({ tenant, passes }));
  else
    out.write(
      table(
        [
          'source',
          'runs copied',
          'blobs copied',
          'blobs skipped',
          'incomplete',
          'refused',
          'result',
        ],
        passes.map(({ sourceId, report, error }) => [
          sourceId,
          String(report?.copied.length ?? 0),
          String(report?.copied.reduce((sum, run) => sum + run.blobsCopied, 0) ?? 0),
          String(report?.copied.reduce((sum, run) => sum + run.blobsSkipped, 0) ?? 0),
          report?.incomplete.map((i) => i.run.runId).join(' ') || '-',
          report?.refused.map((r) => `${r.runId ?? r.manifestName}: ${r.reason}`).join('; ') || '-',
          error ?? 'ok',
        ]),
      ),
    );
  const failed = failedSourcesError(AZURE_SOURCE_PASSES, tenant, passes);
  if (failed) throw new CliError(failed.message, EXIT.operational);
  return EXIT.ok;
};
