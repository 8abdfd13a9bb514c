import { STACK_OUTPUTS, streamOutputs } from '../../../contract/outputs';
import { ALL_SERVICE_PUBLISHERS, SERVICE_PUBLISHERS } from '../../../contract/publishers';
import {
  ALERT_STREAM,
  COST_STREAM,
  EXPORT_STREAM_DEFINITIONS,
  STREAM_DEFINITIONS,
  STREAM_NAMES,
  isStreamName,
  streamNamed,
  ARCHIVE_SPOOL,
} from '../../../contract/streams';
import { STREAMS as CLI_STREAMS } from '../../../cli/resources';
import { HANDLER_FACTORIES } from '../../../local/runtime/functions';

describe('stream contract', () => {
  it('lists the streams in deployment order, each with a unique name and output prefix', () => {
    expect(STREAM_NAMES).toEqual([COST_STREAM, ALERT_STREAM]);
    expect(new Set(STREAM_DEFINITIONS.map((s) => s.outputPrefix)).size).toBe(STREAM_NAMES.length);
    for (const name of STREAM_NAMES) expect(streamNamed(name).name).toBe(name);
    expect(isStreamName(COST_STREAM)).toBe(true);
    expect(isStreamName('cost-events.fifo')).toBe(false);
    expect(isStreamName(undefined)).toBe(false);
  });

  it('is the one list the CLI and the local runtime accept', () => {
    expect(CLI_STREAMS).toEqual(STREAM_NAMES);
    expect(Object.keys(HANDLER_FACTORIES).sort()).toEqual(
      [
        ...STREAM_NAMES,
        ...EXPORT_STREAM_DEFINITIONS.map((stream) => stream.name),
        ARCHIVE_SPOOL.name,
      ].sort(),
    );
  });

  it('derives every output id of a stream from its prefix, all distinct from the stack-wide ids', () => {
    const ids = [
      ...Object.values(STACK_OUTPUTS),
      ...STREAM_NAMES.flatMap((name) => Object.values(streamOutputs(name))),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect(streamOutputs(ALERT_STREAM).dlqUrl).toBe('BudgetAlertsDlqUrl');
  });
});

describe('service publishers', () => {
  const scope = { partition: 'aws', account: '123456789012', region: 'eu-west-1' };

  it('scope Budgets to the account and CloudWatch to the alarms matching a name pattern', () => {
    expect(SERVICE_PUBLISHERS.budgets.sourceArnLike(scope)).toBe('arn:aws:budgets::123456789012:*');
    expect(SERVICE_PUBLISHERS.cloudWatchAlarms.sourceArnLike(scope, 'billing-dedup-dev-*')).toBe(
      'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:billing-dedup-dev-*',
    );
  });

  it('name one key policy statement each and are all reachable from a stream or the ops topic', () => {
    expect(ALL_SERVICE_PUBLISHERS.map((p) => p.name)).toEqual([
      'Budgets',
      'CostAnomalyDetection',
      'EventBridgeRules',
      'CloudWatchAlarms',
    ]);
    const streamPublishers = STREAM_DEFINITIONS.flatMap((s) => s.servicePublishers);
    // The ops topic takes alarms; the anomaly events rule (lib/constructs/anomaly-events-rule.ts) takes EventBridge.
    expect([...streamPublishers, 'cloudWatchAlarms', 'eventBridgeRules'].sort()).toEqual(
      Object.keys(SERVICE_PUBLISHERS).sort(),
    );
  });
});
