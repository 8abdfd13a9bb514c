/**
 * The local environment is made from the synthesized templates: a configuration change (CDK context)
 * shows up on the local queues, and the outputs file maps every stack output to a local value.
 */
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { generateSample } from '../../local/scenarios/generator';
import { runLocal, type LocalEnvironment } from '../../local/phases/run-local';

it('runs with the configured timeouts and writes the stack outputs with local values', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'billing-dedup-outputs-'));
  const outputsFile = path.join(dir, 'stack-outputs.json');
  let environment: LocalEnvironment | undefined;
  const sample = generateSample({ seed: 3, chargesPerAccountMonth: 2, pushes: false });
  const result = await runLocal({
    outputsFile,
    handlerLogFile: false,
    sample,
    acquisitions: false,
    faults: { 'ack-loss': 0, throttle: 0, timeout: 0 },
    context: { functionTimeoutSeconds: 20, visibilityTimeoutSeconds: 150, maxReceiveCount: 7 },
    onEnvironment: (env) => {
      environment = env;
    },
  });
  expect(result.report.verdict.status).toBe('PASS');
  expect(environment).toBeDefined();
  // The outputs file maps the CfnOutputs to local values and names the endpoints.
  const outputs = JSON.parse(readFileSync(outputsFile, 'utf8'));
  const stateless = outputs['billing-dedup-dev-stateless'];
  expect(stateless.CostEventsQueueUrl).toBe(
    `${outputs.endpoints.sqs}/123456789012/billing-dedup-dev-cost-events.fifo`,
  );
  // DLQ names are generated (stack-logicalId): the DLQs are retained, so they carry no fixed name.
  expect(stateless.BudgetAlertsDlqUrl).toMatch(
    /billing-dedup-dev-stateless-BudgetAlertsPipelineDeadLetterQueue[0-9A-F]{8}$/,
  );
  expect(outputs['billing-dedup-dev-stateful'].LedgerTableName).toBe('billing-dedup-dev-ledger');
  expect(outputs.endpoints.dynamodb).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(result.report.run.streams['cost-events']).toMatchObject({
    visibilityTimeoutSeconds: 150,
    maxReceiveCount: 7,
    functionTimeoutSeconds: 20,
  });
}, 120_000);

it('shows the configured values on the running local queues (GetQueueAttributes)', async () => {
  const seen: Record<string, Record<string, string>> = {};
  const controller = new AbortController();
  const run = runLocal({
    outputsFile: false,
    handlerLogFile: false,
    acquisitions: false,
    sample: {
      messages: [],
      truth: {
        ledger: [],
        notificationKeys: [],
        deadLetters: { 'cost-events': 0, 'budget-alerts': 0 },
        conflicts: [],
      },
    },
    context: { visibilityTimeoutSeconds: 240, maxReceiveCount: 4 },
    keepRunning: true,
    signal: controller.signal,
    onEnvironment: (env) => {
      void (async () => {
        for (const queue of env.plan.queues) {
          const { Attributes = {} } = await env.sqs.client.send(
            new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] }),
          );
          seen[queue.queueName] = Attributes;
        }
        controller.abort();
      })();
    },
  });
  // Aborting the run as soon as the attributes are read is fine: the queues were already there.
  await run.catch((error: Error) => {
    if (error.name !== 'AbortedError') throw error;
  });
  expect(seen['billing-dedup-dev-cost-events.fifo']).toMatchObject({
    VisibilityTimeout: '240',
    FifoQueue: 'true',
    ContentBasedDeduplication: 'true',
    DeduplicationScope: 'messageGroup',
    MessageRetentionPeriod: String(14 * 86400),
  });
  expect(JSON.parse(seen['billing-dedup-dev-cost-events.fifo'].RedrivePolicy)).toEqual({
    deadLetterTargetArn: expect.stringMatching(
      /^arn:aws:sqs:us-east-1:123456789012:billing-dedup-dev-stateless-CostEventsPipelineDeadLetterQueue[0-9A-F]{8}\.fifo$/,
    ),
    maxReceiveCount: 4,
  });
  expect(JSON.parse(seen['billing-dedup-dev-budget-alerts'].RedrivePolicy).maxReceiveCount).toBe(4);
  expect(seen['billing-dedup-dev-budget-alerts'].VisibilityTimeout).toBe('240');
}, 120_000);
