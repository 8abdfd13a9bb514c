import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  PublishBatchCommand,
  SNSClient,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { consumerEnvironment } from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { readPartitionCharges, readPartitionTotals } from '../../lambda/adapters/ledger-reader';
import { decodeRecord } from '../../lambda/core/envelope';
import { parseCostEvent } from '../../lambda/core/formats';
import { fifoPublishIds } from '../../lambda/core/keys';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { prepareMessage } from '../../cli/operations/publish';
import {
  createLedgerTables,
  localDynamo,
  startLocalSqs,
  type LedgerTables,
  type LocalSqs,
} from '../support/aws-local';
import { costEvent } from '../support/cost-events';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli, virtualClock, writeTemp } from './helpers';

const FIFO_TOPIC = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-test-cost-events.fifo';
const STANDARD_TOPIC = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-test-cost-events';
const FOCUS_FIXTURE = join(__dirname, '../fixtures/samples/focus-rows.jsonl');

const sns = new SNSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const snsMock = mockClient(sns);

/** Successful PublishBatch for every entry; returns what was published. */
const acceptAll = () =>
  snsMock.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
    Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `m-${entry.Id}`,
      SequenceNumber: '1',
    })),
    Failed: [],
  }));

const publishedBatches = (): PublishBatchCommandInput[] =>
  snsMock.commandCalls(PublishBatchCommand).map((call) => call.args[0].input);

const publishedEntries = (): PublishBatchRequestEntry[] =>
  publishedBatches().flatMap((batch) => batch.PublishBatchRequestEntries ?? []);

const attributesOf = (entry: PublishBatchRequestEntry): Record<string, string> =>
  Object.fromEntries(
    Object.entries(entry.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.StringValue ?? '',
    ]),
  );

/** What the consumer will compute from the message as SQS delivers it (raw message delivery). */
const expectedIds = (entry: PublishBatchRequestEntry) =>
  fifoPublishIds(
    parseCostEvent(
      decodeRecord({
        body: entry.Message ?? '',
        messageAttributes: Object.fromEntries(
          Object.entries(attributesOf(entry)).map(([name, value]) => [
            name,
            { stringValue: value, dataType: 'String' },
          ]),
        ),
      }),
    ).event,
  );

const csvCell = (value: string): string =>
  /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

/** The FOCUS fixture rows as a CSV export, plus a short row and a row with a bad BilledCost. */
const focusCsv = (): { text: string; rows: number } => {
  const rows = readFileSync(FOCUS_FIXTURE, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, string>);
  const header = Object.keys(rows[0]);
  const lines = [header.join(',')];
  for (const row of rows)
    lines.push(header.map((name) => csvCell(String(row[name] ?? ''))).join(','));
  lines.push('AWS,100000000001,short-row'); // line 7: wrong number of fields
  const bad: Record<string, string> = { ...rows[0], BilledCost: 'twelve' };
  lines.push(header.map((name) => csvCell(String(bad[name] ?? ''))).join(',')); // line 8
  return { text: `${lines.join('\n')}\n`, rows: rows.length };
};

const jsonlFile = (): string => {
  const lines: string[] = [];
  lines.push(
    JSON.stringify({
      topic: 'cost-events',
      message: costEvent({ eventId: 'e-1', amount: '0.10' }),
    }),
  ); // 1
  lines.push(JSON.stringify(costEvent({ eventId: 'e-2', amount: 0.2 }))); // 2 bare
  lines.push('{"topic": "cost-events", "message": {'); // 3 not JSON
  lines.push(''); // 4 blank
  lines.push(
    JSON.stringify({
      ...costEvent({ eventId: 'e-5', amount: '1' }),
      currency: undefined,
      amount: 'abc',
    }),
  ); // 5 invalid
  lines.push(JSON.stringify({ topic: 'invoices', message: {} })); // 6 unknown topic
  lines.push(
    JSON.stringify({
      topic: 'cost-events',
      message: costEvent({ eventId: 'e-7', amount: '5' }),
      groupId: 'acme#200000000011',
      deduplicationId: 'explicit-dedup',
    }),
  ); // 7 explicit ids
  for (let i = 8; i <= 30; i += 1)
    lines.push(
      JSON.stringify(
        costEvent({ lineItemId: `li-${i}`, amount: `${i}.0${i % 10}`, skuId: `sku-${i}` }),
      ),
    );
  return `${lines.join('\n')}\n`;
};

describe('publish (SNS mocked: there is no local SNS)', () => {
  beforeEach(() => {
    snsMock.reset();
  });

  it('publishes JSONL to a FIFO topic with the consumer’s ids, in batches of ≤10, and lists malformed lines', async () => {
    acceptAll();
    const input = writeTemp('events.jsonl', jsonlFile());
    const clock = virtualClock();
    const result = await cli(['publish', '--topic', FIFO_TOPIC, '--input', input], {
      clients: { sns },
      ...clock,
    });
    expect(result.stderr).toMatch(/^publish: \d+\/29 msg/m); // plain progress lines: stderr is not a TTY
    expect(result.code).toBe(3);
    const entries = publishedEntries();
    expect(entries).toHaveLength(26);
    for (const batch of publishedBatches()) {
      expect(batch.TopicArn).toBe(FIFO_TOPIC);
      expect(batch.PublishBatchRequestEntries!.length).toBeLessThanOrEqual(10);
    }
    expect(publishedBatches().map((b) => b.PublishBatchRequestEntries!.length)).toEqual([
      10, 10, 6,
    ]);
    for (const entry of entries) {
      if (entry.Id === 'line-7') {
        expect(entry.MessageGroupId).toBe('acme#200000000011');
        expect(entry.MessageDeduplicationId).toBe('explicit-dedup');
        continue;
      }
      const ids = expectedIds(entry);
      expect(entry.MessageGroupId).toBe(ids.messageGroupId);
      expect(entry.MessageDeduplicationId).toBe(ids.messageDeduplicationId);
    }
    expect(entries[0].MessageGroupId).toBe('acme#200000000011');
    // The bare line is published byte for byte.
    expect(entries[1].Message).toBe(JSON.stringify(costEvent({ eventId: 'e-2', amount: 0.2 })));
    expect(result.stdout).toContain('Published 26 of 29 messages');
    expect(result.stdout).toMatch(/line 3: not valid JSON/);
    expect(result.stdout).toMatch(/line 5: (missing-field|invalid-field): /);
    expect(result.stdout).toMatch(/line 6: unknown topic "invoices"/);
    expect(result.stdout).not.toMatch(/line 4/);
  });

  it('publishes FOCUS CSV rows as FOCUS JSON objects with the tenant attribute; bad rows keep their line numbers', async () => {
    acceptAll();
    const { text, rows } = focusCsv();
    const input = writeTemp('focus.csv', text);
    const result = await cli(
      ['publish', '--topic', FIFO_TOPIC, '--input', input, '--tenant', 'acme', '--json'],
      { clients: { sns }, ...virtualClock() },
    );
    expect(result.code).toBe(3);
    const summary = JSON.parse(result.stdout);
    expect(summary.published).toBe(rows);
    expect(summary.rejected).toEqual([
      {
        line: 7,
        reason: `row has 3 fields, the header has ${text.split('\n')[0].split(',').length}`,
      },
      { line: 8, reason: expect.stringMatching(/^invalid-field: BilledCost: /) },
    ]);
    const entries = publishedEntries();
    const first = JSON.parse(entries[0].Message!);
    expect(first.BilledCost).toBe('0.0960000000');
    expect(first.Tags).toBe('{"team":"payments","env":"prod"}');
    expect(attributesOf(entries[0])).toEqual({ tenant: 'acme' });
    for (const entry of entries)
      expect(entry.MessageGroupId).toBe(expectedIds(entry).messageGroupId);
    expect(entries[0].MessageGroupId).toBe('acme#200000000011');
  });

  it('standard topic: publishes what the consumer will judge, unless --strict', async () => {
    acceptAll();
    const input = writeTemp(
      'mixed.jsonl',
      ['"just a string"', JSON.stringify(costEvent({ amount: '1' }))].join('\n'),
    );
    const loose = await cli(['publish', '--topic', STANDARD_TOPIC, '--input', input], {
      clients: { sns },
    });
    expect(loose.code).toBe(0);
    expect(publishedEntries()).toHaveLength(2);
    expect(publishedEntries()[0].MessageGroupId).toBeUndefined();
    snsMock.resetHistory();
    const strict = await cli(['publish', '--topic', STANDARD_TOPIC, '--input', input, '--strict'], {
      clients: { sns },
    });
    expect(strict.code).toBe(3);
    expect(publishedEntries()).toHaveLength(1);
    expect(strict.stdout).toMatch(/line 1: malformed-body: \$: message is not a JSON object/);
  });

  it('honours --rate with an injected clock (no wall-clock timing)', async () => {
    acceptAll();
    const lines = Array.from({ length: 25 }, (_, i) =>
      JSON.stringify(costEvent({ eventId: `r-${i}`, amount: String(i + 1) })),
    );
    const input = writeTemp('rate.jsonl', lines.join('\n'));
    const clock = virtualClock();
    const sendTimes: number[] = [];
    snsMock.on(PublishBatchCommand).callsFake((batch: PublishBatchCommandInput) => {
      sendTimes.push(clock.now());
      return {
        Successful: batch.PublishBatchRequestEntries!.map((e) => ({ Id: e.Id, MessageId: 'm' })),
      };
    });
    const result = await cli(['publish', '--topic', FIFO_TOPIC, '--input', input, '--rate', '5'], {
      clients: { sns },
      ...clock,
    });
    expect(result.code).toBe(0);
    // 5 msg/s → batches of 5, one per second: the fifth batch leaves 4 s after the first.
    expect(publishedBatches().map((b) => b.PublishBatchRequestEntries!.length)).toEqual([
      5, 5, 5, 5, 5,
    ]);
    expect(sendTimes.map((t) => t - sendTimes[0])).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(4000);
  });

  it('retries throttled requests and throttled entries with backoff', async () => {
    const input = writeTemp(
      'throttle.jsonl',
      Array.from({ length: 12 }, (_, i) =>
        JSON.stringify(costEvent({ eventId: `t-${i}`, amount: '1' })),
      ).join('\n'),
    );
    const throttling = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    let call = 0;
    snsMock.on(PublishBatchCommand).callsFake((batch: PublishBatchCommandInput) => {
      call += 1;
      const entries = batch.PublishBatchRequestEntries!;
      if (call === 1) throw throttling; // whole request throttled
      if (call === 2) {
        // first three entries throttled, one rejected for good, the rest accepted
        return {
          Successful: entries.slice(4).map((e) => ({ Id: e.Id, MessageId: 'm' })),
          Failed: [
            ...entries.slice(0, 3).map((e) => ({
              Id: e.Id,
              Code: 'Throttled',
              SenderFault: false,
              Message: 'slow down',
            })),
            {
              Id: entries[3].Id,
              Code: 'InvalidParameter',
              SenderFault: true,
              Message: 'bad attribute',
            },
          ],
        };
      }
      return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: 'm' })) };
    });
    const clock = virtualClock();
    const result = await cli(['publish', '--topic', FIFO_TOPIC, '--input', input, '--json'], {
      clients: { sns },
      ...clock,
    });
    const summary = JSON.parse(result.stdout);
    expect(summary.published).toBe(11);
    expect(summary.retries).toBe(2);
    expect(summary.rejected).toEqual([
      { line: 4, reason: 'SNS rejected it: InvalidParameter: bad attribute' },
    ]);
    expect(result.code).toBe(3);
    const calls = publishedBatches().map((b) => b.PublishBatchRequestEntries!.map((e) => e.Id));
    expect(calls[2]).toEqual(['line-1', 'line-2', 'line-3']); // only the throttled entries come back
    expect(clock.sleeps).toHaveLength(2);
    for (const delay of clock.sleeps) expect(delay).toBeGreaterThanOrEqual(100);
  });

  it('gives up on persistent throttling with one line naming the fix, after a summary', async () => {
    const input = writeTemp('stuck.jsonl', JSON.stringify(costEvent({ amount: '1' })));
    snsMock.on(PublishBatchCommand).rejects(
      Object.assign(new Error('Rate exceeded'), {
        name: 'Throttling',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const clock = virtualClock();
    const result = await cli(['publish', '--topic', FIFO_TOPIC, '--input', input], {
      clients: { sns },
      ...clock,
    });
    expect(result.code).toBe(1);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('billing-dedup:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^billing-dedup: Throttled by SNS \(Throttling\) after 8 attempts: lower --rate/,
    );
    expect(result.stdout).toMatch(/Stopped at line 1: 1 messages were not published/);
    // Exponential backoff: delays grow up to the cap.
    expect(clock.sleeps).toHaveLength(7);
  });

  it('names the missing permission when SNS denies the publish', async () => {
    const input = writeTemp('denied.jsonl', JSON.stringify(costEvent({ amount: '1' })));
    snsMock.on(PublishBatchCommand).rejects(
      Object.assign(
        new Error(
          'User: arn:aws:iam::1:user/ops is not authorized to perform: SNS:Publish on resource: ' +
            FIFO_TOPIC,
        ),
        {
          name: 'AuthorizationError',
        },
      ),
    );
    const result = await cli(['publish', '--topic', FIFO_TOPIC, '--input', input], {
      clients: { sns },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Access denied: missing permission SNS:Publish on arn:aws:sns:/);
  });

  it('rejects bad usage with exit 2', async () => {
    expect((await cli(['publish', '--topic', FIFO_TOPIC])).code).toBe(2); // --input missing
    expect((await cli(['publish', '--topic', FIFO_TOPIC, '--input', '/nope.jsonl'])).code).toBe(2);
    const rate = await cli([
      'publish',
      '--topic',
      FIFO_TOPIC,
      '--input',
      '/nope.jsonl',
      '--rate',
      '-1',
    ]);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toMatch(/--rate.*positive number/);
    const noTopic = await cli(['publish', '--input', writeTemp('x.jsonl', '{}')]);
    expect(noTopic.code).toBe(2);
    expect(noTopic.stderr).toMatch(
      /No cost-events topic ARN: pass --topic, --stack <name> or --outputs-file/,
    );
  });
});

describe('publish: explicit FIFO group ids', () => {
  const target = { topicArn: FIFO_TOPIC, fifo: true, stream: 'cost-events' as const };
  const message = (groupId?: string) => ({
    line: 1,
    body: JSON.stringify(costEvent({ tenant: 'initech', accountId: '42', amount: '1' })),
    attributes: {},
    ...(groupId ? { groupId, deduplicationId: 'explicit-dedup' } : {}),
  });

  it('refuses a cost event in another group than the consumer derives (it would be dead-lettered as group-mismatch)', () => {
    expect(prepareMessage(message('acme#42'), target)).toEqual({
      ok: false,
      reason: expect.stringMatching(/groupId "acme#42" is not .*"initech#42".*leave groupId out/),
    });
  });

  it('accepts the derived group, explicit or not', () => {
    expect(prepareMessage(message('initech#42'), target)).toMatchObject({ ok: true });
    expect(prepareMessage(message(), target)).toMatchObject({
      ok: true,
      prepared: { entry: { MessageGroupId: 'initech#42' } },
    });
  });
});

describe('replay: the same file twice changes no ledger total', () => {
  let sqs: LocalSqs;
  let dynamo: DynamoDBClient;
  let tables: LedgerTables;
  let handler: ReturnType<typeof createCostLedgerHandler>;

  beforeAll(async () => {
    sqs = await startLocalSqs();
    dynamo = localDynamo();
    tables = await createLedgerTables(dynamo);
    const dlqUrl = await sqs.createQueue('replay-dlq.fifo', { FifoQueue: 'true' });
    handler = createCostLedgerHandler(
      consumerEnvironment({
        streamName: COST_STREAM,
        queueKind: 'fifo',
        dlqUrl: dlqUrl,
        dedupTableName: tables.dedupTable,
        ledgerTableName: tables.ledgerTable,
        logLevel: 'SILENT',
      }),
      { dynamo, sqs: sqs.client },
    );
  });

  afterAll(async () => {
    dynamo.destroy();
    await sqs.stop();
  });

  beforeEach(() => {
    snsMock.reset();
    acceptAll();
  });

  /** What SNS → SQS (raw delivery) → Lambda would deliver for the captured PublishBatch entries. */
  const deliver = async (entries: PublishBatchRequestEntry[]) => {
    for (let start = 0; start < entries.length; start += 10) {
      const records = entries.slice(start, start + 10).map((entry) =>
        sqsRecord(entry.Message!, {
          groupId: entry.MessageGroupId,
          attributes: attributesOf(entry),
        }),
      );
      const response = await handler(sqsEvent(records));
      expect(response.batchItemFailures).toEqual([]);
    }
  };

  const ledger = async (pk: string) => ({
    totals: await readPartitionTotals(dynamo, tables.ledgerTable, pk),
    charges: (await readPartitionCharges(dynamo, tables.ledgerTable, pk)).length,
  });

  it('JSONL', async () => {
    const input = writeTemp('replay.jsonl', jsonlFile());
    const pk = 'TENANT#acme#ACCOUNT#200000000011#PERIOD#2026-11';
    expect(
      (await cli(['publish', '--topic', FIFO_TOPIC, '--input', input], { clients: { sns } })).code,
    ).toBe(3);
    await deliver(publishedEntries());
    const first = await ledger(pk);
    // 0.10 + 0.2 + 5 + Σ "i.0(i mod 10)" for i = 8..30 = 5.3 + 437 + 1.07, exact.
    expect(first.totals).toEqual([
      expect.objectContaining({ currency: 'USD', total: '443.37', charges: 26 }),
    ]);

    snsMock.resetHistory();
    expect(
      (await cli(['publish', '--topic', FIFO_TOPIC, '--input', input], { clients: { sns } })).code,
    ).toBe(3);
    expect(publishedEntries()).toHaveLength(26);
    await deliver(publishedEntries());
    expect(await ledger(pk)).toEqual(first);
  });

  it('FOCUS CSV', async () => {
    const input = writeTemp('replay.csv', focusCsv().text);
    const args = ['publish', '--topic', FIFO_TOPIC, '--input', input, '--tenant', 'globex'];
    expect((await cli(args, { clients: { sns } })).code).toBe(3);
    await deliver(publishedEntries());
    const pk = 'TENANT#globex#ACCOUNT#200000000011#PERIOD#2026-11';
    const first = await ledger(pk);
    expect(first.totals).toEqual([
      expect.objectContaining({ currency: 'USD', total: '1475.096', charges: 3 }),
    ]);
    snsMock.resetHistory();
    expect((await cli(args, { clients: { sns } })).code).toBe(3);
    await deliver(publishedEntries());
    expect(await ledger(pk)).toEqual(first);
  });
});
