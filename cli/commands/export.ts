import type { Command } from 'commander';
import { ValidationError } from '../../lambda/core/errors';
import {
  manifestFor,
  REQUIRED_FOCUS_COLUMNS,
  type BuiltManifest,
} from '../../lambda/core/exports/manifest';
import { signedAmount, parseThreshold } from '../../lambda/core/exports/snapshot';
import type { Shadowing } from '../../lambda/core/exports/shadowing';
import { EXIT, UsageError } from '../errors';
import { json, plural, table } from '../format';
import { validatePeriod, validateTenant } from '../operations/ledger';
import { checkExportFiles, inspectExportFile } from '../operations/export-files';
import {
  listExportNames,
  readExportDiffs,
  readExportStatus,
  sourceIdsOf,
  topReasons,
  type ExecutionStatus,
} from '../operations/export-executions';
import {
  DEFAULT_EXPORT_NAME,
  defaultExportPrefix,
  newExecutionId,
  uploadExport,
} from '../operations/export-upload';
import { prefixOwnerProblem } from '../operations/export-prefix';
import { createProgress } from '../progress';
import type { Session } from '../session';

export interface ExportScopeFlags {
  tenant: string;
  period: string;
  prefix?: string;
  exportName?: string;
  json?: boolean;
}

export interface ExportPutFlags extends ExportScopeFlags {
  files: string[];
  executionId?: string;
  progress?: boolean;
}

export interface ExportStatusFlags extends ExportScopeFlags {
  source?: string;
}

export interface ExportDiffFlags extends ExportStatusFlags {
  threshold: string;
}

const FLAG_OF_FIELD: Record<string, string> = {
  prefix: '--prefix',
  exportName: '--export-name',
  executionId: '--execution-id',
  billingPeriod: '--period',
};

/** `/exports/acme/` and `exports/acme` name the same prefix. */
const trimSlashes = (prefix: string): string => prefix.replace(/^\/+|\/+$/g, '');

interface Scope {
  tenant: string;
  period: string;
  prefix: string;
}

const scopeOf = (flags: ExportScopeFlags): Scope => {
  const tenant = validateTenant(flags.tenant);
  return {
    tenant,
    period: validatePeriod(flags.period),
    prefix: trimSlashes(flags.prefix ?? defaultExportPrefix(tenant)),
  };
};

/** The flags that place the upload, checked by building the manifest before any file is read. */
const checkTarget = (target: Parameters<typeof manifestFor>[0]): BuiltManifest => {
  try {
    return manifestFor(target);
  } catch (error) {
    if (error instanceof ValidationError && FLAG_OF_FIELD[error.field])
      throw new UsageError(`${FLAG_OF_FIELD[error.field]}: ${error.reason}`);
    throw error;
  }
};

/** `billing-dedup export put`: FOCUS files → data objects, then the manifest. */
export const exportPutCommand = async (
  flags: ExportPutFlags,
  session: Session,
): Promise<number> => {
  const scope = scopeOf(flags);
  const exportName = flags.exportName ?? DEFAULT_EXPORT_NAME;
  const executionId = flags.executionId ?? newExecutionId(session.now());
  const bucket = await session.resources.exportBucket();
  const target = { bucket, prefix: scope.prefix, exportName, period: scope.period, executionId };
  const { manifestKey } = checkTarget({
    ...target,
    billingPeriod: scope.period,
    columns: REQUIRED_FOCUS_COLUMNS,
    dataFileNames: ['x.csv'],
  });
  const configured = await session.resources.exportSources();
  if (configured) {
    const problem = prefixOwnerProblem({ ...configured, ...scope, manifestKey });
    if (problem) throw new UsageError(problem);
  }

  const files = [];
  for (const path of flags.files) files.push(await inspectExportFile(path));
  checkExportFiles(files, scope.period);

  const total = files.reduce((sum, file) => sum + file.size, 0);
  const progress = createProgress(session.io.stderr, {
    label: 'upload',
    unit: 'B',
    total,
    now: session.now,
    silent: flags.progress === false || flags.json === true,
  });
  const result = await uploadExport(session.clients.s3, target, files, {
    onBytes: (sent) => progress.update(sent),
  }).finally(() => progress.stop());

  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ tenant: scope.tenant, ...target, ...result }));
    return EXIT.ok;
  }
  out.write(
    [
      `Uploaded ${plural(files.length, 'data file')} (${result.bytes} bytes), then the manifest:`,
      `  manifest      s3://${bucket}/${result.manifestKey}`,
      `  execution id  ${executionId}`,
      `  tenant ${scope.tenant}, period ${scope.period}, source ${bucket}/${scope.prefix === '' ? '' : `${scope.prefix}/`}${exportName}`,
      `Follow it with: billing-dedup export status --tenant ${scope.tenant} --period ${scope.period}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
};

/** `--source` as given, else every export under the tenant's prefix (or just `--export-name`). */
const sourcesOf = async (flags: ExportStatusFlags, scope: Scope, session: Session) => {
  if (flags.source) return { sources: [flags.source], where: flags.source };
  const bucket = await session.resources.exportBucket();
  const names = flags.exportName
    ? [flags.exportName]
    : await listExportNames(session.clients.s3, bucket, scope.prefix);
  return {
    sources: sourceIdsOf(bucket, scope.prefix, names),
    where: `s3://${bucket}/${scope.prefix}/`,
  };
};

const REASONS_SHOWN = 3;

const executionLines = (execution: ExecutionStatus): string[] => {
  const lines: string[] = [];
  const reasons = execution.rejections?.rejectedByReason ?? {};
  const top = topReasons(reasons, REASONS_SHOWN);
  if (top.length > 0) {
    const more = Object.keys(reasons).length - top.length;
    lines.push(
      `  ${execution.executionId} rejected: ${top.map(([reason, rows]) => `${reason} ${rows}`).join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
    );
    const sample = execution.rejections?.samples[0];
    if (sample) lines.push(`    e.g. ${sample.objectKey} row ${sample.row}: ${sample.reason}`);
  }
  if (execution.failure) lines.push(`  ${execution.executionId} failed: ${execution.failure}`);
  return [...lines, ...lateCorrectionLines(execution)];
};

const REFUSED_SHOWN = 5;

/** What the switch's correction pass did for closed periods (docs/exports.md#closed-periods). */
const lateCorrectionLines = ({ executionId, lateCorrections }: ExecutionStatus): string[] => {
  if (!lateCorrections) return [];
  const { sequence, booked, unchanged, rejected } = lateCorrections;
  const lines = [
    `  ${executionId} closed-period corrections (switch ${sequence}): ${booked} booked, ${unchanged} unchanged, ${rejected.length} rejected`,
    ...rejected
      .slice(0, REFUSED_SHOWN)
      .map(
        (correction) =>
          `    rejected ${correction.accountId} ${correction.currency} ${signedAmount(correction.amount)}: ${correction.code}`,
      ),
  ];
  if (rejected.length > REFUSED_SHOWN)
    lines.push(`    and ${rejected.length - REFUSED_SHOWN} more`);
  if (rejected.length > 0) {
    lines.push(
      '    to book them: reopen each period (billing-dedup period reopen), then redrive the export-chunks DLQ',
    );
  }
  return lines;
};

/** Which export counts where two exports of the period cover the same account (docs/exports.md). */
const shadowingLines = (shadowing: Shadowing | undefined): string[] => [
  ...(shadowing?.shadowedBy.length
    ? [
        `  shadowed by ${shadowing.shadowedBy[0]} on the accounts both cover: kept and shown, never added (exportSources[].precedence decides, else the export current first)`,
      ]
    : []),
  ...(shadowing?.shadows.length
    ? [`  authoritative over ${shadowing.shadows.join(', ')} on the accounts they share with it`]
    : []),
];

/** `billing-dedup export status`: the executions of a period per source, newest first. */
export const exportStatusCommand = async (
  flags: ExportStatusFlags,
  session: Session,
): Promise<number> => {
  const scope = scopeOf(flags);
  const ledgerTable = await session.resources.ledgerTable();
  const { sources, where } = await sourcesOf(flags, scope, session);
  const statuses = await readExportStatus(session.clients.dynamo, ledgerTable, {
    ...scope,
    sources,
  });
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ tenant: scope.tenant, period: scope.period, sources: statuses }));
    return EXIT.ok;
  }
  const withExecutions = statuses.filter((status) => status.executions.length > 0);
  if (withExecutions.length === 0) {
    out.write(
      `No export executions for tenant ${scope.tenant}, period ${scope.period} (${sources.length === 0 ? `no export under ${where}` : `looked at ${sources.join(', ')}`}).\n`,
    );
    return EXIT.ok;
  }
  const blocks = withExecutions.map(({ source, executions, shadowing }) =>
    [
      `Source ${source}, tenant ${scope.tenant}, period ${scope.period}: ${plural(executions.length, 'execution')}, newest first`,
      ...shadowingLines(shadowing),
      table(
        ['execution', 'status', 'tasks', 'rows', 'rejected', 'created', 'switched'],
        executions.map((execution) => [
          execution.executionId,
          execution.status,
          `${execution.tasksDone}/${execution.tasksTotal}`,
          String(execution.rows),
          String(execution.rejectedRows),
          execution.createdAt,
          execution.switchedAt ?? '',
        ]),
        ['left', 'left', 'right', 'right', 'right', 'left', 'left'],
      ),
      ...executions.flatMap(executionLines),
    ].join('\n'),
  );
  out.write(`${blocks.join('\n\n')}\n`);
  return EXIT.ok;
};

/** `billing-dedup export diff`: the stored diffs of a period, newest first, with their notifications. */
export const exportDiffCommand = async (
  flags: ExportDiffFlags,
  session: Session,
): Promise<number> => {
  const scope = scopeOf(flags);
  let threshold: string;
  try {
    threshold = parseThreshold(flags.threshold);
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(`--threshold: ${error.reason}`);
    throw error;
  }
  const ledgerTable = await session.resources.ledgerTable();
  const { sources, where } = await sourcesOf(flags, scope, session);
  const reports = await readExportDiffs(session.clients.dynamo, ledgerTable, {
    ...scope,
    sources,
    threshold,
  });
  const out = session.io.stdout;
  if (flags.json) {
    out.write(json({ tenant: scope.tenant, period: scope.period, threshold, sources: reports }));
    return EXIT.ok;
  }
  const withDiffs = reports.filter((report) => report.diffs.length > 0);
  if (withDiffs.length === 0) {
    out.write(
      `No snapshot switch yet for tenant ${scope.tenant}, period ${scope.period} (${sources.length === 0 ? `no export under ${where}` : `looked at ${sources.join(', ')}`}).\n`,
    );
    return EXIT.ok;
  }
  const blocks = withDiffs.flatMap(({ source, diffs }) =>
    diffs.map((diff) =>
      [
        `${diff.switchedAt}  source ${source}: ${diff.previousExecutionId ? `${diff.previousExecutionId} → ${diff.executionId}` : `first export of the period: ${diff.executionId}`}`,
        diff.accounts.length === 0
          ? '  no total changed'
          : table(
              ['account', 'currency', 'old', 'new', 'delta', 'charges'],
              diff.accounts.map((account) => [
                account.accountId,
                account.currency,
                account.old,
                account.new,
                signedAmount(account.delta),
                `${account.oldCharges} → ${account.newCharges}`,
              ]),
              ['left', 'left', 'right', 'right', 'right', 'right'],
            ),
        diff.previousExecutionId === undefined
          ? 'No notification: the first export of a period has no previous export to compare with.'
          : diff.notifications.length === 0
            ? `No notification: no total moved by ${threshold} or more.`
            : [
                `Notification text (|delta| ≥ ${threshold}):`,
                ...diff.notifications.map((notification) => `  ${notification.text}`),
              ].join('\n'),
      ].join('\n'),
    ),
  );
  out.write(`${blocks.join('\n\n')}\n`);
  return EXIT.ok;
};

type WithCommon = (command: Command) => Command;
type WithSession = (
  options: Record<string, unknown>,
  body: (session: Session) => Promise<number>,
) => Promise<void>;

const scopeFlags = (options: Record<string, unknown>): ExportScopeFlags => ({
  tenant: options.tenant as string,
  period: options.period as string,
  ...(typeof options.prefix === 'string' ? { prefix: options.prefix } : {}),
  ...(typeof options.exportName === 'string' ? { exportName: options.exportName } : {}),
  json: options.json === true,
});

/** Flags every export command has: which tenant, period and export source. */
const withScope = (command: Command): Command =>
  command
    .requiredOption('--tenant <tenant>', 'tenant the export belongs to')
    .requiredOption('--period <yyyy-mm>', 'billing period')
    .option(
      '--prefix <prefix>',
      'S3 prefix of the tenant’s export source (default: exports/<tenant>)',
    )
    .option('--bucket <name>', 'export bucket (instead of discovery: output ExportBucketName)');

/** `billing-dedup export put | status | diff`. */
export const registerExportCommands = (
  program: Command,
  withCommon: WithCommon,
  withSession: WithSession,
): void => {
  const exportGroup = program
    .command('export')
    .description(
      'Billing exports (FOCUS files): upload an execution, follow it, see what it changed',
    );

  withCommon(
    withScope(
      exportGroup
        .command('put')
        .description(
          'Upload FOCUS files (CSV, CSV.gz, Parquet) as one export execution: data files first, then the manifest',
        )
        .argument('<files...>', 'FOCUS data files of one billing period'),
    )
      .option('--export-name <name>', `export name (default: ${DEFAULT_EXPORT_NAME})`)
      .option('--execution-id <id>', 'execution id (default: a new time-ordered id)')
      .option('--no-progress', 'no progress display')
      .option('--json', 'result as JSON on stdout'),
  ).action((files: string[], options: Record<string, unknown>) =>
    withSession(options, (session) =>
      exportPutCommand(
        {
          ...scopeFlags(options),
          files,
          ...(typeof options.executionId === 'string' ? { executionId: options.executionId } : {}),
          progress: options.progress !== false,
        },
        session,
      ),
    ),
  );

  const readCommand = (name: string, description: string): Command =>
    withCommon(
      withScope(exportGroup.command(name).description(description))
        .option(
          '--source <id>',
          'one export source id (<bucket>/<prefix>/<export-name>); default: every export under the prefix',
        )
        .option('--export-name <name>', 'only this export under the prefix')
        .option('--table <name>', 'ledger table name (instead of discovery)')
        .option('--json', 'as JSON on stdout'),
    );

  readCommand(
    'status',
    'Executions of a billing period: status, tasks, rows, rejected rows and why, created/switched',
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      exportStatusCommand(
        {
          ...scopeFlags(options),
          ...(typeof options.source === 'string' ? { source: options.source } : {}),
        },
        session,
      ),
    ),
  );

  readCommand(
    'diff',
    'What each snapshot switch of a billing period changed (old, new, delta) and the notification text',
  )
    .option(
      '--threshold <amount>',
      'show the notification text of changes with |delta| ≥ amount (exact decimal)',
      '0',
    )
    .action((options: Record<string, unknown>) =>
      withSession(options, (session) =>
        exportDiffCommand(
          {
            ...scopeFlags(options),
            ...(typeof options.source === 'string' ? { source: options.source } : {}),
            threshold: options.threshold as string,
          },
          session,
        ),
      ),
    );
};
