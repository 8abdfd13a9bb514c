import { COST_STREAM } from '../../contract/streams';
import type { LateChargePolicy } from '../../lambda/core/ports';
import { EXIT, UsageError } from '../errors';
import { json, plural, table } from '../format';
import {
  prepareRebuildTable,
  readArchivedCostEvents,
  rebuildLedger,
  replayInput,
  type ArchivedCostEvents,
  type RebuildResult,
} from '../operations/archive-replay';
import { validatePeriod, validateTenant } from '../operations/ledger';
import { LATE_CHARGE_POLICY_CHOICES } from '../operations/periods';
import { PublishAbortedError, publishItems, publishTargetOf } from '../operations/publish';
import type { Session } from '../session';

export interface ReplayFlags {
  fromArchive: boolean;
  tenant: string;
  period: string;
  dryRun?: boolean;
  rebuildInto?: string;
  policy?: LateChargePolicy;
  rate?: number;
  json?: boolean;
}

const selectionText = (tenant: string, period: string, archived: ArchivedCostEvents): string =>
  `Archive ${archived.prefix}: ${plural(archived.records, 'record')}, ` +
  `${plural(archived.events.length, 'cost event')} to replay for tenant ${tenant}, period ${period} ` +
  `(${archived.sameContent} with the content of an earlier one and ${archived.notBooked} never booked left out)\n`;

const comparisonText = (table_: string, liveTable: string, result: RebuildResult): string => {
  const { comparison } = result;
  const outcomes = Object.entries(result.outcomes)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  const lines = [
    `Rebuilt into ${table_}: ${outcomes || 'nothing booked'}; ${plural(result.exports, 'export execution')} run again on their pinned files; ` +
      `${plural(result.closes, 'close')} and ${plural(result.voids, 'void')} of the live ledger applied.`,
  ];
  for (const rejection of result.rejections)
    lines.push(`  rejected ${rejection.messageId}: ${rejection.reason}`);
  if (comparison.differences.length === 0) {
    lines.push(
      `Equal: the rebuilt statement totals (stream and export) equal ${liveTable} exactly (${plural(comparison.equal, 'account-currency total')}).`,
    );
  } else {
    lines.push(
      `Differences: ${comparison.differences.length} of ${comparison.equal + comparison.differences.length} account-currency totals differ from ${liveTable}:`,
      table(
        ['ACCOUNT', 'CURRENCY', 'LIVE', 'CHARGES', 'REBUILT', 'CHARGES'],
        comparison.differences.map((difference) => [
          difference.accountId,
          difference.currency,
          difference.live.total,
          String(difference.live.charges),
          difference.rebuilt.total,
          String(difference.rebuilt.charges),
        ]),
        ['left', 'left', 'right', 'right', 'right', 'right'],
      ).trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
};

const policyOf = async (
  flags: ReplayFlags,
  session: Session,
): Promise<LateChargePolicy | undefined> => {
  if (flags.policy) return flags.policy;
  const deployed = await session.resources.lateChargePolicy();
  return LATE_CHARGE_POLICY_CHOICES.find((choice) => choice === deployed);
};

/**
 * `billing-dedup replay --from-archive`: the archived cost events of a tenant's period, once per charge
 * content, re-published through the cost topic (`--dry-run`: only counted), or with `--rebuild-into`
 * run through the cost processor into a fresh table and compared with the live ledger (exit 4 when a
 * total differs). Stream charges only: export files are not replayed.
 */
export const replayCommand = async (flags: ReplayFlags, session: Session): Promise<number> => {
  if (!flags.fromArchive)
    throw new UsageError('replay reads the evidence archive only: pass --from-archive');
  if (flags.dryRun && flags.rebuildInto)
    throw new UsageError('--dry-run and --rebuild-into exclude each other');
  const tenant = validateTenant(flags.tenant);
  const period = validatePeriod(flags.period);
  const { io, resources, clients } = session;
  const archived = await readArchivedCostEvents(
    clients.s3,
    await resources.archiveBucket(),
    tenant,
    period,
  );
  const summary = selectionText(tenant, period, archived);
  const selection = {
    tenant,
    period,
    prefix: archived.prefix,
    records: archived.records,
    events: archived.events.length,
  };

  if (flags.rebuildInto) {
    const liveTable = await resources.ledgerTable();
    const policy = (await policyOf(flags, session)) ?? 'roll-forward';
    const prepared = await prepareRebuildTable(clients.dynamo, flags.rebuildInto, liveTable);
    const result = await rebuildLedger(archived.events, {
      dynamo: clients.dynamo,
      s3: clients.s3,
      tenant,
      periods: [period],
      configured: (await resources.exportSources())?.sources,
      liveTable,
      table: flags.rebuildInto,
      policy,
    });
    if (flags.json)
      io.stdout.write(
        json({
          ...selection,
          sameContent: archived.sameContent,
          notBooked: archived.notBooked,
          table: flags.rebuildInto,
          tableWas: prepared,
          liveTable,
          policy,
          scope: 'stream charges and export executions',
          ...result,
        }),
      );
    else io.stdout.write(summary + comparisonText(flags.rebuildInto, liveTable, result));
    return result.comparison.differences.length === 0 ? EXIT.ok : EXIT.differences;
  }

  if (flags.dryRun) {
    io.stdout.write(
      flags.json
        ? json({
            ...selection,
            sameContent: archived.sameContent,
            notBooked: archived.notBooked,
            dryRun: true,
          })
        : `${summary}Dry run: nothing published.\n`,
    );
    return EXIT.ok;
  }

  const target = await publishTargetOf(resources, COST_STREAM, tenant);
  try {
    const published = await publishItems(replayInput(archived.events), {
      sns: clients.sns,
      targetFor: () => Promise.resolve(target),
      rate: flags.rate,
      now: session.now,
      sleep: session.sleep,
    });
    io.stdout.write(
      flags.json
        ? json({
            ...selection,
            published: published.published,
            rejected: published.rejections,
            topicArn: target.topicArn,
          })
        : `${summary}Published ${published.published} of ${plural(archived.events.length, 'event')} to ${target.topicArn}` +
            ` (idempotent: a charge already in the ledger changes nothing).\n` +
            published.rejections.map((r) => `  event ${r.line}: ${r.reason}\n`).join(''),
    );
    return published.rejections.length > 0 ? EXIT.rejectedLines : EXIT.ok;
  } catch (error) {
    if (!(error instanceof PublishAbortedError)) throw error;
    io.stdout.write(
      `${summary}Stopped after ${error.summary.published} published: rerunning the replay is safe.\n`,
    );
    throw error.cause;
  }
};
