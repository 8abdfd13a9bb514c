import Big from 'big.js';
import { CliError, EXIT } from '../errors';
import { json, plural, table } from '../format';
import type { LedgerCharge, LedgerTotal } from '../../lambda/adapters/ledger-reader';
import type { PeriodStatus } from '../../lambda/core/ports';
import { readStatementEvidence, type StatementEvidence } from '../operations/charge-evidence';
import { readExportEvidence, type SnapshotEvidence } from '../operations/export-row-evidence';
import { readStatement, readTotals, validateTenant, type Statement } from '../operations/ledger';
import type { Session } from '../session';

export interface LedgerFlags {
  tenant: string;
  account?: string;
  period?: string;
  json?: boolean;
  /** With a statement: each charge's archived messages and what happened to each copy. */
  evidence?: boolean;
  /** With --evidence: export rows printed per snapshot (their sums are always over all rows). */
  limit?: number;
}

const identity = (kind: string, id: string): string =>
  `${kind}:${id.length > 28 ? `${id.slice(0, 27)}…` : id}`;

/** `12.5 of 2026-10` for each corrected period (empty: none). */
const correctionsText = (corrections: LedgerTotal['corrections']): string =>
  (corrections ?? []).map((c) => `${c.total} of ${c.of}`).join(', ');

const statusLine = (status: PeriodStatus): string => {
  if (status.state === 'closed')
    return `Status: closed ${status.closedAt ?? ''} by ${status.closedBy ?? '?'} (${status.closeReason ?? ''}); total at close: ${
      status.totalsAtClose.map((t) => `${t.currency} ${t.total}`).join(', ') || 'nothing booked'
    }`;
  return status.reopenedAt
    ? `Status: open (reopened ${status.reopenedAt} by ${status.reopenedBy ?? '?'}: ${status.reopenReason ?? ''})`
    : 'Status: open';
};

/** What moved between this period and others: late data of earlier periods here, of this period later. */
const correctionLines = (statement: Statement): string[] => {
  const later = statement.status.correctionsBookedLater;
  if (later.length === 0) return [];
  return [
    '',
    'Corrections of this period booked in later periods (not in the totals above):',
    ...later.map(
      (c) => `  in ${c.bookedIn}: ${c.currency} ${c.total} (${plural(c.charges, 'charge')})`,
    ),
  ];
};

/** Snapshots of other exports of the account, left out of the totals (docs/exports.md). */
const shadowedLines = (statement: Statement): string[] => {
  const shadowed = statement.totals.flatMap((t) =>
    (t.shadowed ?? []).map((s) => ({ ...s, currency: t.currency })),
  );
  if (shadowed.length === 0) return [];
  return [
    '',
    'Shadowed exports (the same spend seen by another export: kept, not in the totals above):',
    ...shadowed.map(
      (s) =>
        `  ${s.currency} ${s.total} (${plural(s.charges, 'charge')}) from ${s.source} execution ${s.executionId}; ${s.authoritative} counts instead`,
    ),
  ];
};

/**
 * Stream charges superseded by their provider's export, left out of the totals, with the part that
 * arrived after the period closed (docs/ledger.md#late-provisional-charges).
 */
export const provisionalText = (t: LedgerTotal): string[] =>
  (t.provisional ?? []).map(
    (p) =>
      `${t.currency} ${p.total} (${plural(p.charges, 'charge')}) of source ${p.source}` +
      (p.late
        ? `, of which ${p.late.total} (${plural(p.late.charges, 'charge')}) arrived after the close`
        : '') +
      `; the export ${p.supersededBy} counts instead`,
  );

const provisionalLines = (totals: readonly LedgerTotal[], where: (t: LedgerTotal) => string) => {
  const lines = totals.flatMap((t) => provisionalText(t).map((text) => `  ${where(t)}${text}`));
  return lines.length === 0
    ? []
    : [
        '',
        'Provisional stream charges (superseded by the export of their provider: kept, not in the totals above):',
        ...lines,
      ];
};

/** What the stream said against the export that superseded it, at each switch (docs/exports.md). */
const driftLines = (statement: Statement): string[] =>
  statement.drifts.length === 0
    ? []
    : [
        '',
        'Stream vs export at each switch that superseded stream charges (stream − export; ratio of the export):',
        ...statement.drifts.flatMap((drift) =>
          drift.currencies.map(
            (c) =>
              `  ${drift.switchedAt} ${drift.source} ${drift.executionId}: ${c.currency} stream ${c.stream} (${plural(c.streamCharges, 'charge')} of ${drift.provider}), ` +
              `export ${c.export}, difference ${c.difference}${c.ratio === undefined ? '' : ` (${new Big(c.ratio).times(100).round(4).toFixed()} %)`}` +
              `${c.above ? ' — above the threshold, notified' : ''}`,
          ),
        ),
      ];

const chargeNote = (charge: LedgerCharge, period: string): string =>
  [
    ...(charge.bookedIn && charge.bookedIn !== period ? [`booked in ${charge.bookedIn}`] : []),
    ...(charge.voidedAt ? [`voided ${charge.voidedAt}`] : []),
  ].join('; ');

/** Each charge's archived messages: `v2 m-1 sent …: applied at …; duplicate at …`. */
const evidenceLines = (statement: Statement, evidence: StatementEvidence): string[] => {
  const bySortKey = new Map(evidence.charges.map((charge) => [charge.sk, charge.messages]));
  return [
    '',
    `Evidence (${evidence.archive}, ${plural(evidence.records, 'archived record')}):`,
    ...statement.charges.flatMap((charge) => {
      const messages = bySortKey.get(charge.sk) ?? [];
      return [
        `  ${charge.identityKind}:${charge.identityId}${charge.version ? ` v${charge.version}` : ''} ${charge.amount} ${charge.currency}`,
        ...(messages.length === 0
          ? [
              charge.chargeClass === 'correction' &&
              charge.identityId.startsWith('export-correction:')
                ? '    an export correction: booked by an export switch, not by a message (see the export executions)'
                : '    no archived message (booked before the archive, or the archive has expired)',
            ]
          : messages.map(
              (message) =>
                `    ${message.version ? `v${message.version} ` : ''}message ${message.messageId} sent ${message.sentAt}: ` +
                message.copies
                  .map(
                    (copy) =>
                      `${copy.outcome} ${copy.receivedAt}${copy.reason ? ` (${copy.reason})` : ''}`,
                  )
                  .join('; '),
            )),
      ];
    }),
  ];
};

const pinText = (row: SnapshotEvidence['rows'][number]): string =>
  row.versionId
    ? `version ${row.versionId} ETag ${row.eTag ?? '?'}`
    : row.eTag
      ? `ETag ${row.eTag}`
      : 'not pinned';

/** Each counted (or shadowed) snapshot's booked rows, then their sums against the SNAPSHOT item. */
const exportEvidenceLines = (snapshots: readonly SnapshotEvidence[]): string[] =>
  snapshots.flatMap((snapshot) => [
    '',
    `Export rows of ${snapshot.source} execution ${snapshot.executionId} (${snapshot.role}; ` +
      `${plural(snapshot.booked, 'booked row')} of the account, ${plural(snapshot.read, 'row')} read at the pinned versions):`,
    ...snapshot.rows.map(
      (row) => `  ${row.objectKey} ${pinText(row)} row ${row.row}: ${row.amount} ${row.currency}`,
    ),
    ...(snapshot.booked > snapshot.rows.length
      ? [`  … ${plural(snapshot.booked - snapshot.rows.length, 'more row')} (--limit)`]
      : []),
    ...snapshot.checks.map(
      (check) =>
        `  ${check.equal ? 'Check' : 'CHECK FAILED'}: ${check.currency} rows ${check.rowsTotal} (${plural(check.rows, 'row')}), ` +
        `snapshot ${check.snapshotTotal} (${plural(check.snapshotCharges, 'charge')})`,
    ),
  ]);

/** The snapshots whose rows do not sum to their SNAPSHOT item, as one message. */
const exportMismatch = (snapshots: readonly SnapshotEvidence[]): string | undefined => {
  const failed = snapshots.flatMap((snapshot) =>
    snapshot.checks
      .filter((check) => !check.equal)
      .map(
        (check) =>
          `${snapshot.executionId} ${check.currency}: rows ${check.rowsTotal} (${check.rows}) vs snapshot ${check.snapshotTotal} (${check.snapshotCharges})`,
      ),
  );
  return failed.length === 0
    ? undefined
    : `Export rows do not add up to their snapshot (${failed.join('; ')}): the pinned files no longer say what was booked; investigate before trusting this statement (see docs/operations.md)`;
};

/** `billing-dedup ledger`: a statement (tenant + account + period) or a totals listing (scan). */
export const ledgerCommand = async (flags: LedgerFlags, session: Session): Promise<number> => {
  const tenant = validateTenant(flags.tenant);
  const table_ = await session.resources.ledgerTable();
  const { dynamo } = session.clients;
  const out = session.io.stdout;

  if (!flags.account || !flags.period) {
    const totals = await readTotals(dynamo, table_, {
      tenant,
      ...(flags.account ? { accountId: flags.account } : {}),
      ...(flags.period ? { period: flags.period } : {}),
    });
    if (flags.json) {
      out.write(json({ table: table_, totals }));
      return EXIT.ok;
    }
    out.write(
      totals.length === 0
        ? `No ledger totals for tenant ${tenant}${flags.account ? ` account ${flags.account}` : ''}${flags.period ? ` period ${flags.period}` : ''}.\n`
        : `${table(
            [
              'tenant',
              'account',
              'period',
              'currency',
              'total',
              'charges',
              'status',
              'corrections',
            ],
            totals.map((t) => [
              t.tenant,
              t.accountId,
              t.period,
              t.currency,
              t.total,
              String(t.charges),
              t.status ?? 'open',
              correctionsText(t.corrections),
            ]),
            ['left', 'left', 'left', 'left', 'right', 'right', 'left', 'left'],
          )}${provisionalLines(totals, (t) => `${t.accountId} ${t.period}: `)
            .map((line) => `${line}\n`)
            .join(
              '',
            )}\n(Totals only; a total includes the corrections booked in it. Pass --account and --period for the charges behind one of them.)\n`,
    );
    return EXIT.ok;
  }

  const statement = await readStatement(dynamo, table_, {
    tenant,
    accountId: flags.account,
    period: flags.period,
  });
  const inconsistent = statement.checks.filter((check) => !check.consistent);
  const evidence = flags.evidence
    ? await readStatementEvidence(
        session.clients.s3,
        await session.resources.archiveBucket(),
        statement,
        statement.charges,
      )
    : undefined;
  const exportEvidence = flags.evidence
    ? await readExportEvidence(dynamo, session.clients.s3, table_, {
        ...statement,
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        configured: (await session.resources.exportSources())?.sources,
      })
    : undefined;
  if (flags.json) {
    out.write(
      json({
        table: table_,
        ...statement,
        ...(evidence ? { evidence: { ...evidence, exports: exportEvidence ?? [] } } : {}),
      }),
    );
  } else {
    const lines = [
      `Ledger statement: tenant ${statement.tenant}, account ${statement.accountId}, period ${statement.period}`,
      statusLine(statement.status),
      '',
    ];
    if (statement.totals.length === 0 && statement.charges.length === 0) {
      lines.push('No charges booked for this tenant, account and period.');
    } else {
      lines.push(
        table(
          ['currency', 'total', 'charges', 'status', 'of which corrections'],
          statement.totals.map((t) => [
            t.currency,
            t.total,
            String(t.charges),
            t.status ?? 'open',
            correctionsText(t.corrections),
          ]),
          ['left', 'right', 'right', 'left', 'left'],
        ),
        ...correctionLines(statement),
        ...shadowedLines(statement),
        ...provisionalLines(statement.totals, () => ''),
        ...driftLines(statement),
        '',
        `Charges (${statement.charges.length}):`,
        table(
          [
            'charge start',
            'category',
            'service',
            'sku',
            'identity',
            'ver',
            'amount',
            'cur',
            'note',
          ],
          statement.charges.map((c) => [
            c.chargePeriodStart,
            c.chargeClass ? `${c.chargeCategory}/${c.chargeClass}` : c.chargeCategory,
            c.service ?? '',
            c.skuId ?? '',
            identity(c.identityKind, c.identityId),
            c.version ? String(c.version) : '',
            c.amount,
            c.currency,
            chargeNote(c, statement.period),
          ]),
          ['left', 'left', 'left', 'left', 'left', 'right', 'right', 'left', 'left'],
        ),
        '',
        inconsistent.length === 0
          ? `Check: the charges add up to every total (${plural(statement.checks.length, 'currency', 'currencies')}).`
          : inconsistent
              .map(
                (c) =>
                  `CHECK FAILED for ${c.currency}: ${c.charges} charges sum to ${c.chargesSum} but the total is ${c.total}` +
                  (c.correctionsIn !== '0' || c.correctionsLater !== '0'
                    ? ` (corrections booked here ${c.correctionsIn}, booked later ${c.correctionsLater})`
                    : ''),
              )
              .join('\n'),
        ...(evidence ? evidenceLines(statement, evidence) : []),
        ...exportEvidenceLines(exportEvidence ?? []),
      );
    }
    out.write(`${lines.join('\n')}\n`);
  }
  if (inconsistent.length > 0)
    throw new CliError(
      'Ledger totals and charges disagree: investigate before trusting this statement (see docs/operations.md)',
    );
  const mismatch = exportMismatch(exportEvidence ?? []);
  if (mismatch) throw new CliError(mismatch);
  return EXIT.ok;
};
