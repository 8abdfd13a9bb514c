import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import { consumerEnvironment } from '../../contract/environment';
import { COST_STREAM } from '../../contract/streams';
import { createCostLedgerHandler } from '../../lambda/handlers/cost-ledger';
import { redriveDlq, type RedriveProgress } from '../../cli/operations/redrive';
import { useLocalQueuesAndLedger } from '../support/file-fixtures';
import { costEvent } from '../support/cost-events';
import { sqsEvent, sqsRecord } from '../support/sqs-events';
import { cli, writeTemp } from './helpers';

const local = useLocalQueuesAndLedger();
let counter = 0;

/** A source queue with its DLQ (redrive policy as deployed) and the real consumer writing to that DLQ. */
const pipeline = async (fifo = false) => {
  counter += 1;
  const suffix = fifo ? '.fifo' : '';
  const base: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
  const dlqUrl = await local.sqs.createQueue(`cost-dlq-${counter}${suffix}`, base);
  const { Attributes } = await local.sqs.client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const queueUrl = await local.sqs.createQueue(`cost-events-${counter}${suffix}`, {
    ...base,
    VisibilityTimeout: '60',
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: Attributes!.QueueArn,
      maxReceiveCount: 5,
    }),
  });
  const handler = createCostLedgerHandler(
    consumerEnvironment({
      streamName: COST_STREAM,
      queueKind: fifo ? 'fifo' : 'standard',
      dlqUrl: dlqUrl,
      dedupTableName: local.tables.dedupTable,
      ledgerTableName: local.tables.ledgerTable,
      logLevel: 'SILENT',
    }),
    { dynamo: local.dynamo, sqs: local.sqs.client },
  );
  return { dlqUrl, queueUrl, handler };
};

const depth = async (queueUrl: string): Promise<number> => {
  const { Attributes } = await local.sqs.client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes!.ApproximateNumberOfMessages) +
    Number(Attributes!.ApproximateNumberOfMessagesNotVisible)
  );
};

const drain = async (queueUrl: string): Promise<Message[]> => {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await local.sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 60,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
    await local.sqs.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }
};

const deps = () => ({
  clients: { sqs: local.sqs.client, dynamo: local.dynamo },
  receiveWaitSeconds: 0,
  pollMs: 100,
});

/**
 * Two poison messages the consumer itself dead-letters (with REJECTION_ATTRIBUTES), plus one valid event
 * as SQS leaves it after maxReceiveCount (no rejection attributes: it failed processing, e.g. throttling).
 */
const fillDlq = async (p: Awaited<ReturnType<typeof pipeline>>, account: string, fifo = false) => {
  const response = await p.handler(
    sqsEvent([
      sqsRecord('not json at all', fifo ? { groupId: 'g-1' } : {}),
      sqsRecord(
        { ...costEvent({ accountId: account, amount: '1' }), amount: '12,30' },
        fifo ? { groupId: 'g-2' } : {},
      ),
    ]),
  );
  expect(response.batchItemFailures).toEqual([]);
  await local.sqs.client.send(
    new SendMessageCommand({
      QueueUrl: p.dlqUrl,
      MessageBody: JSON.stringify(
        costEvent({ accountId: account, eventId: `late-${account}`, amount: '7.25' }),
      ),
      ...(fifo
        ? { MessageGroupId: `acme#${account}`, MessageDeduplicationId: `late-${account}` }
        : {}),
    }),
  );
};

describe('dlq peek', () => {
  it('shows reason and receive count without consuming', async () => {
    const p = await pipeline();
    await fillDlq(p, '300000000001');
    const first = await cli(
      ['dlq', 'peek', '--stream', 'cost-events', '--dlq-url', p.dlqUrl],
      deps(),
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`DLQ ${p.dlqUrl}: ~3 visible, ~0 in flight; showing 3`);
    expect(first.stdout).toMatch(/reason {2}malformed-body \$: message is not a JSON object/);
    expect(first.stdout).toMatch(/reason {2}invalid-field amount: .*12,30/);
    expect(first.stdout).toMatch(
      /reason {2}\(no rejection attributes: moved by SQS after maxReceiveCount\)/,
    );
    expect(first.stdout).toMatch(/receives 1/);
    expect(first.stdout).toContain('Nothing was deleted.');
    expect(await depth(p.dlqUrl)).toBe(3);

    const second = await cli(['dlq', 'peek', '--dlq-url', p.dlqUrl, '--json'], deps());
    const result = JSON.parse(second.stdout);
    expect(result.messages).toHaveLength(3);
    for (const message of result.messages) expect(message.receiveCount).toBeGreaterThanOrEqual(2);
    const poison = result.messages.find((m: { body: string }) => m.body === 'not json at all');
    expect(poison.rejection).toEqual(
      expect.objectContaining({ code: 'malformed-body', field: '$', stream: 'cost-events' }),
    );
    expect(await depth(p.dlqUrl)).toBe(3);

    const limited = await cli(
      ['dlq', 'peek', '--dlq-url', p.dlqUrl, '--max', '1', '--json'],
      deps(),
    );
    expect(JSON.parse(limited.stdout).messages).toHaveLength(1);
    expect(await depth(p.dlqUrl)).toBe(3);
  });

  it('FIFO DLQ: shows message groups', async () => {
    const p = await pipeline(true);
    await fillDlq(p, '300000000002', true);
    const result = await cli(['dlq', 'peek', '--dlq-url', p.dlqUrl], deps());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(FIFO)');
    expect(result.stdout).toMatch(/group g-1/);
    expect(result.stdout).toMatch(/held its message group/);
    expect(await depth(p.dlqUrl)).toBe(3);
  });

  it('an empty DLQ says so', async () => {
    const p = await pipeline();
    const result = await cli(['dlq', 'peek', '--dlq-url', p.dlqUrl], deps());
    expect(result.stdout).toContain('The dead-letter queue is empty.');
  });

  it('reads the DLQ URL from the local run’s outputs file (real client configuration, no injection)', async () => {
    const p = await pipeline();
    await fillDlq(p, '300000000003');
    const outputs = writeTemp(
      'stack-outputs.json',
      JSON.stringify({
        'billing-dedup-local-stateful': { LedgerTableName: local.tables.ledgerTable },
        'billing-dedup-local-stateless': {
          CostEventsDlqUrl: p.dlqUrl,
          CostEventsQueueUrl: p.queueUrl,
        },
        endpoints: { sqs: local.sqs.endpoint, dynamodb: process.env.DYNAMODB_LOCAL_ENDPOINT },
      }),
    );
    const result = await cli(
      ['dlq', 'peek', '--stream', 'cost-events', '--json'],
      { receiveWaitSeconds: 0 },
      {
        BILLING_DEDUP_OUTPUTS_FILE: outputs,
      },
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).messages).toHaveLength(3);

    // The launcher, as an operator runs it (tsx, fresh process). Asynchronous: the emulator lives in this process.
    const launched = await promisify(execFile)(
      process.execPath,
      [
        join(__dirname, '../../cli/bin.js'),
        'dlq',
        'peek',
        '--stream',
        'cost-events',
        '--outputs-file',
        outputs,
        '--max',
        '1',
      ],
      {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    expect(launched.stdout).toContain('showing 1');
  });
});

describe('dlq redrive', () => {
  it('--dry-run shows what would move and why, and moves nothing', async () => {
    const p = await pipeline();
    await fillDlq(p, '300000000004');
    const result = await cli(
      ['dlq', 'redrive', '--dlq-url', p.dlqUrl, '--queue-url', p.queueUrl, '--dry-run'],
      deps(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Dry run: ~3 messages would move from/);
    expect(result.stdout).toMatch(/to arn:aws:sqs:.*cost-events-\d+/);
    expect(result.stdout).toMatch(/1 +malformed-body \(\$\)/);
    expect(result.stdout).toMatch(/1 +invalid-field \(amount\)/);
    expect(result.stdout).toMatch(/1 +no rejection attributes/);
    expect(result.stdout).toContain('Nothing was moved.');
    expect(await depth(p.dlqUrl)).toBe(3);
    expect(await depth(p.queueUrl)).toBe(0);

    const asJson = JSON.parse(
      (await cli(['dlq', 'redrive', '--dlq-url', p.dlqUrl, '--dry-run', '--json'], deps())).stdout,
    );
    // Without --queue-url the DLQ's only source queue is found through ListDeadLetterSourceQueues.
    expect(asJson).toEqual(
      expect.objectContaining({
        dryRun: true,
        wouldMove: 3,
        sampled: 3,
        destinationArn: expect.stringMatching(/cost-events-\d+$/),
      }),
    );
  });

  it('redriveDlq moves every message back with progress; the consumer then applies what was only failing', async () => {
    const p = await pipeline();
    const account = '300000000005';
    await fillDlq(p, account);
    const progress: RedriveProgress[] = [];
    const result = await redriveDlq({
      sqs: local.sqs.client,
      dlqUrl: p.dlqUrl,
      sourceQueueUrl: p.queueUrl,
      maxPerSecond: 50,
      pollMs: 100,
      onProgress: (update) => progress.push(update),
    });
    expect(result).toEqual(expect.objectContaining({ moved: 3, failed: 0, status: 'COMPLETED' }));
    expect(result.taskHandle).toEqual(expect.any(String));
    expect(progress.at(-1)).toEqual({ moved: 3, toMove: 3, status: 'COMPLETED' });
    expect(await depth(p.dlqUrl)).toBe(0);

    // The source queue holds them again; the consumer processes them: the valid one is applied, poison goes back.
    const messages = await drain(p.queueUrl);
    expect(messages).toHaveLength(3);
    const response = await p.handler(
      sqsEvent(
        messages.map((m) =>
          sqsRecord(m.Body!, {
            attributes: Object.fromEntries(
              Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
            ),
          }),
        ),
      ),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(await depth(p.dlqUrl)).toBe(2);

    const ledger = await cli(
      [
        'ledger',
        '--table',
        local.tables.ledgerTable,
        '--tenant',
        'acme',
        '--account',
        account,
        '--period',
        '2026-11',
        '--json',
      ],
      deps(),
    );
    expect(JSON.parse(ledger.stdout).totals).toEqual([
      expect.objectContaining({ currency: 'USD', total: '7.25', charges: 1 }),
    ]);
  });

  it('the command waits for the task and reports; an empty DLQ has nothing to redrive', async () => {
    const p = await pipeline(true);
    await fillDlq(p, '300000000006', true);
    const result = await cli(
      [
        'dlq',
        'redrive',
        '--dlq-url',
        p.dlqUrl,
        '--queue-url',
        p.queueUrl,
        '--max-per-second',
        '50',
      ],
      deps(),
    );
    expect(result.stderr).toMatch(/redrive: \d+\/3 msg \(100%\)/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Moved 3 of 3 messages from .* \(task completed\)/);
    expect(await depth(p.queueUrl)).toBe(3);
    expect(await depth(p.dlqUrl)).toBe(0);

    const again = await cli(
      ['dlq', 'redrive', '--dlq-url', p.dlqUrl, '--queue-url', p.queueUrl],
      deps(),
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('is empty: nothing to redrive');
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['dlq', 'peek'], deps())).code).toBe(2);
    expect((await cli(['dlq', 'peek', '--stream', 'invoices'], deps())).code).toBe(2);
    const rate = await cli(
      ['dlq', 'redrive', '--dlq-url', 'http://x', '--max-per-second', '900'],
      deps(),
    );
    expect(rate.code).toBe(2);
    expect(rate.stderr).toMatch(/between 1 and 500/);
  });

  it('a DLQ that does not exist is an operational error naming the fix', async () => {
    const result = await cli(
      ['dlq', 'peek', '--dlq-url', `${local.sqs.endpoint}/123456789012/nope`],
      deps(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^billing-dedup: Queue does not exist .*--dlq-url/);
  });
});
