/**
 * The acquisitions phase: the real scheduled acquisition handlers (`createGcpAcquisitionHandler`,
 * `createAzureAcquisitionHandler`) run against local stand-ins of the providers — the BigQuery
 * stand-in and Azurite (local/acquisitions/) — writing into the local export bucket, whose manifests
 * then flow through the planner, chunk and switch like every export. Two passes: the first acquires
 * the month; then a correction is appended (GCP: a row in a later partition; Azure: a new run of the
 * month) and the second pass must supersede the first snapshot. After each pass the pipeline is
 * drained and the ledger's total of each tenant-period is compared with the stand-in's own total.
 */
import { ENV } from '../../contract/environment';
import { AZURE_ACQUISITION_ENV } from '../../contract/azure-acquisition';
import { GCP_ACQUISITION_ENV } from '../../contract/gcp-acquisition';
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import type { SourcePortsClients } from '../../lambda/adapters/source-ports-clients';
import type { PullReport } from '../../lambda/core/acquisition/gcp-billing-pull';
import type { CopyReport } from '../../lambda/core/acquisition/azure-export-copy';
import type { SourcePass } from '../../lambda/core/acquisition/source-passes';
import { createAzureAcquisitionHandler } from '../../lambda/handlers/azure-acquisition';
import { createGcpAcquisitionHandler } from '../../lambda/handlers/gcp-acquisition';
import {
  AZURE_PERIOD,
  AZURE_TENANT,
  azureCorrectionRun,
  azureFirstRun,
  azureRunTotals,
  startLocalAzureSource,
  type AzureRunSpec,
  type LocalAzureSource,
} from '../acquisitions/azure';
import {
  GCP_PASS_FAULTS,
  GCP_PERIOD,
  GCP_TENANT,
  gcpCorrectionRow,
  startLocalGcpSource,
  type LocalGcpSource,
} from '../acquisitions/gcp';
import { acquisitionStatus, ledgerTotalOf, type AcquisitionReport } from '../report/acquisitions';
import { invocationScope } from '../runtime/invocations';
import type { Cleanups } from './cleanups';

/** The tenants only the acquisitions book to (kept out of the sample's own checks). */
export const ACQUISITION_TENANTS: readonly string[] = [GCP_TENANT, AZURE_TENANT];

/** Invocation ids of the acquisition functions in the handler log (the pollers count from 1). */
const ACQUISITION_INVOCATION_IDS = 2_000_000;

export interface AcquisitionSources {
  gcp: LocalGcpSource;
  azure: LocalAzureSource;
}

/** Starts both stand-ins (stopped by the run's cleanups); `prefixOf` is a tenant's export prefix. */
export const startAcquisitionSources = async (
  prefixOf: (tenant: string) => string,
  cleanups: Cleanups,
): Promise<AcquisitionSources> => {
  const gcp = await startLocalGcpSource(prefixOf(GCP_TENANT));
  cleanups.add(() => gcp.stop());
  const azure = await startLocalAzureSource(prefixOf(AZURE_TENANT));
  cleanups.add(() => azure.stop());
  return { gcp, azure };
};

interface PassFacts {
  sourceId: string;
  rows: number;
  pages: number;
  retries: number;
  throttleWaits: number;
  throttleWaitMs: number;
  truth: Record<string, string>;
  error?: string;
}

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** Runs a handler as one invocation (its log lines go to the handler log) and keeps its passes. */
const invoke = async <Report>(
  stream: string,
  id: number,
  run: () => Promise<{ passes: SourcePass<Report>[] }>,
): Promise<{ pass?: SourcePass<Report>; error?: string }> => {
  try {
    const { passes } = await invocationScope.run(
      { invocationId: ACQUISITION_INVOCATION_IDS + id, stream, abandoned: false, results: [] },
      run,
    );
    return { pass: passes[0], ...(passes[0]?.error ? { error: passes[0].error } : {}) };
  } catch (error) {
    return { error: errorText(error) };
  }
};

export const runAcquisitions = async (options: {
  sources: AcquisitionSources;
  clients: SourcePortsClients;
  /** Waits until the export pipeline (and every queue) settled. */
  drain: () => Promise<void>;
  readLedger: () => Promise<LedgerTotal[]>;
  progress: (line: string) => void;
}): Promise<AcquisitionReport[]> => {
  const { gcp, azure } = options.sources;
  const { clients } = options;
  const baseEnv = {
    [ENV.exportBucketName]: clients.exportBucket,
    [ENV.ledgerTableName]: clients.ledgerTable,
  };
  const gcpHandler = createGcpAcquisitionHandler(
    { ...baseEnv, [GCP_ACQUISITION_ENV.sources]: JSON.stringify([gcp.source]) },
    gcp.portsFor(clients),
  );
  const azureHandler = createAzureAcquisitionHandler(
    { ...baseEnv, [AZURE_ACQUISITION_ENV.sources]: JSON.stringify([azure.source]) },
    azure.portsFor(clients),
  );
  let invocations = 0;

  const gcpPass = async (): Promise<PassFacts> => {
    gcp.standIn.faults.push(...GCP_PASS_FAULTS);
    const { pass, error } = await invoke<PullReport>('gcp-acquisition', ++invocations, () =>
      gcpHandler({ tenant: GCP_TENANT }),
    );
    gcp.standIn.faults.length = 0;
    const month = pass?.report?.months.find((m) => m.period === GCP_PERIOD);
    const stats = gcp.lastStats();
    return {
      sourceId: pass?.sourceId ?? gcp.source.table,
      rows: month?.rows ?? 0,
      pages: month?.pages ?? 0,
      retries: stats?.retries ?? 0,
      throttleWaits: stats?.throttles ?? 0,
      throttleWaitMs: stats?.throttleWaitMs ?? 0,
      truth: gcp.standIn.monthTotals(GCP_PERIOD.replace('-', '')),
      ...(error !== undefined ? { error } : {}),
    };
  };

  const azurePass = async (run: AzureRunSpec): Promise<PassFacts> => {
    const { pass, error } = await invoke<CopyReport>('azure-acquisition', ++invocations, () =>
      azureHandler({ tenant: AZURE_TENANT }),
    );
    const copied = pass?.report?.copied.filter((c) => c.period === AZURE_PERIOD) ?? [];
    const { rows, totals } = await azureRunTotals(run);
    const missing = copied.some((c) => c.runId === run.runId)
      ? undefined
      : `run ${run.runId} was not copied`;
    return {
      sourceId: pass?.sourceId ?? azure.source.exportFolder,
      rows: copied.length > 0 ? rows : 0,
      pages: copied.reduce((sum, c) => sum + c.blobsCopied, 0),
      retries: 0,
      throttleWaits: 0,
      throttleWaitMs: 0,
      truth: totals,
      ...((error ?? missing) !== undefined ? { error: error ?? missing } : {}),
    };
  };

  const rowsOf = async (
    pass: number,
    facts: { provider: 'gcp' | 'azure'; tenant: string; period: string; facts: PassFacts }[],
  ): Promise<AcquisitionReport[]> => {
    await options.drain();
    const ledger = await options.readLedger();
    return facts.flatMap(({ provider, tenant, period, facts: f }) =>
      Object.entries(f.truth).map(([currency, truth]) => {
        const ledgerTotal = ledgerTotalOf(ledger, tenant, period, currency);
        const row = {
          provider,
          pass,
          tenant,
          sourceId: f.sourceId,
          period,
          currency,
          rows: f.rows,
          pages: f.pages,
          retries: f.retries,
          throttleWaits: f.throttleWaits,
          throttleWaitMs: f.throttleWaitMs,
          ledger: ledgerTotal,
          truth,
          ...(f.error !== undefined ? { error: f.error } : {}),
        };
        return { ...row, status: acquisitionStatus(row) };
      }),
    );
  };

  const passes = async (pass: number, azureRun: AzureRunSpec) => {
    await azure.upload(azureRun);
    const rows = await rowsOf(pass, [
      { provider: 'gcp', tenant: GCP_TENANT, period: GCP_PERIOD, facts: await gcpPass() },
      {
        provider: 'azure',
        tenant: AZURE_TENANT,
        period: AZURE_PERIOD,
        facts: await azurePass(azureRun),
      },
    ]);
    for (const row of rows)
      options.progress(
        `acquisition pass ${pass} ${row.provider} ${row.tenant} ${row.period}: ${row.rows} rows, ${row.pages} page(s), ${row.retries} retries, ${row.throttleWaits} throttle wait(s); ledger ${row.currency} ${row.ledger}, truth ${row.truth} — ${row.status}${row.error ? ` (${row.error})` : ''}`,
      );
    return rows;
  };

  const first = await passes(1, azureFirstRun());
  gcp.standIn.rows.push(gcpCorrectionRow());
  const second = await passes(2, azureCorrectionRun());
  return [...first, ...second];
};
