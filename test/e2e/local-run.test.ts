/**
 * The local runtime end to end, in-process: the synthesized stack, the real handlers, faults, and the
 * verdict against the generator's ground truth.
 */
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';
import { DEFAULT_SAMPLE_FAULTS } from '../../local/runtime/faults';
import { generateSample } from '../../local/scenarios/generator';
import { PUSH_ACCOUNTS, PUSH_BURST_SIZE } from '../../local/scenarios/push-requests';
import type { RecordEvent } from '../../local/runtime/poller';
import type { CostStreamReport } from '../../local/report/run-report';
import { runLocal } from '../../local/phases/run-local';
import { ACQUISITION_TENANTS } from '../../local/phases/acquisitions';
import { publishedMessageOf } from '../support/published-message';

const quiet = { outputsFile: false as const, handlerLogFile: false as const };

describe('npm start (in-process)', () => {
  it('runs the default sample with light faults and passes its verdict exactly; poison ends in the DLQ once, with its reason', async () => {
    const sample = generateSample({ seed: 42 });
    const result = await runLocal({ ...quiet, seed: 42, faults: DEFAULT_SAMPLE_FAULTS });
    const { report } = result;
    expect(report.verdict).toMatchObject({ status: 'PASS' });
    expect(result.exitCode).toBe(0);
    const closing = sample.closing ? [...sample.closing.before, ...sample.closing.after] : [];
    expect(report.published).toBe(sample.messages.length + closing.length);
    expect(report.published).toBeGreaterThan(1500);
    // Rows list the stream charges an export supersedes (`provisional`); the truth has their totals.
    const sampleLedger = report.ledger.filter((t) => !ACQUISITION_TENANTS.includes(t.tenant));
    expect(sampleLedger.map(({ provisional: _provisional, ...row }) => row)).toEqual(
      sample.truth.ledger,
    );
    // The acquisitions: both providers, two passes each; the second supersedes the first snapshot.
    const acquisitions = report.acquisitions ?? [];
    expect(acquisitions.map((a) => [a.provider, a.pass, a.status])).toEqual([
      ['gcp', 1, 'ok'],
      ['azure', 1, 'ok'],
      ['gcp', 2, 'ok'],
      ['azure', 2, 'ok'],
    ]);
    for (const a of acquisitions) expect(a.ledger).toBe(a.truth);
    const gcp = acquisitions.filter((a) => a.provider === 'gcp');
    expect(gcp.every((a) => a.retries > 0 && a.throttleWaits > 0 && a.pages > 1)).toBe(true);
    expect(gcp[1].truth).not.toBe(gcp[0].truth);
    expect(report.verdict.checks.find((c) => c.name === 'acquisitions')).toMatchObject({
      ok: true,
    });
    expect(
      report.exports
        .filter((e) => ACQUISITION_TENANTS.includes(e.tenant))
        .map((e) => [e.tenant, e.status]),
    ).toEqual([
      ['acq-azure', 'superseded'],
      ['acq-azure', 'current'],
      ['acq-gcp', 'superseded'],
      ['acq-gcp', 'current'],
    ]);
    expect(report.ledger.some((t) => (t.provisional ?? []).length > 0)).toBe(true);
    const totalOf = (tenant: string, accountId: string) =>
      report.ledger.find(
        (t) => t.tenant === tenant && t.accountId === accountId && t.period === '2026-11',
      );
    // The Azure AIP budget alert's key is its month of receipt: the push answer carries it.
    const receivedKeys = (report.push?.outcomes ?? []).flatMap((o) => o.alertKey ?? []);
    expect(receivedKeys).toHaveLength(1);
    expect(report.notifications.map((n) => n.key).sort()).toEqual(
      [...sample.truth.notificationKeys, ...receivedKeys].sort(),
    );
    // The push endpoint: every request answered as the sample expects; what the forgeries, the
    // replay and the reused key would have added is not in the ledger or the notifications above.
    expect(report.push?.outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(report.push?.byRoute).toMatchObject({
      pubsub: {
        accepted: 4,
        refused: {
          'bad-signature': 1,
          expired: 1,
          'tenant-mismatch': 1,
          'wrong-audience': 1,
          'unknown-sender': 1,
        },
      },
      azure: { accepted: 3, refused: { 'wrong-secret': 1, 'missing-credential': 1 } },
      ingest: { replayed: 1, conflicts: 1, refused: { 'tenant-mismatch': 1, 'wrong-secret': 1 } },
      iam: { accepted: 1, refused: { 'unknown-caller': 1, '403': 1 } },
    });
    expect(report.push?.byRoute.ingest.throttled).toBeGreaterThan(0);
    expect(totalOf('acme', PUSH_ACCOUNTS.acme)).toMatchObject({ total: '36.65', charges: 5 });
    expect(totalOf('initech', PUSH_ACCOUNTS.initech)).toMatchObject({
      total: '0.65',
      charges: PUSH_BURST_SIZE,
    });
    expect(report.run.injected['ack-loss']).toBeGreaterThan(0);
    expect(report.broker.redeliveries).toBeGreaterThan(0);
    expect(report.broker.deduplicated).toBeGreaterThan(0);
    // Three conflicting messages in the sample; a lost ack after a conflict processes it once more
    // (counted again), but it reaches the DLQ once.
    expect((report.streams['cost-events'] as CostStreamReport).conflicts).toBeGreaterThanOrEqual(3);
    const conflicts = result.deadLetters['cost-events'].filter(
      (dead) => dead.attributes[REJECTION_ATTRIBUTES.code] === 'conflict',
    );
    expect(conflicts).toHaveLength(3);

    // The hidden-state cases: each one's truth is part of the ledger equality above; here by name.
    expect(totalOf('acme', '200000000019')).toMatchObject({ total: '19.99', charges: 1 });
    expect(totalOf('initech', 'Compte Général 7')).toMatchObject({ total: '8.75', charges: 1 });
    expect(report.ledger.some((t) => t.accountId.includes('\u200b'))).toBe(false);
    expect(totalOf('acme', '200000000012')?.total).toMatch(/0123456789$/);

    const poison = sample.messages.filter((m) => m.note?.startsWith('poison'));
    expect(poison.map((m) => m.note)).toEqual(
      expect.arrayContaining(['poison: account id with U+200B', 'poison: amount of 38 nines']),
    );
    for (const message of poison) {
      const copies = result.deadLetters[message.topic].filter(
        (dead) => publishedMessageOf(dead.body) === message.message,
      );
      // Exactly once, lost acks included: the consumer marks each forwarded SQS message.
      expect(copies).toHaveLength(1);
      expect(copies[0].attributes[REJECTION_ATTRIBUTES.reason]).toBeTruthy();
      expect(copies[0].attributes[REJECTION_ATTRIBUTES.code]).toMatch(
        /malformed-body|unknown-format|missing-field|invalid-field/,
      );
    }
  }, 360_000);

  it('a record that keeps failing reaches the DLQ after maxReceiveCount receives, and nothing else is lost', async () => {
    const sample = generateSample({ seed: 7, chargesPerAccountMonth: 8, pushes: false });
    const doomed = {
      tenant: 'acme',
      source: 'aws',
      eventId: 'evt-doomed',
      // Its own account, so its own FIFO message group: in a shared group, the records behind it are
      // returned unprocessed with it on every attempt and exhaust their receives too (real FIFO behaviour).
      accountId: '299999999999',
      chargePeriodStart: '2026-11-20T10:00:00Z',
      chargeCategory: 'usage',
      resourceId: 'doomed-resource',
      amount: '99.5',
      currency: 'USD',
    };
    const doomedText = JSON.stringify(doomed);
    sample.messages.splice(Math.floor(sample.messages.length / 3), 0, {
      topic: 'cost-events',
      message: doomedText,
      note: 'doomed',
    });
    const deliveries: RecordEvent[] = [];
    const result = await runLocal({
      ...quiet,
      seed: 7,
      sample,
      acquisitions: false,
      faults: { 'ack-loss': 0.05, throttle: 0, timeout: 0 },
      permanentThrottle: ({ commandName, input }) =>
        commandName === 'TransactWriteItemsCommand' &&
        JSON.stringify(input).includes('doomed-resource'),
      onRecord: (event) => deliveries.push(event),
    });
    const { report } = result;
    const checks = Object.fromEntries(report.verdict.checks.map((check) => [check.name, check]));
    // The doomed charge is the only difference from the truth: its amount never reached the ledger.
    expect(checks.ledger.ok).toBe(true);
    expect(checks.notifications.ok).toBe(true);
    expect(checks.settled.ok).toBe(true);
    const doomedDeliveries = deliveries.filter(
      (event) => publishedMessageOf(event.body) === doomedText,
    );
    expect(doomedDeliveries.map((event) => event.receiveCount)).toEqual([1, 2, 3, 4, 5]);
    expect(doomedDeliveries.every((event) => event.outcome === 'failed')).toBe(true);
    const dead = result.deadLetters['cost-events'].filter(
      (message) => publishedMessageOf(message.body) === doomedText,
    );
    expect(dead).toHaveLength(1);
    expect(dead[0].deadLetterSource).toMatch(/billing-dedup-dev-cost-events\.fifo$/);
    expect(report.run.streams['cost-events'].exhausted).toBe(1);
    // Everything else (its message group included) went on: the ledger equals the truth without it
    // (the ledger check above; it also accepts either copy of an eventId conflict as the winner).
    expect(report.ledger.map((t) => t.accountId)).not.toContain(doomed.accountId);
    expect(report.ledger).toHaveLength(sample.truth.ledger.length);
  }, 120_000);
});
