/**
 * `billing-dedup` operator CLI: argument parsing (commander) and the one place errors become exit codes.
 * `run(argv, io, deps)` is the whole program as a function: tests call it with injected streams/clients.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { COST_STREAM } from '../contract/streams';
import { publishCommand } from './commands/publish';
import { peekCommand, redriveCommand } from './commands/dlq';
import { ledgerCommand } from './commands/ledger';
import { registerExportCommands } from './commands/export';
import { periodActionCommand, periodStatusCommand } from './commands/period';
import { chargeVoidCommand } from './commands/charge';
import { reconcileCommand } from './commands/reconcile';
import { acquireRunCommand, acquireStatusCommand } from './commands/acquire';
import { replayCommand } from './commands/replay';
import { keysCommand } from './commands/keys';
import { LATE_CHARGE_POLICY_CHOICES } from './operations/periods';
import type { LateChargePolicy } from '../lambda/core/ports';
import type { CliDeps, CliIo } from './context';
import { describeError, EXIT } from './errors';
import { STREAMS, type Stream } from './resources';
import { openSession, type CommonFlags, type Session } from './session';

const positiveNumber = (value: string): number => {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new InvalidArgumentError('must be a positive number');
  return number;
};

const positiveInteger = (value: string): number => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('must be a positive integer');
  return number;
};

const nonNegativeInteger = (value: string): number => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('must be an integer ≥ 0');
  return number;
};

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const streamOption = () =>
  new Option('--stream <stream>', STREAMS.join(' or ')).choices([...STREAMS]);

/** Discovery and region flags every command has. */
const withCommon = (command: Command): Command =>
  command
    .option(
      '--stack <name>',
      'stack name or stage prefix (billing-dedup-<stage>): reads its CloudFormation outputs',
    )
    .option(
      '--outputs-file <file>',
      'stack outputs of the local run (.local/stack-outputs.json; env BILLING_DEDUP_OUTPUTS_FILE)',
    )
    .option('--region <region>', 'AWS region (default: AWS_REGION / profile)');

const commonFlags = (options: Record<string, unknown>): CommonFlags => {
  const flags: CommonFlags = {};
  for (const key of [
    'stack',
    'outputsFile',
    'region',
    'topic',
    'queueUrl',
    'dlqUrl',
    'table',
    'bucket',
    'archiveBucket',
  ] as const) {
    const value = options[key];
    if (typeof value === 'string' && value !== '') flags[key] = value;
  }
  return flags;
};

export const buildProgram = (
  io: CliIo,
  deps: CliDeps,
  setExit: (code: number) => void,
): Command => {
  const withSession = async (
    options: Record<string, unknown>,
    body: (session: Session) => Promise<number>,
  ): Promise<void> => {
    const session = openSession(commonFlags(options), io, deps);
    try {
      setExit(await body(session));
    } finally {
      session.close();
    }
  };

  const program = new Command('billing-dedup')
    .description(
      'Operate billing-dedup: publish/replay billing events, upload and follow billing exports, inspect and redrive DLQs, read the ledger, close billing periods, void charges.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(run with --help for usage)')
    .helpCommand(true)
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 operational error (AWS), 2 usage error, 3 publish finished with rejected lines, 4 a rebuilt ledger differs.\n' +
        'Credentials, region and endpoints come from the AWS default chain (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL…).\n' +
        'Docs: docs/operations.md',
    );

  withCommon(
    program
      .command('publish')
      .description(
        'Publish or replay a JSONL or FOCUS CSV file to the SNS topics (idempotent: replays change no total)',
      )
      .requiredOption(
        '--input <file>',
        'JSONL (bare messages or local-run lines) or CSV with a FOCUS header row',
      )
      .addOption(
        new Option('--format <format>', 'input format (default: from the file extension)').choices([
          'jsonl',
          'csv',
        ]),
      )
      .option('--topic <arn>', 'topic ARN for every message (instead of discovery)')
      .addOption(streamOption().default(COST_STREAM))
      .option('--rate <msgs>', 'at most this many messages per second', positiveNumber)
      .option(
        '--tenant <tenant>',
        'set the "tenant" message attribute (FOCUS rows carry no tenant)',
      )
      .option('--attribute <name=value>', 'extra message attribute (repeatable)', collect)
      .option(
        '--strict',
        'validate messages for standard topics too (rejected client-side instead of landing in the DLQ)',
      )
      .option('--no-progress', 'no progress display')
      .option('--json', 'summary as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      publishCommand(
        {
          input: options.input as string,
          format: options.format as string | undefined,
          stream: options.stream as Stream,
          rate: options.rate as number | undefined,
          tenant: options.tenant as string | undefined,
          attribute: options.attribute as string[] | undefined,
          strict: options.strict === true,
          json: options.json === true,
          progress: options.progress !== false,
        },
        session,
      ),
    ),
  );

  withCommon(
    program
      .command('replay')
      .description(
        'Replay a tenant’s billing period from the evidence archive: re-publish its archived cost events ' +
          '(idempotent: an intact ledger does not change), or rebuild them into a fresh table and compare ' +
          'with the live ledger. Re-publishing replays stream charges only; a rebuild also runs the live ' +
          'export executions again on their pinned file versions.',
      )
      .option('--from-archive', 'read the events from the evidence archive (required)')
      .requiredOption('--tenant <tenant>', 'tenant')
      .requiredOption('--period <yyyy-mm>', 'billing period')
      .option('--dry-run', 'count what would be replayed; publish nothing')
      .option(
        '--rebuild-into <table>',
        'run the events through the cost processor, and the live export executions on their pinned ' +
          'files, into this fresh table (created when missing) and compare its statement totals with ' +
          'the live ledger; exit 4 when one differs',
      )
      .addOption(
        new Option(
          '--policy <policy>',
          'rebuild: the late-charge policy (default: the stage’s, else roll-forward)',
        ).choices([...LATE_CHARGE_POLICY_CHOICES]),
      )
      .option('--archive-bucket <name>', 'evidence archive bucket (instead of discovery)')
      .option('--topic <arn>', 'cost-events topic ARN (instead of discovery)')
      .option('--table <name>', 'live ledger table name (instead of discovery)')
      .option('--rate <msgs>', 'at most this many messages per second', positiveNumber)
      .option('--json', 'result as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      replayCommand(
        {
          fromArchive: options.fromArchive === true,
          tenant: options.tenant as string,
          period: options.period as string,
          dryRun: options.dryRun === true,
          rebuildInto: options.rebuildInto as string | undefined,
          policy: options.policy as LateChargePolicy | undefined,
          rate: options.rate as number | undefined,
          json: options.json === true,
        },
        session,
      ),
    ),
  );

  const dlq = program.command('dlq').description('Inspect and redrive dead-letter queues');

  withCommon(
    dlq
      .command('peek')
      .description(
        'Show DLQ messages with their rejection reason and receive count, without consuming them',
      )
      .addOption(streamOption())
      .option('--dlq-url <url>', 'dead-letter queue URL (instead of discovery)')
      .option(
        '--max <n>',
        'show at most n messages (each peek increments their receive count)',
        positiveInteger,
        10,
      )
      .option(
        '--hold-seconds <s>',
        'visibility timeout while peeking; released right after',
        nonNegativeInteger,
        30,
      )
      .option('--json', 'messages as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      peekCommand(
        {
          stream: options.stream as Stream | undefined,
          max: options.max as number,
          holdSeconds: options.holdSeconds as number,
          json: options.json === true,
        },
        session,
      ),
    ),
  );

  withCommon(
    dlq
      .command('redrive')
      .description(
        'Move DLQ messages back to the source queue (SQS message move task) and wait until done',
      )
      .addOption(streamOption())
      .option('--dlq-url <url>', 'dead-letter queue URL (instead of discovery)')
      .option(
        '--queue-url <url>',
        'source queue URL to move to (default: from the stack, else the DLQ’s source)',
      )
      .option('--dry-run', 'show how many messages would move and why they are there; move nothing')
      .option(
        '--sample <n>',
        'dry run: messages sampled for the reason breakdown',
        nonNegativeInteger,
        100,
      )
      .option(
        '--max-per-second <n>',
        'move rate limit (1-500; default: SQS adaptive)',
        positiveInteger,
      )
      .option('--no-progress', 'no progress display')
      .option('--json', 'result as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      redriveCommand(
        {
          stream: options.stream as Stream | undefined,
          dryRun: options.dryRun === true,
          sample: options.sample as number,
          maxPerSecond: options.maxPerSecond as number | undefined,
          json: options.json === true,
          progress: options.progress !== false,
        },
        session,
      ),
    ),
  );

  withCommon(
    program
      .command('reconcile')
      .description(
        'Reconciliation of a billing period against the provider: the latest nightly run, or --run now',
      )
      .requiredOption('--period <yyyy-mm>', 'billing period')
      .option('--tenant <tenant>', 'only this tenant')
      .option('--json', 'records and summary as JSON on stdout')
      .option('--run', 'run it now (Cost Explorer, records written; notifies nobody)')
      .option('--tolerance-percent <percent>', 'with --run: the tolerance (default 0.1)')
      .option('--floor <amount>', 'with --run: the absolute floor (default 0.01)')
      .option('--payer-tenant <tenant>', 'with --run: the tenant owning every account of the payer')
      .option('--table <name>', 'ledger table name (instead of discovery)'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      reconcileCommand(
        {
          period: options.period as string,
          ...(typeof options.tenant === 'string' ? { tenant: options.tenant } : {}),
          json: options.json === true,
          run: options.run === true,
          ...(typeof options.tolerancePercent === 'string'
            ? { tolerancePercent: options.tolerancePercent }
            : {}),
          ...(typeof options.floor === 'string' ? { floor: options.floor } : {}),
          ...(typeof options.payerTenant === 'string' ? { payerTenant: options.payerTenant } : {}),
        },
        session,
      ),
    ),
  );

  const acquire = program
    .command('acquire')
    .description(
      'Acquisitions of a tenant (config azureExports, gcpBillingExports): cursors, a pass now',
    );
  withCommon(
    acquire
      .command('status')
      .description(
        'The cursors of the tenant’s sources: an Azure export’s last run copied, a GCP table’s month jobs and watermarks',
      )
      .requiredOption('--tenant <tenant>', 'tenant')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--json', 'cursors as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      acquireStatusCommand(
        { tenant: options.tenant as string, json: options.json === true },
        session,
      ),
    ),
  );
  withCommon(
    acquire
      .command('run')
      .description(
        'One pass over each of the tenant’s Azure export and GCP billing sources now (your credentials: the secrets, the bucket, the table)',
      )
      .requiredOption('--tenant <tenant>', 'tenant')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--bucket <name>', 'export bucket name (instead of discovery)')
      .option(
        '--period <yyyy-mm>',
        'only this billing period: an Azure export’s runs of it, a GCP table’s invoice month',
      )
      .option('--json', 'the passes as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      acquireRunCommand(
        {
          tenant: options.tenant as string,
          json: options.json === true,
          ...(typeof options.period === 'string' ? { period: options.period } : {}),
        },
        session,
      ),
    ),
  );

  withCommon(
    program
      .command('ledger')
      .description(
        'Ledger statement: totals per currency and the charges behind them (exact decimals)',
      )
      .option('--tenant <tenant>', 'tenant', 'default')
      .option('--account <id>', 'account id (with --period: a full statement)')
      .option('--period <yyyy-mm>', 'billing period')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option(
        '--evidence',
        "with a statement: each charge's archived messages and what happened to each copy",
      )
      .option(
        '--limit <n>',
        'with --evidence: print at most n export rows per snapshot (the sums are over all of them)',
        positiveInteger,
      )
      .option('--archive-bucket <name>', 'evidence archive bucket (instead of discovery)')
      .option('--json', 'statement as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      ledgerCommand(
        {
          tenant: options.tenant as string,
          account: options.account as string | undefined,
          period: options.period as string | undefined,
          json: options.json === true,
          evidence: options.evidence === true,
          limit: options.limit as number | undefined,
        },
        session,
      ),
    ),
  );

  registerExportCommands(program, (command) => withCommon(command), withSession);

  const period = program
    .command('period')
    .description('Close, reopen and inspect billing periods (per tenant, account and month)');
  const periodKeyOptions = (command: Command): Command =>
    command
      .option('--tenant <tenant>', 'tenant', 'default')
      .requiredOption('--account <id>', 'account id')
      .requiredOption('--period <yyyy-mm>', 'billing period')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--json', 'the period as JSON on stdout');
  for (const action of ['close', 'reopen'] as const) {
    const command = periodKeyOptions(
      period
        .command(action)
        .description(
          action === 'close'
            ? 'Close a billing period that has ended: its total is final; later charges follow the late-charge policy'
            : 'Reopen a closed billing period (audited; later charges land in it again)',
        ),
    ).option(
      '--reason <text>',
      action === 'close'
        ? 'why (kept in the audit record)'
        : 'why (required; kept in the audit record)',
    );
    if (action === 'close')
      command.option(
        '--force',
        'close an account-period that holds no data yet (data arriving later then follows the late-charge policy)',
      );
    withCommon(command).action((options: Record<string, unknown>) =>
      withSession(options, (session) =>
        periodActionCommand(
          action,
          {
            tenant: options.tenant as string,
            account: options.account as string,
            period: options.period as string,
            reason: options.reason as string | undefined,
            json: options.json === true,
            force: options.force === true,
          },
          session,
        ),
      ),
    );
  }
  withCommon(
    period
      .command('status')
      .description(
        'Each billing period: state, total at close, corrections booked after it, who closed it, when and why',
      )
      .option('--tenant <tenant>', 'tenant', 'default')
      .option('--account <id>', 'account id (default: every account of the tenant)')
      .option('--period <yyyy-mm>', 'billing period (default: every period)')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--json', 'periods as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      periodStatusCommand(
        {
          tenant: options.tenant as string,
          account: options.account as string | undefined,
          period: options.period as string | undefined,
          json: options.json === true,
        },
        session,
      ),
    ),
  );

  const keys = program
    .command('keys')
    .description(
      'Usage ingest API keys (per tenant and source, stored hashed): create, rotate, revoke, list — no redeploy',
    );
  const keyActions = [
    ['create', "Issue a new API key (shown once); the tenant and source's other keys keep working"],
    [
      'rotate',
      'Issue a new API key and let the other live keys of this tenant and source work for --grace-seconds, then refuse them',
    ],
    ['revoke', 'Refuse one API key from now on (--key-id, from `keys list`)'],
    ['list', 'Every API key of a tenant (and source): id, created, state; never the key'],
  ] as const;
  for (const [action, description] of keyActions) {
    const command = keys
      .command(action)
      .description(description)
      .requiredOption('--tenant <tenant>', 'tenant the key binds')
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--json', 'the result as JSON on stdout');
    if (action === 'list') command.option('--source <source>', 'only this source');
    else command.requiredOption('--source <source>', 'source the key binds (e.g. metering)');
    if (action === 'revoke')
      command.requiredOption('--key-id <id>', 'the key id `keys list` shows');
    if (action === 'rotate')
      command.option(
        '--grace-seconds <n>',
        'how long the replaced keys keep working (default 86400)',
        nonNegativeInteger,
      );
    withCommon(command).action((options: Record<string, unknown>) =>
      withSession(options, (session) =>
        keysCommand(
          action,
          {
            tenant: options.tenant as string,
            source: options.source as string | undefined,
            keyId: options.keyId as string | undefined,
            graceSeconds: options.graceSeconds as number | undefined,
            json: options.json === true,
          },
          session,
        ),
      ),
    );
  }

  const charge = program.command('charge').description('Act on one charge of the ledger');
  withCommon(
    charge
      .command('void')
      .description(
        'Void one charge (reverses its amount; the charge and an audit record stay; later copies change nothing)',
      )
      .option('--tenant <tenant>', 'tenant', 'default')
      .requiredOption('--account <id>', 'account id')
      .requiredOption('--period <yyyy-mm>', 'billing period of the charge')
      .requiredOption(
        '--charge <ref>',
        'the charge: its sort key (CHARGE#…, see ledger --json), a unique digest prefix, or its identity id',
      )
      .requiredOption('--reason <text>', 'why (kept in the audit record)')
      .addOption(
        new Option(
          '--policy <policy>',
          'late-charge policy when the period is closed (default: the stack output LateChargePolicy)',
        ).choices([...LATE_CHARGE_POLICY_CHOICES]),
      )
      .option('--table <name>', 'ledger table name (instead of discovery)')
      .option('--json', 'result as JSON on stdout'),
  ).action((options: Record<string, unknown>) =>
    withSession(options, (session) =>
      chargeVoidCommand(
        {
          tenant: options.tenant as string,
          account: options.account as string,
          period: options.period as string,
          charge: options.charge as string,
          reason: options.reason as string,
          policy: options.policy as LateChargePolicy | undefined,
          json: options.json === true,
        },
        session,
      ),
    ),
  );

  return program;
};

/** The CLI as a function: parses `argv` (without node and script), returns the exit code. */
export const run = async (argv: string[], io: CliIo, deps: CliDeps = {}): Promise<number> => {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, deps, (code) => {
    exitCode = code;
  });
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code))
        return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return EXIT.usage; // commander already printed the message
    }
    const { message, exitCode: code } = describeError(error);
    io.stderr.write(`billing-dedup: ${message}\n`);
    return code;
  }
};

/** Entry point of cli/bin.js. */
export const main = async (argv = process.argv.slice(2)): Promise<number> =>
  run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
