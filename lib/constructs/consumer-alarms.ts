import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ACCEPTED_METRIC, METRIC_NAMESPACE } from '../../contract/telemetry';
import type { TenantConfig } from '../../contract/tenant-bindings';
import { QueueConsumer } from './queue-consumer';

export interface ConsumerAlarmsProps {
  readonly pipeline: QueueConsumer;
  /** Alarm name prefix, e.g. `billing-dedup-prod-cost-events`. */
  readonly namePrefix: string;
  readonly opsTopic: sns.ITopic;
  readonly oldestMessageAgeThreshold: Duration;
}

/** An outcome count a consumer emits (EMF: namespace BillingDedup, metric = outcome, dimension service). */
export function outcomeMetric(
  serviceName: string,
  outcome: string,
  period = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName: outcome,
    dimensionsMap: { service: serviceName },
    statistic: cloudwatch.Stats.SUM,
    period,
  });
}

/**
 * The alarms of one stream (docs/infrastructure.md), all notifying the ops topic on ALARM and OK:
 * DLQ not empty, oldest message too old, function errors, function throttles, conflicts.
 * Names are `<prefix>-<what>`; descriptions say what it means and what to do.
 */
export class ConsumerAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly opsTopic: sns.ITopic;

  constructor(scope: Construct, id: string, props: ConsumerAlarmsProps) {
    super(scope, id);
    this.opsTopic = props.opsTopic;
    const { pipeline, namePrefix } = props;
    const fn = pipeline.consumer.fn;
    const stream = pipeline.streamName;

    this.add('DlqNotEmpty', {
      alarmName: `${namePrefix}-dlq-not-empty`,
      alarmDescription:
        `${stream}: messages are waiting in the dead-letter queue (poison messages or retries exhausted). ` +
        'Peek the DLQ with the billing-dedup CLI, read the rejection reason attributes, fix the producer or the ' +
        'consumer, then redrive; redriving is safe because effects are deduplicated.',
      metric: pipeline.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
    });

    this.add('OldestMessageAge', {
      alarmName: `${namePrefix}-oldest-message-age`,
      alarmDescription:
        `${stream}: the oldest message in the source queue is older than ` +
        `${props.oldestMessageAgeThreshold.toSeconds()}s: the consumer is stuck, throttled or failing (for FIFO, one ` +
        'failing message blocks its group). Check the function errors/throttles alarms and logs.',
      metric: pipeline.queue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: props.oldestMessageAgeThreshold.toSeconds(),
    });

    this.add('FunctionErrors', {
      alarmName: `${namePrefix}-function-errors`,
      alarmDescription:
        `${stream}: the consumer function failed whole invocations (crash, timeout, init error). Records are retried ` +
        'and eventually dead-lettered. Read the function logs; a deploy with a broken bundle shows up here first.',
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
    });

    this.add('FunctionThrottles', {
      alarmName: `${namePrefix}-function-throttles`,
      alarmDescription:
        `${stream}: the consumer function was throttled. Check the account concurrency limit and ` +
        'eventSourceMaxConcurrency; sustained throttling delays processing and may dead-letter messages.',
      metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
    });

    this.add('Conflicts', {
      alarmName: `${namePrefix}-conflicts`,
      alarmDescription:
        `${stream}: a producer re-sent an event id (or line item version) with different content. Nothing was ` +
        'applied for it. Find the "conflict" log lines (messageId, short hash) and correct the producer: ' +
        'a changed charge needs a new eventId or a higher version.',
      metric: outcomeMetric(pipeline.serviceName, 'conflict'),
      threshold: 1,
    });
  }

  private add(
    id: string,
    props: {
      alarmName: string;
      alarmDescription: string;
      metric: cloudwatch.IMetric;
      threshold: number;
    },
  ): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      ...props,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.opsTopic));
    alarm.addOkAction(new actions.SnsAction(this.opsTopic));
    this.alarms.push(alarm);
  }
}

/** Accepted events of one tenant (EMF: metric `accepted`, dimensions service + tenant). */
export function acceptedMetric(
  serviceName: string,
  tenant: string,
  period = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName: ACCEPTED_METRIC,
    dimensionsMap: { service: serviceName, tenant },
    statistic: cloudwatch.Stats.SUM,
    period,
  });
}

export interface TenantRateAlarmsProps {
  /** The cost consumer's service name (the `service` dimension). */
  readonly serviceName: string;
  readonly tenants: readonly TenantConfig[];
  /** Alarm name prefix, e.g. `billing-dedup-prod-cost-events`. */
  readonly namePrefix: string;
  readonly opsTopic: sns.ITopic;
}

/** Standard deviations of the anomaly band: wide enough that a busy month-end is not an alarm. */
export const TENANT_RATE_STD_DEVS = 3;

/**
 * Per tenant: an anomaly-detection alarm on its accepted-event rate and, with `maxEventsPerMinute`, a
 * ceiling alarm. Alarms only: nothing is throttled or dropped, every event still lands exactly once.
 */
export class TenantRateAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly opsTopic: sns.ITopic;

  constructor(scope: Construct, id: string, props: TenantRateAlarmsProps) {
    super(scope, id);
    this.opsTopic = props.opsTopic;
    for (const tenant of props.tenants) {
      const name = `${props.namePrefix}-tenant-${tenant.id}`;
      const anomaly = new cloudwatch.AnomalyDetectionAlarm(this, `${tenant.id}Anomaly`, {
        alarmName: `${name}-rate-anomaly`,
        alarmDescription:
          `Tenant ${tenant.id}: accepted cost events above the expected band. A compromised publisher or a ` +
          'runaway retry loop looks like this; nothing is throttled and every event still lands once. Check ' +
          `the dashboard's ${tenant.id} row (per source) and the publishers of its topic (docs/threat-model.md).`,
        metric: acceptedMetric(props.serviceName, tenant.id),
        stdDevs: TENANT_RATE_STD_DEVS,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_UPPER_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      this.notify(anomaly);
      if (tenant.maxEventsPerMinute === undefined) continue;
      this.notify(
        new cloudwatch.Alarm(this, `${tenant.id}Ceiling`, {
          alarmName: `${name}-rate-ceiling`,
          alarmDescription:
            `Tenant ${tenant.id}: more than ${tenant.maxEventsPerMinute} accepted cost events in a minute ` +
            '(tenants[].maxEventsPerMinute). Nothing is throttled; find which source sends them on the dashboard ' +
            'and stop or rotate that publisher if it is not expected (docs/threat-model.md).',
          metric: acceptedMetric(props.serviceName, tenant.id, Duration.minutes(1)),
          threshold: tenant.maxEventsPerMinute,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          datapointsToAlarm: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
  }

  private notify(alarm: cloudwatch.Alarm): void {
    alarm.addAlarmAction(new actions.SnsAction(this.opsTopic));
    alarm.addOkAction(new actions.SnsAction(this.opsTopic));
    this.alarms.push(alarm);
  }
}
