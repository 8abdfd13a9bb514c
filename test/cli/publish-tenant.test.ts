/** `publish --tenant T` on a stage with tenant topics (docs/threat-model.md). */
import {
  PublishBatchCommand,
  SNSClient,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { TENANT_TOPICS_OUTPUT } from '../../contract/outputs';
import { costEvent } from '../support/cost-events';
import { cli, virtualClock, writeTemp } from './helpers';

const SHARED = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events.fifo';
const ACME = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events-acme.fifo';

const sns = new SNSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const snsMock = mockClient(sns);

const outputsFile = () =>
  writeTemp(
    'outputs.json',
    JSON.stringify({
      'billing-dedup-dev-stateless': {
        CostEventsTopicArn: SHARED,
        [TENANT_TOPICS_OUTPUT]: JSON.stringify({ acme: ACME }),
      },
      endpoints: { sns: 'http://127.0.0.1:9' },
    }),
  );

const withoutTenant = () => {
  const { tenant: _dropped, ...rest } = costEvent({ eventId: 'e-1', amount: '1.5' });
  return JSON.stringify(rest);
};

const published = (): { topic?: string; entries: PublishBatchRequestEntry[] }[] =>
  snsMock.commandCalls(PublishBatchCommand).map((call) => {
    const input: PublishBatchCommandInput = call.args[0].input;
    return { topic: input.TopicArn, entries: input.PublishBatchRequestEntries ?? [] };
  });

describe('publish --tenant with tenant topics', () => {
  beforeEach(() => snsMock.reset());

  it('publishes cost events to that tenant’s own topic, grouped as that tenant’s', async () => {
    snsMock.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
      Successful: (input.PublishBatchRequestEntries ?? []).map((entry) => ({
        Id: entry.Id,
        MessageId: 'm',
      })),
      Failed: [],
    }));
    const input = writeTemp('events.jsonl', `${withoutTenant()}\n`);
    const result = await cli(
      ['publish', '--outputs-file', outputsFile(), '--input', input, '--tenant', 'ACME'],
      { clients: { sns }, ...virtualClock() },
    );
    expect(result.code).toBe(0);
    const [batch] = published();
    expect(batch.topic).toBe(ACME);
    expect(batch.entries[0].MessageGroupId).toBe('acme#200000000011');
  });

  it('refuses a tenant without a topic, naming the tenants that have one', async () => {
    const input = writeTemp('events.jsonl', `${withoutTenant()}\n`);
    const result = await cli(
      ['publish', '--outputs-file', outputsFile(), '--input', input, '--tenant', 'initech'],
      { clients: { sns }, ...virtualClock() },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /no cost-events topic for tenant "initech" \(tenants with a topic: acme\)/,
    );
    expect(published()).toHaveLength(0);
  });

  it('names the missing permission and the topic when the publish is denied', async () => {
    snsMock.on(PublishBatchCommand).rejects(
      Object.assign(new Error('User is not authorized to perform this action'), {
        name: 'AuthorizationError',
        $fault: 'client',
      }),
    );
    const input = writeTemp('events.jsonl', `${withoutTenant()}\n`);
    const result = await cli(
      ['publish', '--outputs-file', outputsFile(), '--input', input, '--tenant', 'acme'],
      { clients: { sns }, ...virtualClock() },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`missing permission sns:Publish on ${ACME}`);
  });
});
