import { processAlertBatch } from '../../lambda/core/alert-processor';
import type { AlertEvent } from '../../lambda/core/events';
import type { DeadLetterPort, NotifierPort, Rejection } from '../../lambda/core/ports';
import { snsEnvelope, sqsRecord } from '../support/sqs-events';

/** A notifier that remembers keys like the dedup table would; a test can make one account's next call fail. */
class FakeNotifier implements NotifierPort {
  readonly notified = new Map<string, AlertEvent>();
  readonly calls: string[] = [];
  readonly failOnceFor = new Map<string, Error>();

  async notifyOnce(key: string, alert: AlertEvent): Promise<'notified' | 'duplicate'> {
    this.calls.push(key);
    await Promise.resolve();
    const failure = this.failOnceFor.get(alert.accountId);
    this.failOnceFor.delete(alert.accountId);
    if (failure) throw failure;
    if (this.notified.has(key)) return 'duplicate';
    this.notified.set(key, alert);
    return 'notified';
  }
}

class FakeDeadLetters implements DeadLetterPort {
  readonly sent: { messageId: string; body: string; rejection: Rejection }[] = [];
  failing = false;

  async send(record: { messageId: string; body: string }, rejection: Rejection): Promise<void> {
    if (this.failing) throw new Error('DLQ unavailable');
    this.sent.push({ messageId: record.messageId, body: record.body, rejection });
  }
}

const budgetAlert = (overrides: Record<string, unknown> = {}) => ({
  alertKind: 'budget-threshold',
  tenant: 'acme',
  source: 'datadog',
  accountId: '200000000011',
  budgetName: 'prod-monthly',
  period: '2026-11',
  threshold: '0.9',
  amount: '8214.55',
  currency: 'USD',
  ...overrides,
});

const run = (
  records: ReturnType<typeof sqsRecord>[],
  ports: { notifier: FakeNotifier; deadLetters: FakeDeadLetters },
  fifo = false,
) => processAlertBatch(records, { fifo, concurrency: 4, ...ports });

const setup = () => ({ notifier: new FakeNotifier(), deadLetters: new FakeDeadLetters() });
const outcomes = (result: Awaited<ReturnType<typeof run>>) =>
  result.results.map((item) => [item.messageId, item.outcome]);

describe('processAlertBatch', () => {
  it('notifies a new alert once, keyed by its alert key', async () => {
    const ports = setup();
    const result = await run([sqsRecord(budgetAlert(), { messageId: 'm1' })], ports);

    expect(outcomes(result)).toEqual([['m1', 'notified']]);
    expect(result.batchItemFailures).toEqual([]);
    expect(ports.notifier.calls).toHaveLength(1);
    expect(result.results[0].hash).toBe(ports.notifier.calls[0]);
    expect([...ports.notifier.notified.values()][0]).toMatchObject({
      kind: 'budget-threshold',
      tenant: 'acme',
      budgetName: 'prod-monthly',
      amount: '8214.55',
    });
  });

  it('copies of one alert in a batch (even with a risen spend) make one notifier call; the rest are duplicates', async () => {
    const ports = setup();
    const records = [
      sqsRecord(budgetAlert(), { messageId: 'm1' }),
      sqsRecord(budgetAlert({ amount: '8300' }), { messageId: 'm2' }),
      sqsRecord(budgetAlert(), { messageId: 'm3' }),
    ];

    const result = await run(records, ports);

    expect(ports.notifier.calls).toHaveLength(1);
    expect(result.results.map((item) => item.outcome).sort()).toEqual([
      'duplicate',
      'duplicate',
      'notified',
    ]);
    expect(new Set(result.results.map((item) => item.hash)).size).toBe(1);
  });

  it('an alert notified by an earlier invocation is a duplicate', async () => {
    const ports = setup();
    await run([sqsRecord(budgetAlert(), { messageId: 'm1' })], ports);

    const again = await run([sqsRecord(budgetAlert(), { messageId: 'm2' })], ports);

    expect(outcomes(again)).toEqual([['m2', 'duplicate']]);
  });

  it('different alerts are notified separately', async () => {
    const ports = setup();
    const records = [
      sqsRecord(budgetAlert({ threshold: '0.5' }), { messageId: 'm1' }),
      sqsRecord(budgetAlert({ threshold: '0.9' }), { messageId: 'm2' }),
      sqsRecord(budgetAlert({ accountId: '300000000022' }), { messageId: 'm3' }),
    ];

    const result = await run(records, ports);

    expect(outcomes(result)).toEqual([
      ['m1', 'notified'],
      ['m2', 'notified'],
      ['m3', 'notified'],
    ]);
  });

  it('a periodic budget update is observed: acked, never notified', async () => {
    const ports = setup();
    const update = budgetAlert({ alertKind: 'budget-update', threshold: undefined });

    const result = await run([sqsRecord(update, { messageId: 'm1' })], ports);

    expect(outcomes(result)).toEqual([['m1', 'observed']]);
    expect(ports.notifier.calls).toEqual([]);
  });

  it('a poison message goes to the DLQ byte for byte with its reason and is acked', async () => {
    const ports = setup();
    const body = '{"alertKind": "budget-threshold", "accountId": ';
    const unknown = { hello: 'world' };

    const result = await run(
      [sqsRecord(body, { messageId: 'bad-json' }), sqsRecord(unknown, { messageId: 'unknown' })],
      ports,
    );

    expect(outcomes(result)).toEqual([
      ['bad-json', 'rejected'],
      ['unknown', 'rejected'],
    ]);
    expect(result.batchItemFailures).toEqual([]);
    expect(ports.deadLetters.sent.map((sent) => [sent.messageId, sent.rejection.code])).toEqual([
      ['bad-json', expect.any(String)],
      ['unknown', 'unknown-format'],
    ]);
    expect(ports.deadLetters.sent[0].body).toBe(body);
    expect(result.results[0].reason).toBe(ports.deadLetters.sent[0].rejection.reason);
    expect(ports.notifier.calls).toEqual([]);
  });

  it('a poison message whose DLQ send fails is retried, not lost', async () => {
    const ports = setup();
    ports.deadLetters.failing = true;

    const result = await run([sqsRecord('not json', { messageId: 'm1' })], ports);

    expect(outcomes(result)).toEqual([['m1', 'failed']]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });

  it('a notifier failure (alert in progress elsewhere) fails that record only; its copy tries again', async () => {
    const ports = setup();
    ports.notifier.failOnceFor.set(
      '200000000011',
      Object.assign(new Error('in progress'), { name: 'IdempotencyAlreadyInProgressError' }),
    );
    const records = [
      sqsRecord(budgetAlert(), { messageId: 'm1' }),
      sqsRecord(budgetAlert(), { messageId: 'm2' }),
      sqsRecord(budgetAlert({ accountId: '300000000022' }), { messageId: 'm3' }),
    ];

    const result = await run(records, ports);

    expect(outcomes(result)).toEqual([
      ['m1', 'failed'],
      ['m2', 'notified'],
      ['m3', 'notified'],
    ]);
    expect(result.results[0].reason).toBe('IdempotencyAlreadyInProgressError');
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });

  it('FIFO: after a failure the rest of its message group is failed unprocessed; other groups go on', async () => {
    const ports = setup();
    ports.notifier.failOnceFor.set('200000000011', new Error('throttled'));
    const records = [
      sqsRecord(budgetAlert({ threshold: '0.5' }), { messageId: 'a1', groupId: 'a' }),
      sqsRecord(budgetAlert({ threshold: '0.9' }), { messageId: 'a2', groupId: 'a' }),
      sqsRecord(budgetAlert({ accountId: '300000000022' }), { messageId: 'b1', groupId: 'b' }),
    ];

    const result = await run(records, ports, true);

    expect(outcomes(result)).toEqual([
      ['a1', 'failed'],
      ['a2', 'failed'],
      ['b1', 'notified'],
    ]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'a1' }, { itemIdentifier: 'a2' }]);
    expect(ports.notifier.calls).toHaveLength(2);
  });
});

const budgetText = [
  'AWS Budget Notification November 28, 2026',
  'AWS Account 200000000011',
  '',
  'Dear AWS Customer,',
  '',
  'You requested that we alert you when the ACTUAL Cost associated with your prod-monthly budget is greater than $800.00 for the current month.',
  '',
  'Budget Name: prod-monthly',
  'Budget Type: Cost',
  'Budgeted Amount: $1,000.00',
  'Alert Type: ACTUAL',
  'Alert Threshold: > $800.00',
  'ACTUAL Amount: $812.40',
].join('\n');

const harness = () => {
  const notified: { key: string; tenant: string }[] = [];
  const rejected: Rejection[] = [];
  const notifier: NotifierPort = {
    notifyOnce: async (key, alert) => {
      notified.push({ key, tenant: alert.tenant });
      return 'notified';
    },
  };
  const deadLetters: DeadLetterPort = { send: async (_record, why) => void rejected.push(why) };
  return { notified, rejected, notifier, deadLetters };
};

describe('processAlertBatch: delivery mode', () => {
  it('envelope delivery: unwraps the notification and reads the tenant from the envelope', async () => {
    const h = harness();
    const record = sqsRecord(snsEnvelope(budgetText, { tenant: 'acme' }), {
      attributes: { tenant: 'globex' },
    });
    const outcome = await processAlertBatch([record], {
      fifo: false,
      concurrency: 2,
      deliveryMode: 'envelope',
      notifier: h.notifier,
      deadLetters: h.deadLetters,
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['notified']);
    expect(h.notified.map((n) => n.tenant)).toEqual(['acme']);
  });

  it('raw delivery (default): an envelope-shaped body is a body, rejected rather than unwrapped', async () => {
    const h = harness();
    const record = sqsRecord(snsEnvelope(budgetText, { tenant: 'globex' }), {
      attributes: { tenant: 'acme' },
    });
    const outcome = await processAlertBatch([record], {
      fifo: false,
      concurrency: 2,
      notifier: h.notifier,
      deadLetters: h.deadLetters,
    });
    expect(outcome.results.map((r) => r.outcome)).toEqual(['rejected']);
    expect(h.notified).toEqual([]);
    expect(h.rejected.map((r) => r.code)).toEqual(['unknown-format']);
  });
});
