import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { QueueConsumer, QueueConsumerProps } from '../../lib/constructs/queue-consumer';
import {
  InvariantError,
  checkDedupTtl,
  checkDlqKind,
  checkMaxReceiveCount,
  checkTopicFeedsQueue,
  checkVisibilityTimeout,
} from '../../lib/invariants';
import { synth } from './helpers';

/** Synth the real app with a bad config: it must fail with the documented message. */
function expectSynthFailure(context: Record<string, unknown>, message: RegExp): void {
  let error: unknown;
  try {
    synth(context);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(InvariantError);
  expect((error as Error).message).toMatch(message);
}

describe('invariants fail synth with a message naming the fix (through the app config)', () => {
  it('dedup TTL ≥ queue retention + DLQ retention + 1 day', () => {
    expectSynthFailure(
      { dedupTtlDays: 28 },
      /\[billing-dedup invariant: dedup-ttl\] dedup TTL 28 d is shorter than queue retention 14 d \+ DLQ retention 14 d \+ 1 day margin = 29 d.*Fix: raise dedupTtlDays to at least 29/,
    );
    expectSynthFailure(
      { dedupTtlDays: 10, queueRetentionDays: 7, dlqRetentionDays: 3 },
      /raise dedupTtlDays to at least 11/,
    );
    expect(() => synth({ dedupTtlDays: 29 })).not.toThrow();
  });

  it('visibility timeout ≥ 6 × function timeout + batching window', () => {
    expectSynthFailure(
      { visibilityTimeoutSeconds: 150 },
      /\[billing-dedup invariant: visibility-timeout\] queue visibility timeout 150s is below 6 × function timeout 30s \+ batching window 0s = 180s.*Fix: set visibilityTimeoutSeconds ≥ 180/,
    );
    // The standard budget-alerts queue also counts its batching window.
    expectSynthFailure(
      { visibilityTimeoutSeconds: 182 },
      /visibility timeout 182s is below 6 × function timeout 30s \+ batching window 5s = 185s/,
    );
    expect(() => synth({ visibilityTimeoutSeconds: 185 })).not.toThrow();
  });

  it('maxReceiveCount ≥ 3', () => {
    expectSynthFailure(
      { maxReceiveCount: 2 },
      /\[billing-dedup invariant: max-receive-count\] maxReceiveCount 2 is below 3.*Fix: set maxReceiveCount ≥ 3/,
    );
  });

  it('maxReceiveCount below 5 synthesizes with a warning', () => {
    const { stateless } = synth({ maxReceiveCount: 3 });
    const annotations = Annotations.fromStack(stateless);
    annotations.hasWarning(
      '/billing-dedup-dev-stateless/CostEventsPipeline',
      Match.stringLikeRegexp('maxReceiveCount 3 is below the recommended 5'),
    );
    annotations.hasWarning(
      '/billing-dedup-dev-stateless/BudgetAlertsPipeline',
      Match.stringLikeRegexp('maxReceiveCount 3'),
    );
  });

  it('the default config raises no warning', () => {
    const { stateless } = synth();
    Annotations.fromStack(stateless).hasNoWarning('*', Match.stringLikeRegexp('maxReceiveCount'));
  });
});

describe('invariants enforced by the QueueConsumer construct', () => {
  function pipeline(overrides: Partial<QueueConsumerProps> & { topicFifo?: boolean }) {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test');
    const key = new kms.Key(stack, 'Key');
    const topicFifo = overrides.topicFifo ?? true;
    const topic = new sns.Topic(stack, 'Topic', {
      fifo: topicFifo || undefined,
      topicName: topicFifo ? 't.fifo' : 't',
    });
    const props: QueueConsumerProps = {
      streamName: 'cost-events',
      topic,
      fifo: true,
      queueName: 'q.fifo',
      dlqName: 'q-dlq.fifo',
      masterKey: key,
      retention: Duration.days(14),
      dlqRetention: Duration.days(14),
      visibilityTimeout: Duration.seconds(185),
      maxReceiveCount: 5,
      dedupTtl: Duration.days(35),
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(5),
      maxConcurrency: 2,
      inBatchConcurrency: 4,
      consumer: {
        functionName: 'fn',
        entry: 'lambda/handlers/cost-ledger.ts',
        timeout: Duration.seconds(30),
        memorySize: 256,
        logRetention: logs.RetentionDays.ONE_WEEK,
        logRemovalPolicy: RemovalPolicy.DESTROY,
        serviceName: 'svc',
        logLevel: 'INFO',
        environment: {},
      },
      ...overrides,
    };
    return () => new QueueConsumer(stack, 'Pipeline', props);
  }

  it('a FIFO queue needs a FIFO DLQ', () => {
    const build = (dlqFifo: boolean) => {
      const stack = new Stack();
      const dlq = new sqs.Queue(stack, 'Dlq', { fifo: dlqFifo || undefined });
      return pipeline({ deadLetterQueue: dlq });
    };
    expect(build(false)).toThrow(
      /\[billing-dedup invariant: dlq-kind\] a FIFO queue needs a FIFO dead-letter queue, got a standard one\. Fix: create the DLQ with fifo: true/,
    );
  });

  it('a standard queue needs a standard DLQ', () => {
    const stack = new Stack();
    const dlq = new sqs.Queue(stack, 'Dlq', { fifo: true });
    expect(
      pipeline({ fifo: false, topicFifo: false, queueName: 'q', deadLetterQueue: dlq }),
    ).toThrow(/a standard queue needs a standard dead-letter queue, got a FIFO one/);
  });

  it('a standard topic never feeds a FIFO queue', () => {
    expect(pipeline({ topicFifo: false })).toThrow(
      /\[billing-dedup invariant: topic-queue-kind\] a standard SNS topic cannot feed a FIFO queue.*Fix: subscribe the FIFO queue to a FIFO topic/,
    );
  });

  it('a FIFO topic may feed a standard queue', () => {
    expect(pipeline({ fifo: false, queueName: 'q', dlqName: 'q-dlq' })).not.toThrow();
  });
});

describe('invariant functions', () => {
  it('accept the boundaries', () => {
    expect(() =>
      checkDedupTtl({
        ttlSeconds: 29 * 86400,
        queueRetentionSeconds: 14 * 86400,
        dlqRetentionSeconds: 14 * 86400,
      }),
    ).not.toThrow();
    expect(() =>
      checkVisibilityTimeout({
        visibilityTimeoutSeconds: 185,
        functionTimeoutSeconds: 30,
        batchingWindowSeconds: 5,
      }),
    ).not.toThrow();
    expect(() => checkDlqKind({ queueFifo: true, dlqFifo: true })).not.toThrow();
    expect(() => checkTopicFeedsQueue({ topicFifo: true, queueFifo: true })).not.toThrow();
    expect(checkMaxReceiveCount(5)).toBeUndefined();
    expect(checkMaxReceiveCount(4)).toMatch(/below the recommended 5/);
  });

  it('reject one below the boundaries', () => {
    expect(() =>
      checkDedupTtl({
        ttlSeconds: 29 * 86400 - 1,
        queueRetentionSeconds: 14 * 86400,
        dlqRetentionSeconds: 14 * 86400,
      }),
    ).toThrow(InvariantError);
    expect(() =>
      checkVisibilityTimeout({
        visibilityTimeoutSeconds: 184,
        functionTimeoutSeconds: 30,
        batchingWindowSeconds: 5,
      }),
    ).toThrow(InvariantError);
    expect(() => checkMaxReceiveCount(2)).toThrow(InvariantError);
  });
});
