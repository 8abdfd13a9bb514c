import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { describeStackOutputs, readOutputsFile } from '../../cli/resources';
import { cli, writeTemp } from './helpers';

const cloudformation = new CloudFormationClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const cfnMock = mockClient(cloudformation);

const notFound = (name: string) =>
  Object.assign(new Error(`Stack with id ${name} does not exist`), {
    name: 'ValidationError',
    $fault: 'client',
  });

const stacks: Record<string, Record<string, string>> = {
  'billing-dedup-dev-stateful': {
    LedgerTableName: 'billing-dedup-dev-ledger',
    DedupTableName: 'billing-dedup-dev-dedup',
  },
  'billing-dedup-dev-stateless': {
    CostEventsTopicArn: 'arn:aws:sns:eu-west-1:123456789012:billing-dedup-dev-cost-events.fifo',
    CostEventsDlqUrl:
      'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dedup-dev-cost-events-dlq.fifo',
  },
};

const describeFake = (input: { StackName?: string }) => {
  const outputs = stacks[input.StackName ?? ''];
  if (!outputs) throw notFound(input.StackName ?? '');
  return {
    Stacks: [
      {
        StackName: input.StackName,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date(0),
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
          OutputKey,
          OutputValue,
        })),
      },
    ],
  };
};

const describedNames = () =>
  cfnMock.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input.StackName);

beforeEach(() => {
  cfnMock.reset();
  cfnMock.on(DescribeStacksCommand).callsFake(describeFake);
});

describe('--stack discovery (CloudFormation mocked)', () => {
  it('a stage prefix reads both stacks and merges their outputs', async () => {
    const found = await describeStackOutputs(cloudformation, 'billing-dedup-dev');
    expect(describedNames()).toEqual(['billing-dedup-dev-stateful', 'billing-dedup-dev-stateless']);
    expect(found.origin).toBe('billing-dedup-dev-stateful + billing-dedup-dev-stateless');
    expect(found.outputs).toEqual({
      ...stacks['billing-dedup-dev-stateful'],
      ...stacks['billing-dedup-dev-stateless'],
    });
  });

  it('a full stack name reads that stack and its sibling', async () => {
    const found = await describeStackOutputs(cloudformation, 'billing-dedup-dev-stateless');
    expect(describedNames()).toEqual(['billing-dedup-dev-stateless', 'billing-dedup-dev-stateful']);
    expect(found.outputs.LedgerTableName).toBe('billing-dedup-dev-ledger');
  });

  it('a name that is neither tries the name itself (single-stack deployments)', async () => {
    stacks['legacy-billing'] = { LedgerTableName: 'legacy-ledger' };
    const found = await describeStackOutputs(cloudformation, 'legacy-billing');
    expect(describedNames()).toEqual([
      'legacy-billing-stateful',
      'legacy-billing-stateless',
      'legacy-billing',
    ]);
    expect(found.outputs).toEqual({ LedgerTableName: 'legacy-ledger' });
  });

  it('unknown stack: one line naming the fix, exit 1', async () => {
    const result = await cli(
      ['ledger', '--stack', 'billing-dedup-prod', '--account', '1', '--period', '2026-11'],
      {
        clients: { cloudformation },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'billing-dedup: Stack billing-dedup-prod not found in eu-west-1 (tried billing-dedup-prod-stateful, ' +
        'billing-dedup-prod-stateless, billing-dedup-prod): pass a deployed stack name or stage prefix ' +
        '(e.g. billing-dedup-dev) to --stack and check AWS_REGION / --region\n',
    );
  });

  it('AccessDenied on DescribeStacks names the missing permission', async () => {
    cfnMock.on(DescribeStacksCommand).rejects(
      Object.assign(
        new Error(
          'User: arn:aws:sts::123456789012:assumed-role/ops/me is not authorized to perform: cloudformation:DescribeStacks on resource: arn:aws:cloudformation:eu-west-1:123456789012:stack/billing-dedup-dev-stateful/*',
        ),
        {
          name: 'AccessDenied',
        },
      ),
    );
    const result = await cli(
      ['dlq', 'peek', '--stack', 'billing-dedup-dev', '--stream', 'cost-events'],
      {
        clients: { cloudformation },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^billing-dedup: Access denied: missing permission cloudformation:DescribeStacks on arn:aws:cloudformation:/,
    );
  });

  it('a stack without the needed output says which flag fixes it', async () => {
    const result = await cli(
      ['dlq', 'peek', '--stack', 'billing-dedup-dev', '--stream', 'budget-alerts'],
      {
        clients: { cloudformation },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /billing-dedup-dev-stateful \+ billing-dedup-dev-stateless has no output BudgetAlertsDlqUrl .*--dlq-url/,
    );
  });

  it('explicit flags need no CloudFormation at all', async () => {
    const result = await cli(
      [
        'publish',
        '--stack',
        'billing-dedup-dev',
        '--topic',
        'arn:aws:sns:eu-west-1:1:t',
        '--input',
        '/missing.jsonl',
      ],
      {
        clients: { cloudformation },
      },
    );
    expect(result.code).toBe(2);
    expect(describedNames()).toEqual([]);
  });
});

describe('--outputs-file (the local run)', () => {
  const file = () =>
    writeTemp(
      'stack-outputs.json',
      JSON.stringify({
        'billing-dedup-local-stateful': { LedgerTableName: 'ledger-local' },
        'billing-dedup-local-stateless': {
          CostEventsDlqUrl: 'http://127.0.0.1:1/000000000000/dlq',
        },
        endpoints: { dynamodb: 'http://127.0.0.1:2', sqs: 'http://127.0.0.1:1' },
      }),
    );

  it('merges every stack of the file and keeps the endpoints', () => {
    const read = readOutputsFile(file());
    expect(read.outputs).toEqual({
      LedgerTableName: 'ledger-local',
      CostEventsDlqUrl: 'http://127.0.0.1:1/000000000000/dlq',
    });
    expect(read.endpoints).toEqual({ dynamodb: 'http://127.0.0.1:2', sqs: 'http://127.0.0.1:1' });
    expect(readOutputsFile(file(), 'billing-dedup-local').outputs.LedgerTableName).toBe(
      'ledger-local',
    );
  });

  it('names the problem when the file or the stack is missing', async () => {
    const missing = await cli(['ledger', '--outputs-file', '/nope/stack-outputs.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /Cannot read outputs file \/nope\/stack-outputs.json \(not found\): start the local run/,
    );
    const wrongStack = await cli([
      'ledger',
      '--outputs-file',
      file(),
      '--stack',
      'billing-dedup-prod',
    ]);
    expect(wrongStack.code).toBe(2);
    expect(wrongStack.stderr).toMatch(
      /has no stack billing-dedup-prod \(it has billing-dedup-local-stateful, billing-dedup-local-stateless\)/,
    );
  });

  it('publish refuses to send a local run’s messages to real SNS', async () => {
    const result = await cli([
      'publish',
      '--input',
      writeTemp('a.jsonl', '{}'),
      '--outputs-file',
      file(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no SNS endpoint.*npm start -- --input FILE/);
  });
});

describe('tenant stacks (their tenants’ cost-events topics)', () => {
  const topic = (tenant: string) =>
    `arn:aws:sns:eu-west-1:123456789012:billing-dedup-prod-cost-events-${tenant}.fifo`;
  const tenantStacks: Record<string, Record<string, string>> = {
    'billing-dedup-prod-stateful': { LedgerTableName: 'ledger' },
    'billing-dedup-prod-stateless': {
      CostEventsTenantStacks: JSON.stringify([
        'billing-dedup-prod-stateless-tenants-03',
        'billing-dedup-prod-stateless-tenants-17',
      ]),
    },
    'billing-dedup-prod-stateless-tenants-03': {
      CostEventsTenantTopicArns: JSON.stringify({ acme: topic('acme') }),
    },
    'billing-dedup-prod-stateless-tenants-17': {
      CostEventsTenantTopicArns: JSON.stringify({ globex: topic('globex') }),
    },
  };

  it('--stack reads the tenant stacks the stateless stack names, and merges their topics', async () => {
    cfnMock.on(DescribeStacksCommand).callsFake((input: { StackName?: string }) => {
      const outputs = tenantStacks[input.StackName ?? ''];
      if (!outputs) throw notFound(input.StackName ?? '');
      return {
        Stacks: [
          {
            StackName: input.StackName,
            StackStatus: 'UPDATE_COMPLETE',
            CreationTime: new Date(0),
            Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
              OutputKey,
              OutputValue,
            })),
          },
        ],
      };
    });
    const found = await describeStackOutputs(cloudformation, 'billing-dedup-prod');
    expect(describedNames().sort()).toEqual(Object.keys(tenantStacks).sort());
    expect(JSON.parse(found.outputs.CostEventsTenantTopicArns)).toEqual({
      acme: topic('acme'),
      globex: topic('globex'),
    });
  });

  it('the local outputs file: every tenant stack of the stage, topics merged', () => {
    const file = writeTemp('tenant-outputs.json', JSON.stringify(tenantStacks));
    const found = readOutputsFile(file, 'billing-dedup-prod');
    expect(JSON.parse(found.outputs.CostEventsTenantTopicArns)).toEqual({
      acme: topic('acme'),
      globex: topic('globex'),
    });
  });
});
