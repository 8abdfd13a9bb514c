/**
 * `npm start -- --input FILE`: what SNS would refuse is a skipped line with its reason, never the end of
 * the run; the rest of the file is published, processed and reported.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summaryText, verdictAgainstTruth } from '../../local/report/run-report';
import { runLocal } from '../../local/phases/run-local';
import { LocalSns, MAX_MESSAGE_BYTES } from '../../local/emulators/sns-in-process';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { TopicPlan } from '../../local/runtime/template';

const charge = (eventId: string, accountId: string, amount: string, extra = {}) => ({
  tenant: 'acme',
  source: 'aws',
  eventId,
  accountId,
  chargePeriodStart: '2026-11-03T10:00:00Z',
  chargeCategory: 'usage',
  amount,
  currency: 'USD',
  ...extra,
});

describe('the local SNS', () => {
  const topic: TopicPlan = {
    logicalId: 'Topic',
    stackName: 'test',
    topicName: 'notifications',
    arn: 'arn:aws:sns:us-east-1:123456789012:notifications',
    fifo: false,
    contentBasedDeduplication: false,
  };
  const sns = () => new LocalSns([topic], [], [], {} as SQSClient);

  it('refuses a message over 256 KiB, attributes included, as SNS does', async () => {
    const body = 'x'.repeat(MAX_MESSAGE_BYTES - 20);
    await expect(sns().publish({ topicArn: topic.arn, message: body })).resolves.toBeDefined();
    await expect(
      sns().publish({ topicArn: topic.arn, message: body, attributes: { tenant: 'a'.repeat(30) } }),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringMatching(/^Invalid parameter: Message too long/),
    });
    await expect(
      sns().publish({ topicArn: topic.arn, message: 'é'.repeat(MAX_MESSAGE_BYTES / 2 + 1) }),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });
});

describe('the sample verdict', () => {
  it('fails when SNS refused a sample message, naming it', () => {
    const truth = {
      ledger: [],
      notificationKeys: [],
      deadLetters: { 'cost-events': 0, 'budget-alerts': 0 },
      conflicts: [],
    };
    const settled = { name: 'settled', ok: true, detail: '' };
    expect(verdictAgainstTruth(truth, [], [], {}, settled).status).toBe('PASS');
    const verdict = verdictAgainstTruth(truth, [], [], {}, settled, [
      { message: 12, note: 'FOCUS AWS row', topic: 'cost-events', error: 'Message too long' },
    ]);
    expect(verdict.status).toBe('FAIL');
    expect(verdict.summary).toBe(
      'published: 1 message(s) refused by SNS (first: message 12 (FOCUS AWS row): Message too long)',
    );
  });
});

describe('npm start -- --input', () => {
  it('an oversized line is skipped with its reason; every other line is published and applied', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-input-'));
    const file = path.join(dir, 'input.jsonl');
    const lines = [
      { topic: 'cost-events', message: charge('e-1', '200000000011', '1.25') },
      { topic: 'cost-events', message: charge('e-2', '200000000011', '2.5') },
      {
        topic: 'cost-events',
        message: charge('e-big', '200000000011', '3', { description: 'x'.repeat(300 * 1024) }),
      },
      // A free-form account id (space, non-ASCII letters): booked under a valid derived group id.
      { topic: 'cost-events', message: charge('e-3', 'Compte Général 7', '4') },
      { topic: 'cost-events', message: charge('e-4', '200000000011', '0.25'), groupId: 'grüppe' },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const result = await runLocal({ outputsFile: false, handlerLogFile: false, input: file });
    const { report } = result;

    expect(report.published).toBe(3);
    expect(report.run.unpublished).toEqual([
      expect.objectContaining({
        line: 3,
        topic: 'cost-events',
        error: expect.stringMatching(
          /^InvalidParameterException: Invalid parameter: Message too long/,
        ),
      }),
    ]);
    expect(report.run.input?.skipped.map((problem) => problem.line)).toEqual([3, 5]);
    expect(report.run.input?.skipped[0].error).toMatch(/^not published: /);
    expect(report.run.input?.skipped[1].error).toMatch(/"groupId" must be 1 to 128 ASCII/);
    expect(report.verdict.status).toBe('FAIL');
    expect(result.exitCode).toBe(1);
    expect(report.ledger).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ accountId: '200000000011', total: '3.75', charges: 2 }),
        expect.objectContaining({ accountId: 'Compte Général 7', total: '4', charges: 1 }),
      ]),
    );
    const summary = summaryText(report);
    expect(summary).toContain('published 3 (of 5 lines)');
    expect(summary).toMatch(/not published \(skipped\): 1\n {2}line 3: InvalidParameterException/);
    expect(summary).toMatch(/bad input lines \(skipped\): 1\n {2}line 5: "groupId"/);
  }, 120_000);
});
