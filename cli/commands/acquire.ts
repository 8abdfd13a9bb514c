import type { AzureExportSource } from '../../contract/azure-acquisition';
import type { GcpBillingSource } from '../../contract/gcp-acquisition';
import { AZURE_SOURCE_PASSES } from '../../lambda/core/acquisition/azure-source-passes';
import { GCP_SOURCE_PASSES } from '../../lambda/core/acquisition/gcp-source-passes';
import {
  failedSourcesError,
  sourcesOfTenant,
  type SourcePassProvider,
} from '../../lambda/core/acquisition/source-passes';
import { CliError, EXIT, UsageError } from '../errors';
import { json, table } from '../format';
import {
  azureCursors,
  gcpCursors,
  runAzurePasses,
  runGcpPasses,
  type AcquireResources,
} from '../operations/acquire';
import { validatePeriod, validateTenant } from '../operations/ledger';
import type { Session } from '../session';

export interface AcquireFlags {
  tenant: string;
  json?: boolean;
}

export interface AcquireRunFlags extends AcquireFlags {
  /** `YYYY-MM`: only this billing period. */
  period?: string;
}

/** The tenant's sources of one provider; the refusal when it has none. */
const mineOf = <Source extends { tenant: string }>(
  provider: SourcePassProvider<Source, unknown, unknown>,
  sources: readonly Source[],
  tenant: string,
): { sources: Source[]; refusal?: string } => {
  try {
    return { sources: sourcesOfTenant(provider, sources, tenant) };
  } catch (error) {
    return { sources: [], refusal: (error as Error).message };
  }
};

/** The tenant's Azure and GCP sources; a tenant with neither is a usage error naming both. */
const tenantSources = async (
  flags: AcquireFlags,
  session: Session,
): Promise<{ tenant: string; azure: AzureExportSource[]; gcp: GcpBillingSource[] }> => {
  const tenant = validateTenant(flags.tenant);
  const configured = await session.resources.acquisitionSources();
  const azure = mineOf(AZURE_SOURCE_PASSES, configured.azure, tenant);
  const gcp = mineOf(GCP_SOURCE_PASSES, configured.gcp, tenant);
  if (azure.sources.length + gcp.sources.length === 0)
    throw new UsageError(`--tenant: ${azure.refusal}; ${gcp.refusal}`);
  return { tenant, azure: azure.sources, gcp: gcp.sources };
};

/**
 * `billing-dedup acquire status --tenant t [--json]`: the cursor of each of the tenant's sources: an
 * Azure export's last run copied, a GCP table's acquired watermarks and month jobs.
 */
export const acquireStatusCommand = async (
  flags: AcquireFlags,
  session: Session,
): Promise<number> => {
  const { tenant, azure, gcp } = await tenantSources(flags, session);
  const ledgerTable = await session.resources.ledgerTable();
  const { dynamo } = session.clients;
  const azureStatus = azure.length > 0 ? await azureCursors(dynamo, ledgerTable, azure) : [];
  const gcpStatus = gcp.length > 0 ? await gcpCursors(dynamo, ledgerTable, gcp) : [];
  const out = session.io.stdout;
  if (flags.json) {
    out.write(
      json({
        tenant,
        ...(azure.length > 0 ? { sources: azureStatus } : {}),
        ...(gcp.length > 0 ? { gcpSources: gcpStatus } : {}),
      }),
    );
    return EXIT.ok;
  }
  if (azure.length > 0) {
    out.write(`Azure export sources of tenant ${tenant}:\n\n`);
    out.write(
      table(
        ['source', 'prefix', 'last run copied', 'submitted', 'period', 'updated'],
        azureStatus.map(({ sourceId, prefix, cursor }) => [
          sourceId,
          `${prefix}/`,
          cursor?.runId ?? '(none yet)',
          cursor?.submittedTime ?? '-',
          cursor?.period ?? '-',
          cursor?.updatedAt ?? '-',
        ]),
      ),
    );
  }
  if (gcp.length > 0) {
    out.write(`${azure.length > 0 ? '\n' : ''}GCP billing sources of tenant ${tenant}:\n\n`);
    out.write(
      table(
        ['source', 'folder', 'month', 'job', 'pages', 'rows', 'state', 'acquired up to', 'updated'],
        gcpStatus.flatMap(({ sourceId, prefix, exportName, watermarks, months }) =>
          months.length === 0
            ? [[sourceId, `${prefix}/${exportName}/`, '(none yet)', '-', '-', '-', '-', '-', '-']]
            : months.map((month) => [
                sourceId,
                `${prefix}/${exportName}/`,
                month.period,
                month.jobId,
                String(month.pagesDone),
                String(month.rows),
                month.done ? 'done' : 'in progress',
                watermarks[month.period.replace('-', '')] ?? '-',
                month.updatedAt ?? '-',
              ]),
        ),
      ),
    );
  }
  return EXIT.ok;
};

/**
 * `billing-dedup acquire run --tenant t [--period YYYY-MM] [--json]`: one pass over each of the
 * tenant's sources now (Azure exports, then GCP tables), with the caller's credentials; with
 * `--period`, only that billing period. Exit 1 when a source failed (after the others ran).
 */
export const acquireRunCommand = async (
  flags: AcquireRunFlags,
  session: Session,
): Promise<number> => {
  const run = flags.period === undefined ? {} : { period: validatePeriod(flags.period) };
  const { tenant, azure, gcp } = await tenantSources(flags, session);
  const resources: AcquireResources = {
    ledgerTable: await session.resources.ledgerTable(),
    exportBucket: await session.resources.exportBucket(),
  };
  const { clients } = session;
  const passes = azure.length > 0 ? await runAzurePasses(azure, clients, resources, run) : [];
  const bigquery = session.localEndpoints?.bigquery;
  const googleToken = session.localEndpoints?.googleToken;
  const gcpPasses =
    gcp.length > 0
      ? await runGcpPasses(gcp, clients, resources, {
          ...run,
          endpoints: {
            ...(bigquery ? { bigqueryEndpoint: bigquery } : {}),
            ...(googleToken ? { tokenEndpoint: googleToken } : {}),
          },
        })
      : [];
  const out = session.io.stdout;
  if (flags.json)
    out.write(
      json({
        tenant,
        ...(azure.length > 0 ? { passes } : {}),
        ...(gcp.length > 0 ? { gcpPasses } : {}),
      }),
    );
  else {
    if (azure.length > 0)
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
            report?.refused.map((r) => `${r.runId ?? r.manifestName}: ${r.reason}`).join('; ') ||
              '-',
            error ?? 'ok',
          ]),
        ),
      );
    if (gcp.length > 0)
      out.write(
        table(
          [
            'source',
            'months changed',
            'months acquired',
            'pages',
            'rows',
            'bytes billed',
            'result',
          ],
          gcpPasses.map(({ sourceId, report, error }) => [
            sourceId,
            report?.changed.join(' ') || '-',
            report?.months.map((m) => m.period).join(' ') || '-',
            String(report?.months.reduce((sum, m) => sum + m.pages, 0) ?? 0),
            String(report?.months.reduce((sum, m) => sum + m.rows, 0) ?? 0),
            String(
              (report?.probeBytesBilled ?? 0) +
                (report?.months.reduce((sum, m) => sum + m.bytesBilled, 0) ?? 0),
            ),
            error ??
              (report && report.leftForNextPass > 0 ? `ok, ${report.leftForNextPass} left` : 'ok'),
          ]),
        ),
      );
  }
  const failed = [
    failedSourcesError(AZURE_SOURCE_PASSES, tenant, passes),
    failedSourcesError(GCP_SOURCE_PASSES, tenant, gcpPasses),
  ].filter((error): error is Error => error !== undefined);
  if (failed.length > 0)
    throw new CliError(failed.map((error) => error.message).join('\n'), EXIT.operational);
  return EXIT.ok;
};
