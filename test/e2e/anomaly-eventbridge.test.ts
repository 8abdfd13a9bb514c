/**
 * One Cost Anomaly Detection anomaly reaching the budget-alerts topic twice — through the monitor's SNS
 * subscription and through the EventBridge rule (the event JSON as the SNS message, as the rule's target
 * publishes it) — and again with a grown impact: one notification in the local run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAlert } from '../../lambda/core/alert-processor';
import { anomalyDetectedEvent, ruleTargetDelivery } from '../../local/emulators/eventbridge-rule';
import { runLocal } from '../../local/phases/run-local';

const FIXTURES = path.resolve(__dirname, '../fixtures/alerts');
const snsAlert = JSON.parse(
  readFileSync(path.join(FIXTURES, 'aws-cost-anomaly-sns.json'), 'utf8'),
) as Record<string, unknown>;
const documentedEvent = JSON.parse(
  readFileSync(path.join(FIXTURES, 'aws-cost-anomaly-eventbridge.json'), 'utf8'),
) as Record<string, unknown>;

const keyOf = (message: string): string =>
  parseAlert({ messageId: 'm', body: message, messageAttributes: {} }).key;

describe('npm start -- --input: one anomaly by SNS and by EventBridge', () => {
  it('is notified once, its growing impact a duplicate', async () => {
    const grown = { ...snsAlert, impact: { totalImpact: 1500.25, totalImpactPercentage: 410 } };
    const messages = [
      JSON.stringify(snsAlert),
      JSON.stringify(documentedEvent),
      ruleTargetDelivery(
        anomalyDetectedEvent(grown, {
          id: 'f6a1d2c3-0000-4000-8000-000000000001',
          account: '123456789012',
          region: 'us-east-1',
          time: '2021-05-26T18:00:00Z',
        }),
      ).message,
    ];
    const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-anomaly-'));
    const file = path.join(dir, 'input.jsonl');
    writeFileSync(
      file,
      `${messages.map((message) => JSON.stringify({ topic: 'budget-alerts', message })).join('\n')}\n`,
    );

    const { report, deadLetters } = await runLocal({
      outputsFile: false,
      handlerLogFile: false,
      input: file,
    });

    expect(report.published).toBe(3);
    expect(report.notifications).toEqual([
      expect.objectContaining({
        kind: 'anomaly',
        tenant: 'default',
        accountId: '123456789012',
        key: keyOf(messages[0]),
        subject: expect.stringContaining('Cost anomaly in 123456789012'),
      }),
    ]);
    expect(report.streams['budget-alerts']).toMatchObject({ notified: 1, duplicates: 2 });
    expect(deadLetters['budget-alerts']).toEqual([]);
  }, 180_000);
});
