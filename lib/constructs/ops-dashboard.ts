import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { acceptedMetric, outcomeMetric, TENANT_RATE_STD_DEVS } from './consumer-alarms';
import {
  ACCEPTED_METRIC,
  METRIC_NAMESPACE,
  PROVISIONAL_DRIFT_METRICS,
} from '../../contract/telemetry';
import type { TenantConfig } from '../../contract/tenant-bindings';
import { QueueConsumer } from './queue-consumer';
import { OUTCOMES } from '../../contract/outcomes';

export interface OpsDashboardProps {
  readonly dashboardName: string;
  readonly pipelines: readonly QueueConsumer[];
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/** One dashboard per stage: alarm status, then one row block per stream. */
export class OpsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OpsDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(5);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(24),
    });

    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: [...props.alarms],
        width: 24,
        height: 4,
      }),
    );

    for (const p of props.pipelines) {
      const fn = p.consumer.fn;
      this.dashboard.addWidgets(
        new cloudwatch.TextWidget({
          markdown: `## ${p.streamName} (${p.fifo ? 'FIFO' : 'standard'}) → \`${p.serviceName}\``,
          width: 24,
          height: 1,
        }),
      );
      this.dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: queue`,
          left: [
            p.queue.metricApproximateNumberOfMessagesVisible({ period, label: 'visible' }),
            p.queue.metricApproximateNumberOfMessagesNotVisible({ period, label: 'in flight' }),
          ],
          right: [p.queue.metricApproximateAgeOfOldestMessage({ period, label: 'oldest age (s)' })],
          width: 8,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: dead letters`,
          left: [
            p.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              period,
              label: 'DLQ visible',
            }),
          ],
          width: 4,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: function`,
          left: [
            fn.metricInvocations({ period, label: 'invocations' }),
            fn.metricErrors({ period, label: 'errors' }),
            fn.metricThrottles({ period, label: 'throttles' }),
          ],
          right: [
            fn.metricDuration({ period, statistic: cloudwatch.Stats.p(99), label: 'p99 duration' }),
          ],
          width: 6,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: outcomes`,
          left: OUTCOMES.map((o) => outcomeMetric(p.serviceName, o, period).with({ label: o })),
          stacked: true,
          width: 6,
        }),
      );
    }
  }
}

/**
 * The stream-versus-export drift row (docs/exports.md): at each export switch that superseded stream
 * charges, the largest drift in percent of the export (against the notification threshold) and as a
 * figure, and the account-periods above the threshold. `serviceName`: the export chunk worker's.
 */
export function addProvisionalDriftRow(
  dashboard: cloudwatch.Dashboard,
  serviceName: string,
  thresholdPercent: string,
): void {
  const period = Duration.hours(1);
  const metric = (name: string, statistic: string) =>
    new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: serviceName },
      statistic,
      period,
    });
  dashboard.addWidgets(
    new cloudwatch.TextWidget({
      markdown:
        '## provisional drift (stream vs the export that superseded it) — per account-period: `billing-dedup ledger --tenant t --account a --period p`',
      width: 24,
      height: 1,
    }),
  );
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'provisional drift: largest |stream − export| / |export| per switch (%)',
      left: [
        metric(PROVISIONAL_DRIFT_METRICS.percent, cloudwatch.Stats.MAXIMUM).with({
          label: 'largest drift %',
        }),
      ],
      leftAnnotations: [
        { value: Number(thresholdPercent), label: `notified above ${thresholdPercent} %` },
      ],
      width: 10,
    }),
    new cloudwatch.GraphWidget({
      title: 'provisional drift: largest |stream − export| per switch',
      left: [
        metric(PROVISIONAL_DRIFT_METRICS.difference, cloudwatch.Stats.MAXIMUM).with({
          label: 'largest drift (billing currency)',
        }),
      ],
      width: 8,
    }),
    new cloudwatch.SingleValueWidget({
      title: 'provisional drift: account-periods above the threshold (24 h)',
      metrics: [
        metric(PROVISIONAL_DRIFT_METRICS.above, cloudwatch.Stats.SUM).with({
          label: 'above',
          period: Duration.days(1),
        }),
      ],
      width: 6,
    }),
  );
}

/**
 * One row per tenant with a topic of its own: accepted events against their expected band, by source
 * (each tenant stack's dashboard, lib/tenant-stack.ts).
 */
export function addTenantRateRows(
  dashboard: cloudwatch.Dashboard,
  serviceName: string,
  tenants: readonly TenantConfig[],
): void {
  const period = Duration.minutes(5);
  for (const tenant of tenants) {
    const accepted = acceptedMetric(serviceName, tenant.id, period);
    const ceiling = tenant.maxEventsPerMinute;
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: `tenant ${tenant.id}: accepted events (5 min) and expected band`,
        left: [
          accepted.with({ label: 'accepted' }),
          new cloudwatch.MathExpression({
            expression: `ANOMALY_DETECTION_BAND(m1, ${TENANT_RATE_STD_DEVS})`,
            usingMetrics: { m1: accepted },
            label: 'expected band',
            period,
          }),
        ],
        ...(ceiling !== undefined
          ? {
              leftAnnotations: [
                { value: ceiling * period.toMinutes(), label: `ceiling ${ceiling}/min × 5` },
              ],
            }
          : {}),
        width: 14,
      }),
      new cloudwatch.GraphWidget({
        title: `tenant ${tenant.id}: accepted by source`,
        left: [
          new cloudwatch.MathExpression({
            expression:
              `SEARCH('{${METRIC_NAMESPACE},service,source,tenant} MetricName="${ACCEPTED_METRIC}" ` +
              `service="${serviceName}" tenant="${tenant.id}"', 'Sum', ${period.toSeconds()})`,
            label: '',
            period,
          }),
        ],
        stacked: true,
        width: 10,
      }),
    );
  }
}
